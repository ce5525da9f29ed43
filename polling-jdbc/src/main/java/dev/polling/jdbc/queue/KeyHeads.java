package dev.polling.jdbc.queue;

import dev.polling.jdbc.DatabaseTime;
import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.internal.DialectSql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Per-key ordering of the work queue: only the oldest open message of a business key (its
 * <em>head</em>) is claimable; the younger ones wait in state BLOCKED, outside every index a claim
 * reads, so that claims cost the same however many messages wait behind their keys.
 * <p>
 * The key table holds one row per queue and key with open messages, counting them
 * ({@code open_count}). Every change of a key's open messages locks that row first, in the
 * changing transaction: an enqueue adds to the count (the message is the head when the count was
 * zero, else BLOCKED); a head that leaves (DONE, or a dead message discarded) takes one off and
 * makes the oldest BLOCKED message of the key NEW, or deletes the row at zero. Because both lock the
 * same row, a message enqueued while its key's head completes is either counted before the head
 * leaves (and made NEW by it) or finds the row gone (and is the head itself): none is left behind.
 */
final class KeyHeads {

	private final Dialect dialect;

	private final String table;

	private final String keyTable;

	private final DatabaseTime time;

	KeyHeads(Dialect dialect, String table, String keyTable) {
		this.dialect = dialect;
		this.table = table;
		this.keyTable = keyTable;
		this.time = new DatabaseTime(dialect);
	}

	/**
	 * Counts {@code count} new open messages of a key and locks its row until the transaction ends.
	 * @return how many open messages the key had before
	 */
	long join(Connection connection, String queue, String key, int count) throws SQLException {
		switch (this.dialect) {
			case POSTGRESQL -> {
				try (PreparedStatement statement = keyRow(connection, "INSERT INTO " + this.keyTable
						+ " AS k (queue, business_key, open_count) VALUES (?, ?, ?) ON CONFLICT (queue, business_key) "
						+ "DO UPDATE SET open_count = k.open_count + EXCLUDED.open_count RETURNING open_count", queue, key,
						count)) {
					try (ResultSet result = statement.executeQuery()) {
						result.next();
						return result.getLong(1) - count;
					}
				}
			}
			case MARIADB -> {
				try (PreparedStatement statement = keyRow(connection, "INSERT INTO " + this.keyTable
						+ " (queue, business_key, open_count) VALUES (?, ?, ?) ON DUPLICATE KEY UPDATE open_count = "
						+ "open_count + VALUES(open_count)", queue, key, count)) {
					statement.executeUpdate();
				}
				return count(connection, queue, key) - count;
			}
			default -> {
				// H2: a unique violation fails the statement only, so update, else insert, else update again
				for (int attempt = 0; attempt < 3; attempt++) {
					if (add(connection, queue, key, count) == 1) {
						return count(connection, queue, key) - count;
					}
					try (PreparedStatement statement = keyRow(connection, "INSERT INTO " + this.keyTable
							+ " (queue, business_key, open_count) VALUES (?, ?, ?)", queue, key, count)) {
						statement.executeUpdate();
						return 0;
					}
					catch (SQLException ex) {
						if (!DialectSql.isDuplicateKeyKeepingTransaction(this.dialect, ex)) {
							throw ex;
						}
					}
				}
				throw new SQLException("Could not count a message of key '" + key + "' in " + this.keyTable
						+ " (competing inserts)", "40001");
			}
		}
	}

	/**
	 * Prepares an insert (or upsert) of a key's row, its parameters (queue, business key, count) set.
	 */
	private static PreparedStatement keyRow(Connection connection, String sql, String queue, String key, int count)
			throws SQLException {
		PreparedStatement statement = connection.prepareStatement(sql);
		try {
			statement.setString(1, queue);
			statement.setString(2, key);
			statement.setInt(3, count);
			return statement;
		}
		catch (SQLException ex) {
			statement.close();
			throw ex;
		}
	}

	/**
	 * The head of a key left the open messages: one fewer; the oldest BLOCKED message of the key
	 * becomes NEW, or the key's row is deleted when none is left.
	 */
	void leave(Connection connection, String queue, String key) throws SQLException {
		long remaining;
		if (this.dialect == Dialect.POSTGRESQL) {
			try (PreparedStatement statement = connection.prepareStatement("UPDATE " + this.keyTable
					+ " SET open_count = open_count - 1 WHERE queue = ? AND business_key = ? RETURNING open_count")) {
				statement.setString(1, queue);
				statement.setString(2, key);
				try (ResultSet result = statement.executeQuery()) {
					if (!result.next()) {
						return;
					}
					remaining = result.getLong(1);
				}
			}
		}
		else {
			if (add(connection, queue, key, -1) == 0) {
				return;
			}
			remaining = count(connection, queue, key);
		}
		if (remaining <= 0) {
			try (PreparedStatement statement = connection.prepareStatement("DELETE FROM " + this.keyTable
					+ " WHERE queue = ? AND business_key = ? AND open_count <= 0")) {
				statement.setString(1, queue);
				statement.setString(2, key);
				statement.executeUpdate();
			}
			return;
		}
		Long next = null;
		String limit = DialectSql.limit(this.dialect, "1");
		String order = (this.dialect == Dialect.H2) ? " ORDER BY queue, business_key, state, id" : " ORDER BY id";
		// a locking read sees the latest committed rows also in a REPEATABLE READ caller's transaction
		// (MariaDB's default), e.g. a message another transaction enqueued while this one waited for the key
		try (PreparedStatement statement = connection.prepareStatement("SELECT id FROM " + this.table
				+ " WHERE queue = ? AND business_key = ? AND state = 'BLOCKED'" + order + limit + " FOR UPDATE")) {
			statement.setString(1, queue);
			statement.setString(2, key);
			try (ResultSet result = statement.executeQuery()) {
				if (result.next()) {
					next = result.getLong(1);
				}
			}
		}
		if (next != null) {
			try (PreparedStatement statement = connection.prepareStatement("UPDATE " + this.table
					+ " SET state = 'NEW', available_at = " + this.time.now() + " WHERE id = ? AND state = 'BLOCKED'")) {
				statement.setLong(1, next);
				statement.executeUpdate();
			}
		}
	}

	private int add(Connection connection, String queue, String key, int delta) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement("UPDATE " + this.keyTable
				+ " SET open_count = open_count + ? WHERE queue = ? AND business_key = ?")) {
			statement.setInt(1, delta);
			statement.setString(2, queue);
			statement.setString(3, key);
			return statement.executeUpdate();
		}
	}

	private long count(Connection connection, String queue, String key) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement("SELECT open_count FROM " + this.keyTable
				+ " WHERE queue = ? AND business_key = ?")) {
			statement.setString(1, queue);
			statement.setString(2, key);
			try (ResultSet result = statement.executeQuery()) {
				return result.next() ? result.getLong(1) : 0;
			}
		}
	}

}
