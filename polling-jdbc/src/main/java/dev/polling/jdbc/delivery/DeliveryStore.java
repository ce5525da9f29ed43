package dev.polling.jdbc.delivery;

import dev.polling.jdbc.DataAccessFailure;
import dev.polling.jdbc.DatabaseTime;
import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.internal.DialectSql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * The store path of a {@link DeliveryGuard} and its SQL: the insert of an outgoing message as
 * PENDING on the caller's connection, a key stored before answering {@code false} without aborting
 * the caller's transaction.
 */
final class DeliveryStore {

	private final Dialect dialect;

	private final String table;

	private final String insert;

	DeliveryStore(Dialect dialect, String table, DatabaseTime time) {
		this.dialect = dialect;
		this.table = table;
		String sql = "INSERT INTO " + table + " (destination, idempotency_key, payload, state, attempts, "
				+ "max_attempts, fence, available_at, created_at) VALUES (?, ?, ?, 'PENDING', 0, ?, 0, " + time.now()
				+ ", " + time.now() + ")";
		if (dialect == Dialect.POSTGRESQL) {
			sql += " ON CONFLICT (destination, idempotency_key) DO NOTHING";
		}
		this.insert = sql;
	}

	/** Inserts a validated message; see {@link DeliveryGuard#store(Connection, String, String, String)}. */
	boolean store(Connection connection, String destination, String idempotencyKey, String payload, int maxAttempts) {
		try (PreparedStatement statement = connection.prepareStatement(this.insert)) {
			statement.setString(1, destination);
			statement.setString(2, idempotencyKey);
			statement.setString(3, payload);
			statement.setInt(4, maxAttempts);
			return statement.executeUpdate() == 1;
		}
		catch (SQLException ex) {
			if (DialectSql.isDuplicateKeyKeepingTransaction(this.dialect, ex)) {
				return false;
			}
			throw new DataAccessFailure("Could not store an outgoing message for '" + destination + "' (key length "
					+ idempotencyKey.length() + ") in " + this.table, ex);
		}
	}

}
