package dev.polling.jdbc.internal;

import dev.polling.jdbc.DatabaseTime;
import dev.polling.jdbc.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Claims, lease renewals and ownership checks on a table of leased rows (the work queue and the
 * delivery guard share the columns {@code id, state, attempts, fence, owner, available_at,
 * lease_until}). A claim moves ready rows ({@code readyState}, or {@code retryState} once
 * {@code available_at} has passed) to {@code workingState}, sets the owner and a lease in database
 * time and bumps the fence, in one short transaction (attempts are counted when one fails, not
 * here, so that an instance that crashes while holding a row does not use up its attempts). Every
 * ready row is claimable: rows waiting behind their business key are in a state of their own (the
 * queue's BLOCKED), so a claim never reads them and its cost does not grow with them.
 * <ul>
 * <li>PostgreSQL: one {@code UPDATE ... WHERE id = ANY(ARRAY(SELECT ... ORDER BY available_at, id
 * LIMIT n FOR UPDATE SKIP LOCKED)) RETURNING ...}, in due order along the partial index
 * {@code (group, available_at, id) WHERE state IN (ready, retry)}, which holds only claimable rows
 * (ordering by id alone lets the planner walk the primary key through every finished row). The
 * locking pick is an {@code ARRAY(...)}, which PostgreSQL runs exactly once; with
 * {@code id IN (SELECT ...)} a planner working from statistics older than a bulk enqueue chose a
 * nested-loop semi join that ran the pick again for every ready row: one claim of 10 took 257 s and
 * claimed all 20,000 ready rows ({@code PostgresStaleStatisticsClaimTest}). The update then
 * finds the picked rows by primary key and by nothing else: a second state test there (the pick
 * already locked them in a ready state) let such a planner read them through the ready index,
 * i.e. every ready row per claim, 20,000 for a claim of 10 (same test).</li>
 * <li>MariaDB and H2: locking reads of due retries, then of rows never tried, each in id order
 * along the index {@code (group, state, id)} with {@code FOR UPDATE SKIP LOCKED}, an
 * {@code UPDATE} by id and a read of the claimed rows.</li>
 * </ul>
 */
public final class LeasedRows {

	private static final int CHUNK = 500;

	/** For the rest of the transaction: plans that avoid sequential scans ({@link #lock}). */
	public static final String INDEXES_ONLY = "SET LOCAL enable_seqscan = off";

	private final Dialect dialect;

	private final String table;

	private final String workingState;

	private final String claimSql;

	/** PostgreSQL: the ready rows a claim would take, locked and read, not updated ({@link #lock}). */
	private final String lockReadySql;

	private final String[] lockSql;

	private final String columns;

	private final DatabaseTime time;

	/**
	 * Describes the table.
	 * @param dialect the dialect
	 * @param table the table name
	 * @param groupColumn the column claims are restricted to (queue name, destination)
	 * @param readyState the state of rows never tried
	 * @param retryState the state of rows waiting for a retry at {@code available_at}
	 * @param workingState the state of claimed rows
	 * @param columns the columns a claim returns, comma-separated
	 */
	public LeasedRows(Dialect dialect, String table, String groupColumn, String readyState, String retryState,
			String workingState, String columns) {
		this.dialect = dialect;
		this.table = table;
		this.workingState = workingState;
		this.columns = columns;
		this.time = new DatabaseTime(dialect);
		String readyIn = "('" + readyState + "', '" + retryState + "')";
		String now = this.time.now();
		String set = "state = '" + workingState + "', owner = ?, fence = fence + 1, lease_until = "
				+ this.time.nowPlusMillis();
		this.claimSql = "UPDATE " + table + " SET " + set + " WHERE id = ANY(ARRAY(SELECT c.id FROM " + table + " c WHERE c."
				+ groupColumn + " = ? AND c.state IN " + readyIn + " AND c.available_at <= " + now
				+ " ORDER BY c.available_at, c.id LIMIT ? FOR UPDATE SKIP LOCKED)) RETURNING "
				+ columns;
		this.lockReadySql = "SELECT " + columns + " FROM " + table + " WHERE " + groupColumn + " = ? AND state IN " + readyIn
				+ " AND available_at <= " + now + " ORDER BY available_at, id LIMIT ? FOR UPDATE SKIP LOCKED";
		String limit = DialectSql.limit(dialect, "?");
		// H2 reads the index in order (and stops at the limit) only when ORDER BY names all its columns;
		// MariaDB does so with ORDER BY id alone and falls back to a filesort with the longer form
		String order = (dialect == Dialect.H2) ? " ORDER BY " + groupColumn + ", state, id" : " ORDER BY id";
		// due retries first (they waited their backoff), then rows never tried, each in id order
		this.lockSql = new String[] {
				"SELECT id FROM " + table + " WHERE " + groupColumn + " = ? AND state = '" + retryState
						+ "' AND available_at <= " + now + order + limit + " FOR UPDATE SKIP LOCKED",
				"SELECT id FROM " + table + " WHERE " + groupColumn + " = ? AND state = '" + readyState + "'" + order
						+ limit + " FOR UPDATE SKIP LOCKED" };
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
	 * Claims up to {@code limit} ready rows of a group in a transaction of its own (on PostgreSQL with
	 * its own driver at READ COMMITTED: one auto-committed statement).
	 * @param <T> the row type
	 * @param dataSource where to borrow the connection
	 * @param group the group (queue name, destination)
	 * @param owner the claiming owner
	 * @param leaseMillis the lease
	 * @param limit the most rows to claim
	 * @param mapper reads a claimed row
	 * @return the claimed rows (in id order on MariaDB and H2, in due order on PostgreSQL)
	 */
	public <T> List<T> claim(DataSource dataSource, String group, String owner, long leaseMillis, int limit,
			RowMapper<T> mapper) {
		String what = "claim rows of " + this.table + " ('" + group + "')";
		if (this.dialect == Dialect.POSTGRESQL) {
			// one statement: where it commits by itself at READ COMMITTED, no transaction around it (one
			// round trip instead of two)
			@Nullable List<T> claimed = Sql.inOneStatement(dataSource, what,
					(connection) -> Sql.runsStatementsOfOneExecutionAsOneTransaction(connection)
							? claimInOneStatement(connection, group, owner, leaseMillis, limit, mapper) : null);
			if (claimed != null) {
				return claimed;
			}
		}
		return Sql.inTransaction(dataSource, what, (connection) -> claim(connection, group, owner, leaseMillis, limit, mapper));
	}

	/**
	 * Claims up to {@code limit} ready rows of a group on a connection, in its current transaction.
	 * @param <T> the row type
	 * @param connection the connection, in a transaction
	 * @param group the group
	 * @param owner the claiming owner
	 * @param leaseMillis the lease
	 * @param limit the most rows to claim
	 * @param mapper reads a claimed row
	 * @return the claimed rows
	 * @throws SQLException on failure
	 */
	public <T> List<T> claim(Connection connection, String group, String owner, long leaseMillis, int limit,
			RowMapper<T> mapper) throws SQLException {
		return (this.dialect == Dialect.POSTGRESQL) ? claimInOneStatement(connection, group, owner, leaseMillis, limit, mapper)
				: claimInSteps(connection, group, owner, leaseMillis, limit, mapper);
	}

	private <T> List<T> claimInOneStatement(Connection connection, String group, String owner, long leaseMillis,
			int limit, RowMapper<T> mapper) throws SQLException {
		List<T> claimed = new ArrayList<>(limit);
		// planned per execution even in a transaction that lets its other statements use generic plans:
		// a generic claim plan made on a fresh table updates the picked rows through a sequential scan
		try (Sql.Planning planning = Sql.planForActualParameters(connection);
				PreparedStatement statement = connection.prepareStatement(this.claimSql)) {
			bindClaim(statement, 0, group, owner, leaseMillis, limit);
			try (ResultSet result = statement.executeQuery()) {
				readClaimed(result, mapper, claimed);
			}
		}
		return claimed;
	}

	/** Binds the claim statement's parameters, after {@code before} parameters of other statements. */
	private static void bindClaim(PreparedStatement statement, int before, String group, String owner, long leaseMillis,
			int limit) throws SQLException {
		statement.setString(before + 1, owner);
		statement.setLong(before + 2, leaseMillis);
		statement.setString(before + 3, group);
		statement.setInt(before + 4, limit);
	}

	private static <T> void readClaimed(ResultSet result, RowMapper<T> mapper, List<T> claimed) throws SQLException {
		while (result.next()) {
			claimed.add(mapper.map(result));
		}
	}

	/**
	 * Binds the parameters of a write that goes to the server together with a claim.
	 */
	@FunctionalInterface
	public interface Binder {

		/**
		 * Binds the write's parameters, from 1.
		 * @param statement the statement
		 * @throws SQLException on failure
		 */
		void bind(PreparedStatement statement) throws SQLException;

	}

	/**
	 * What {@link #writeAndClaim} did.
	 * @param <T> the row type
	 * @param updated the write's update count (the number of rows it returned, for a write with
	 * {@code RETURNING})
	 * @param returned the first column of the rows the write returned, if it returned rows
	 * @param claimed the claimed rows
	 */
	public record WriteAndClaim<T>(int updated, List<Long> returned, List<T> claimed) {
	}

	/**
	 * On PostgreSQL with its own driver, runs a write and then a claim as one execution of two
	 * statements in auto-commit mode: the server receives both in one round trip and runs them as
	 * one implicit transaction, committed once both succeeded (a failure of either rolls back both).
	 * Both are planned per execution. With a limit of 0 the write goes alone (one auto-committed
	 * statement). Answers {@code null} (nothing done) where that does not hold: another database or
	 * driver, the driver's {@code simple} query mode, a connection in a transaction, or a session
	 * isolation level other than READ COMMITTED.
	 * @param <T> the row type
	 * @param connection the connection, in auto-commit mode
	 * @param writeSql the write, a single statement with {@code writeParameters} parameters; with
	 * {@code RETURNING id} its rows' ids are answered
	 * @param writeParameters how many parameters the write has
	 * @param write binds them
	 * @param group the group to claim from
	 * @param owner the claiming owner
	 * @param leaseMillis the lease
	 * @param limit the most rows to claim, 0 for none
	 * @param mapper reads a claimed row
	 * @return what the write and the claim did, or {@code null} when this cannot be done here
	 * @throws SQLException on failure (neither the write nor the claim is then committed)
	 */
	public <T> @Nullable WriteAndClaim<T> writeAndClaim(Connection connection, String writeSql, int writeParameters,
			Binder write, String group, String owner, long leaseMillis, int limit, RowMapper<T> mapper)
			throws SQLException {
		if (this.dialect != Dialect.POSTGRESQL || !Sql.runsStatementsOfOneExecutionAsOneTransaction(connection)) {
			return null;
		}
		List<Long> returned = new ArrayList<>();
		List<T> claimed = new ArrayList<>(limit);
		int updated;
		try (Sql.Planning planning = Sql.planForActualParameters(connection);
				PreparedStatement statement = connection
					.prepareStatement((limit > 0) ? writeSql + "; " + this.claimSql : writeSql)) {
			write.bind(statement);
			if (limit > 0) {
				bindClaim(statement, writeParameters, group, owner, leaseMillis, limit);
			}
			if (statement.execute()) {
				try (ResultSet result = statement.getResultSet()) {
					while (result.next()) {
						returned.add(result.getLong(1));
					}
				}
				updated = returned.size();
			}
			else {
				updated = statement.getUpdateCount();
			}
			if (limit > 0) {
				if (!statement.getMoreResults()) {
					throw new SQLException("The claim sent with a write returned no rows: " + this.claimSql);
				}
				try (ResultSet result = statement.getResultSet()) {
					readClaimed(result, mapper, claimed);
				}
			}
		}
		return new WriteAndClaim<>(updated, returned, claimed);
	}

	private <T> List<T> claimInSteps(Connection connection, String group, String owner, long leaseMillis, int limit,
			RowMapper<T> mapper) throws SQLException {
		List<Long> locked = lockIds(connection, group, limit);
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
		return read(connection, locked, mapper);
	}

	/**
	 * Locks up to {@code limit} ready rows of a group in the connection's transaction, as a claim
	 * would pick them, and reads them without changing them ({@code FOR UPDATE SKIP LOCKED}): they
	 * stay in their ready state, held by the row locks until the transaction ends; other claims and
	 * locks skip them meanwhile, and a rollback (or a lost connection) leaves them ready as they were.
	 * On PostgreSQL the transaction plans without sequential scans from here on ({@link #INDEXES_ONLY}):
	 * its statements may then run on reused generic plans, which can only go through indexes.
	 * @param <T> the row type
	 * @param connection the connection, in a transaction
	 * @param group the group
	 * @param limit the most rows to lock
	 * @param mapper reads a locked row
	 * @return the locked rows (in due order on PostgreSQL, in id order on MariaDB and H2)
	 * @throws SQLException on failure
	 */
	public <T> List<T> lock(Connection connection, String group, int limit, RowMapper<T> mapper) throws SQLException {
		if (this.dialect != Dialect.POSTGRESQL) {
			List<Long> locked = lockIds(connection, group, limit);
			return locked.isEmpty() ? List.of() : read(connection, locked, mapper);
		}
		List<T> rows = new ArrayList<>(limit);
		// Not planned per execution, unlike a claim: the transaction turns sequential scans off first
		// (SET LOCAL, for this transaction alone), so that the plan the server makes once and reuses for
		// this statement, and for the transaction's writes by id, goes through an index whatever the
		// statistics said when it was made (a generic plan made on a nearly empty table would otherwise
		// scan the table, and keep doing so as it grows). With PostgreSQL's own driver the setting goes
		// with the read in one round trip.
		boolean together = PgJdbc.PRESENT && PgJdbc.isPgConnection(connection);
		if (!together) {
			try (Statement statement = connection.createStatement()) {
				statement.execute(INDEXES_ONLY);
			}
		}
		try (PreparedStatement statement = connection.prepareStatement(together ? INDEXES_ONLY + "; " + this.lockReadySql
				: this.lockReadySql)) {
			statement.setString(1, group);
			statement.setInt(2, limit);
			statement.execute();
			while (statement.getResultSet() == null) {
				if (!statement.getMoreResults() && statement.getUpdateCount() == -1) {
					throw new SQLException("The locking read returned no rows: " + this.lockReadySql);
				}
			}
			try (ResultSet result = statement.getResultSet()) {
				readClaimed(result, mapper, rows);
			}
		}
		return rows;
	}

	/** MariaDB and H2: locks the ids of up to {@code limit} ready rows, due retries first; sorted. */
	private List<Long> lockIds(Connection connection, String group, int limit) throws SQLException {
		List<Long> locked = new ArrayList<>(limit);
		for (String sql : this.lockSql) {
			if (locked.size() == limit) {
				break;
			}
			try (PreparedStatement statement = connection.prepareStatement(sql)) {
				statement.setString(1, group);
				statement.setInt(2, limit - locked.size());
				try (ResultSet result = statement.executeQuery()) {
					while (result.next()) {
						locked.add(result.getLong(1));
					}
				}
			}
		}
		locked.sort(null);
		return locked;
	}

	/** Reads the rows of the given ids, in id order. */
	private <T> List<T> read(Connection connection, List<Long> ids, RowMapper<T> mapper) throws SQLException {
		List<T> rows = new ArrayList<>(ids.size());
		try (PreparedStatement statement = connection.prepareStatement("SELECT " + this.columns + " FROM " + this.table
				+ " WHERE id IN (" + Sql.placeholders(ids.size()) + ") ORDER BY id")) {
			int index = 1;
			for (Long id : ids) {
				statement.setLong(index++, id);
			}
			try (ResultSet result = statement.executeQuery()) {
				readClaimed(result, mapper, rows);
			}
		}
		return rows;
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
