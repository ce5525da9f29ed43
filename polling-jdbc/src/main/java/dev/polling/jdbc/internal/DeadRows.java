package dev.polling.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import dev.polling.jdbc.BulkRetry;

/**
 * The operator's count and bulk retry of the DEAD rows of one group (a queue's messages, a
 * destination's deliveries): the count, and the retry that locks the group's DEAD rows, counts them
 * and retries them only if that is the count the operator confirmed, in chunks, in one transaction.
 */
public final class DeadRows {

	/** Rows per retry statement. */
	static final int CHUNK = 500;

	private final DataSource dataSource;

	private final String table;

	private final String groupColumn;

	private final String noun;

	/**
	 * @param dataSource the data source
	 * @param table the table
	 * @param groupColumn the column naming the group ({@code queue}, {@code destination})
	 * @param noun what the rows are, in messages ("dead messages of queue", "dead deliveries to")
	 */
	public DeadRows(DataSource dataSource, String table, String groupColumn, String noun) {
		this.dataSource = dataSource;
		this.table = table;
		this.groupColumn = groupColumn;
		this.noun = noun;
	}

	/** Retries locked rows of the group; answers how many it changed. */
	@FunctionalInterface
	public interface Retry {

		int retry(Connection connection, List<Long> ids) throws SQLException;

	}

	/**
	 * The number of DEAD rows of a group.
	 * @param group the group
	 * @return the count
	 */
	public long count(String group) {
		return Sql.inTransaction(this.dataSource, "count the " + this.noun + " '" + group + "' in " + this.table, (connection) -> {
			try (PreparedStatement statement = connection.prepareStatement("SELECT COUNT(*) FROM " + this.table + " WHERE "
					+ this.groupColumn + " = ? AND state = 'DEAD'")) {
				statement.setString(1, group);
				try (ResultSet result = statement.executeQuery()) {
					result.next();
					return result.getLong(1);
				}
			}
		});
	}

	/**
	 * Retries every DEAD row of a group if their number is the confirmed one; else changes nothing.
	 * @param group the group
	 * @param confirmedCount the count the operator confirmed, 0 or more
	 * @param what how the caller names its count method in errors ("countDead(queue)")
	 * @param retry the retry of a chunk of locked ids
	 * @return what was done
	 */
	public BulkRetry retryAll(String group, long confirmedCount, String what, Retry retry) {
		if (confirmedCount < 0) {
			throw new IllegalArgumentException("confirmedCount must be 0 or more but was " + confirmedCount + ": pass the count of "
					+ what + " the operator confirmed");
		}
		return Sql.inTransaction(this.dataSource, "retry the " + this.noun + " '" + group + "' in " + this.table, (connection) -> {
			List<Long> ids = new ArrayList<>();
			try (PreparedStatement statement = connection.prepareStatement("SELECT id FROM " + this.table + " WHERE "
					+ this.groupColumn + " = ? AND state = 'DEAD' ORDER BY id FOR UPDATE")) {
				statement.setString(1, group);
				try (ResultSet rows = statement.executeQuery()) {
					while (rows.next()) {
						ids.add(rows.getLong(1));
					}
				}
			}
			if (ids.size() != confirmedCount) {
				return new BulkRetry(confirmedCount, ids.size(), 0);
			}
			long retried = 0;
			for (int from = 0; from < ids.size(); from += CHUNK) {
				retried += retry.retry(connection, ids.subList(from, Math.min(ids.size(), from + CHUNK)));
			}
			if (retried != ids.size()) {
				// cannot happen while the rows are locked; never commit a different set
				throw new IllegalStateException("Retried " + retried + " of the " + ids.size() + " locked " + this.noun + " '" + group
						+ "' in " + this.table + "; rolled back");
			}
			return new BulkRetry(confirmedCount, ids.size(), retried);
		});
	}

	/**
	 * Binds ids to a statement's parameters from the first on.
	 * @param statement the statement
	 * @param ids the ids
	 * @throws SQLException if a parameter cannot be set
	 */
	public static void bind(PreparedStatement statement, List<Long> ids) throws SQLException {
		for (int i = 0; i < ids.size(); i++) {
			statement.setLong(i + 1, ids.get(i));
		}
	}

	/**
	 * {@code ?, ?, ...} for an {@code IN} list.
	 * @param count how many
	 * @return the placeholders
	 */
	public static String placeholders(int count) {
		return String.join(", ", java.util.Collections.nCopies(count, "?"));
	}

}
