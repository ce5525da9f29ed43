package dev.polling.jdbc.internal;

import dev.polling.jdbc.DatabaseTime;
import dev.polling.jdbc.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Claims, lease renewals and ownership checks on a table of leased rows (the work queue and the
 * delivery guard share the columns {@code id, state, attempts, fence, owner, available_at,
 * lease_until}). A claim moves ready rows ({@code readyState}, or {@code retryState} once
 * {@code available_at} has passed) to {@code workingState}, sets the owner and a lease in database
 * time and bumps the fence, in one short transaction (attempts are counted when one fails, not
 * here, so that an instance that crashes while holding a row does not use up its attempts):
 * <ul>
 * <li>PostgreSQL: one {@code UPDATE ... WHERE id IN (SELECT ... ORDER BY available_at, id LIMIT n
 * FOR UPDATE SKIP LOCKED) RETURNING ...}, in due order along the partial index
 * {@code (group, available_at, id) WHERE state IN (ready, retry)}, which holds only claimable rows
 * (ordering by id alone lets the planner walk the primary key through every finished row).</li>
 * <li>MariaDB and H2: plain (non-locking) reads of candidate ids, page by page in id order along the
 * index (at most 25 pages of 200 rows per claim; a keyed row is a candidate when it is the oldest
 * open row of its key, found with one {@code MIN(id) ... GROUP BY key} per page), a locking read of
 * those still
 * ready with {@code FOR UPDATE SKIP LOCKED}, an {@code UPDATE} by id and a read of the claimed
 * rows. The ordering check runs in the plain read so that rows locked by a competing claim are
 * never skipped while deciding whether an older message of the same key is open.</li>
 * </ul>
 * With an ordering column, a row is claimable only when no older row (lower id) of the same group
 * and key is in one of the {@code openStates}; rows with a null key are not ordered.
 */
public final class LeasedRows {

	private static final int CHUNK = 500;

	private static final int PAGE_SIZE = 200;

	private static final int MAX_PAGES = 25;

	private final Dialect dialect;

	private final String table;

	private final String workingState;

	private final String claimSql;

	private final String[] pageSql;

	private final @Nullable String headSql;

	private final @Nullable String eligibleSql;

	private final String columns;

	private final String readyIn;

	private final DatabaseTime time;

	/**
	 * Describes the table.
	 * @param dialect the dialect
	 * @param table the table name
	 * @param groupColumn the column claims are restricted to (queue name, destination)
	 * @param readyState the state of rows never tried
	 * @param retryState the state of rows waiting for a retry at {@code available_at}
	 * @param workingState the state of claimed rows
	 * @param orderingColumn the key column for per-key ordering, or {@code null}
	 * @param openStates states that block younger rows of the same key
	 * @param columns the columns a claim returns, comma-separated
	 */
	public LeasedRows(Dialect dialect, String table, String groupColumn, String readyState, String retryState,
			String workingState, @Nullable String orderingColumn, List<String> openStates, String columns) {
		this.dialect = dialect;
		this.table = table;
		this.workingState = workingState;
		this.columns = columns;
		this.time = new DatabaseTime(dialect);
		this.readyIn = "('" + readyState + "', '" + retryState + "')";
		String ordering = "";
		if (orderingColumn != null) {
			ordering = " AND (c." + orderingColumn + " IS NULL OR NOT EXISTS (SELECT 1 FROM " + table + " p WHERE p."
					+ groupColumn + " = c." + groupColumn + " AND p." + orderingColumn + " = c." + orderingColumn
					+ " AND p.state IN ('" + String.join("', '", openStates) + "') AND p.id < c.id))";
		}
		String now = this.time.now();
		String set = "state = '" + workingState + "', owner = ?, fence = fence + 1, lease_until = "
				+ this.time.nowPlusMillis();
		this.claimSql = "UPDATE " + table + " SET " + set + " WHERE id IN (SELECT c.id FROM " + table + " c WHERE c."
				+ groupColumn + " = ? AND c.state IN " + this.readyIn + " AND c.available_at <= " + now + ordering
				+ " ORDER BY c.available_at, c.id LIMIT ? FOR UPDATE SKIP LOCKED) AND state IN " + this.readyIn + " RETURNING "
				+ columns;
		String limit = (dialect == Dialect.H2) ? " FETCH FIRST ? ROWS ONLY" : " LIMIT ?";
		// H2 reads the index in order (and stops at the limit) only when ORDER BY names all its columns;
		// MariaDB does so with ORDER BY id alone and falls back to a filesort with the longer form
		String order = (dialect == Dialect.H2) ? " ORDER BY c." + groupColumn + ", c.state, c.id" : " ORDER BY c.id";
		this.pageSql = new String[] {
				"SELECT c.id, " + ((orderingColumn != null) ? "c." + orderingColumn : "NULL") + " FROM " + table
						+ " c WHERE c." + groupColumn + " = ? AND c.state = '" + readyState + "' AND c.id > ?" + order + limit,
				"SELECT c.id, " + ((orderingColumn != null) ? "c." + orderingColumn : "NULL") + " FROM " + table
						+ " c WHERE c." + groupColumn + " = ? AND c.state = '" + retryState + "' AND c.available_at <= "
						+ now + " AND c.id > ?" + order + limit };
		this.eligibleSql = ordering.isEmpty() ? null : "SELECT c.id FROM " + table + " c WHERE c.id IN (%s)" + ordering;
		this.headSql = (orderingColumn == null) ? null : "SELECT " + orderingColumn + ", MIN(id) FROM " + table
				+ " WHERE " + groupColumn + " = ? AND " + orderingColumn + " IN (%s) AND state IN ('"
				+ String.join("', '", openStates) + "') GROUP BY " + orderingColumn;
	}

	/**
	 * Reads one claimed row.
	 * @param <T> the row type
	 */
	@FunctionalInterface
	public interface RowMapper<T> {

		/**
		 * Maps the current row.
		 * @param result the result set on the row
		 * @return the row
		 * @throws SQLException on failure
		 */
		T map(ResultSet result) throws SQLException;

	}

	/**
	 * Claims up to {@code limit} ready rows of a group in a transaction of its own.
	 * @param <T> the row type
	 * @param dataSource where to borrow the connection
	 * @param group the group (queue name, destination)
	 * @param owner the claiming owner
	 * @param leaseMillis the lease
	 * @param limit the most rows to claim
	 * @param mapper reads a claimed row
	 * @return the claimed rows in id order
	 */
	public <T> List<T> claim(DataSource dataSource, String group, String owner, long leaseMillis, int limit,
			RowMapper<T> mapper) {
		return Sql.inTransaction(dataSource, "claim rows of " + this.table + " ('" + group + "')",
				(connection) -> (this.dialect == Dialect.POSTGRESQL)
						? claimInOneStatement(connection, group, owner, leaseMillis, limit, mapper)
						: claimInSteps(connection, group, owner, leaseMillis, limit, mapper));
	}

	private <T> List<T> claimInOneStatement(Connection connection, String group, String owner, long leaseMillis,
			int limit, RowMapper<T> mapper) throws SQLException {
		List<T> claimed = new ArrayList<>(limit);
		try (PreparedStatement statement = connection.prepareStatement(this.claimSql)) {
			statement.setString(1, owner);
			statement.setLong(2, leaseMillis);
			statement.setString(3, group);
			statement.setInt(4, limit);
			try (ResultSet result = statement.executeQuery()) {
				while (result.next()) {
					claimed.add(mapper.map(result));
				}
			}
		}
		return claimed;
	}

	private <T> List<T> claimInSteps(Connection connection, String group, String owner, long leaseMillis, int limit,
			RowMapper<T> mapper) throws SQLException {
		// candidates from plain (non-locking) reads, page by page in id order, more than needed since
		// competing claims take some of them; rows not yet available are filtered by the locking read
		TreeSet<Long> candidates = new TreeSet<>();
		for (String sql : this.pageSql) {
			collectCandidates(connection, sql, group, limit * 3, candidates);
		}
		if (candidates.isEmpty()) {
			return List.of();
		}
		// both reads only return rows that are due, so none of them crowds out a claimable one
		List<Long> ids = new ArrayList<>(candidates);
		String limitClause = (this.dialect == Dialect.H2) ? " FETCH FIRST ? ROWS ONLY" : " LIMIT ?";
		List<Long> locked = new ArrayList<>(limit);
		try (PreparedStatement statement = connection.prepareStatement("SELECT id FROM " + this.table
				+ " WHERE id IN (" + Sql.placeholders(ids.size()) + ") AND state IN " + this.readyIn
				+ " AND available_at <= " + this.time.now() + " ORDER BY id" + limitClause
				+ " FOR UPDATE SKIP LOCKED")) {
			int index = 1;
			for (Long id : ids) {
				statement.setLong(index++, id);
			}
			statement.setInt(index, limit);
			try (ResultSet result = statement.executeQuery()) {
				while (result.next()) {
					locked.add(result.getLong(1));
				}
			}
		}
		if (locked.isEmpty()) {
			return List.of();
		}
		String in = " WHERE id IN (" + Sql.placeholders(locked.size()) + ")";
		try (PreparedStatement statement = connection.prepareStatement("UPDATE " + this.table + " SET state = '"
				+ this.workingState + "', owner = ?, fence = fence + 1, lease_until = " + this.time.nowPlusMillis()
				+ in)) {
			statement.setString(1, owner);
			statement.setLong(2, leaseMillis);
			int index = 3;
			for (Long id : locked) {
				statement.setLong(index++, id);
			}
			statement.executeUpdate();
		}
		List<T> claimed = new ArrayList<>(locked.size());
		try (PreparedStatement statement = connection
			.prepareStatement("SELECT " + this.columns + " FROM " + this.table + in + " ORDER BY id")) {
			int index = 1;
			for (Long id : locked) {
				statement.setLong(index++, id);
			}
			try (ResultSet result = statement.executeQuery()) {
				while (result.next()) {
					claimed.add(mapper.map(result));
				}
			}
		}
		return claimed;
	}

	private void collectCandidates(Connection connection, String sql, String group, int wanted,
			TreeSet<Long> candidates) throws SQLException {
		long after = 0;
		int found = 0;
		for (int page = 0; page < MAX_PAGES && found < wanted; page++) {
			int rows = 0;
			Map<Long, String> keyed = new HashMap<>();
			try (PreparedStatement statement = connection.prepareStatement(sql)) {
				statement.setString(1, group);
				statement.setLong(2, after);
				statement.setInt(3, PAGE_SIZE);
				try (ResultSet result = statement.executeQuery()) {
					while (result.next()) {
						rows++;
						after = result.getLong(1);
						String key = result.getString(2);
						if (key == null) {
							candidates.add(after);
							found++;
						}
						else {
							keyed.put(after, key);
						}
					}
				}
			}
			if (!keyed.isEmpty()) {
				// a keyed row is claimable when it is the oldest open row of its key (the key's head):
				// MariaDB finds the heads fastest with MIN(id) per key, H2 with the NOT EXISTS check per row
				if (this.dialect == Dialect.MARIADB) {
					Map<String, Long> heads = heads(connection, group, new java.util.TreeSet<>(keyed.values()));
					for (Map.Entry<Long, String> row : keyed.entrySet()) {
						if (row.getKey().equals(heads.get(row.getValue()))) {
							candidates.add(row.getKey());
							found++;
						}
					}
				}
				else {
					found += eligible(connection, keyed.keySet(), candidates);
				}
			}
			if (rows < PAGE_SIZE) {
				return;
			}
		}
	}

	private int eligible(Connection connection, java.util.Set<Long> ids, TreeSet<Long> candidates)
			throws SQLException {
		int found = 0;
		try (PreparedStatement statement = connection
			.prepareStatement(String.format(Objects.requireNonNull(this.eligibleSql), Sql.placeholders(ids.size())))) {
			int index = 1;
			for (Long id : ids) {
				statement.setLong(index++, id);
			}
			try (ResultSet result = statement.executeQuery()) {
				while (result.next()) {
					candidates.add(result.getLong(1));
					found++;
				}
			}
		}
		return found;
	}

	private Map<String, Long> heads(Connection connection, String group, java.util.Set<String> keys)
			throws SQLException {
		Map<String, Long> heads = new HashMap<>();
		try (PreparedStatement statement = connection.prepareStatement(String.format(
				Objects.requireNonNull(this.headSql), Sql.placeholders(keys.size())))) {
			statement.setString(1, group);
			int index = 2;
			for (String key : keys) {
				statement.setString(index++, key);
			}
			try (ResultSet result = statement.executeQuery()) {
				while (result.next()) {
					heads.put(result.getString(1), result.getLong(2));
				}
			}
		}
		return heads;
	}

	/**
	 * Extends the leases of claims that are still held: rows in the working state that still carry
	 * the claim's fence (a row reclaimed since, even by the same owner, carries a newer one), one
	 * statement per 500 claims, in a transaction of its own.
	 * @param dataSource where to borrow the connection
	 * @param claims the fence of each row the owner believes it holds, by id
	 * @param leaseMillis the new lease, from now
	 * @return how many rows were renewed
	 */
	public int renew(DataSource dataSource, Map<Long, Long> claims, long leaseMillis) {
		if (claims.isEmpty()) {
			return 0;
		}
		List<Map.Entry<Long, Long>> all = new ArrayList<>(claims.entrySet());
		return Sql.inTransaction(dataSource, "renew leases in " + this.table, (connection) -> {
			int renewed = 0;
			for (int from = 0; from < all.size(); from += CHUNK) {
				List<Map.Entry<Long, Long>> chunk = all.subList(from, Math.min(all.size(), from + CHUNK));
				String pairs = String.join(", ", java.util.Collections.nCopies(chunk.size(), "(?, ?)"));
				try (PreparedStatement statement = connection.prepareStatement("UPDATE " + this.table
						+ " SET lease_until = " + this.time.nowPlusMillis() + " WHERE state = '" + this.workingState
						+ "' AND id IN (" + Sql.placeholders(chunk.size()) + ") AND (id, fence) IN (" + pairs + ")")) {
					statement.setLong(1, leaseMillis);
					int index = 2;
					for (Map.Entry<Long, Long> claim : chunk) {
						statement.setLong(index++, claim.getKey());
					}
					for (Map.Entry<Long, Long> claim : chunk) {
						statement.setLong(index++, claim.getKey());
						statement.setLong(index++, claim.getValue());
					}
					renewed += statement.executeUpdate();
				}
			}
			return renewed;
		});
	}

	/**
	 * The current fences of rows. A claim is still held exactly when its row carries the claim's
	 * fence: every reclaim and recovery bumps it, while the holder's own completion keeps it (so a
	 * row its holder just completed is not mistaken for a lost one).
	 * @param dataSource where to borrow the connection
	 * @param ids the rows
	 * @return fence by id, for the rows that exist
	 */
	public Map<Long, Long> fences(DataSource dataSource, Collection<Long> ids) {
		List<Long> all = new ArrayList<>(ids);
		return Sql.inTransaction(dataSource, "read fences of " + this.table, (connection) -> {
			Map<Long, Long> fences = new HashMap<>();
			for (int from = 0; from < all.size(); from += CHUNK) {
				List<Long> chunk = all.subList(from, Math.min(all.size(), from + CHUNK));
				try (PreparedStatement statement = connection.prepareStatement("SELECT id, fence FROM " + this.table
						+ " WHERE id IN (" + Sql.placeholders(chunk.size()) + ")")) {
					int index = 1;
					for (Long id : chunk) {
						statement.setLong(index++, id);
					}
					try (ResultSet result = statement.executeQuery()) {
						while (result.next()) {
							fences.put(result.getLong(1), result.getLong(2));
						}
					}
				}
			}
			return fences;
		});
	}

	/**
	 * The PostgreSQL claim statement, for documentation and tests.
	 * @return the SQL
	 */
	public String claimSql() {
		return this.claimSql;
	}

}
