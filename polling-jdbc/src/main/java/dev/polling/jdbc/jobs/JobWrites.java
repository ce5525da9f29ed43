package dev.polling.jdbc.jobs;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

import dev.polling.jdbc.ConnectionProvider;
import dev.polling.jdbc.DataAccessFailure;
import dev.polling.jdbc.DatabaseTime;
import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.internal.DialectSql;
import dev.polling.jdbc.internal.Sql;

/**
 * The writes of {@link JobScheduler#schedule}, {@code scheduleOnce}, {@code cancel} and
 * {@code reschedule}, on the connection the provider gives (the caller's transaction).
 */
final class JobWrites {

	private final ConnectionProvider connections;

	private final Dialect dialect;

	private final DatabaseTime time;

	private final String table;

	JobWrites(ConnectionProvider connections, Dialect dialect, DatabaseTime time, String table) {
		this.connections = connections;
		this.dialect = dialect;
		this.time = time;
		this.table = table;
	}

	Optional<Long> insert(String queue, String businessId, @Nullable String uniqueKey, String payload, long delayMillis,
			@Nullable Instant dueAt) {
		JobScheduler.validate(queue, businessId, payload);
		String due = (dueAt != null) ? "?" : this.time.nowMinusMillis();
		String sql = "INSERT INTO " + this.table + " (queue, business_id, unique_key, payload, state, due_at, created_at) VALUES (?, ?, ?, ?, 'SCHEDULED', "
				+ due + ", " + this.time.now() + ")";
		if (uniqueKey != null && this.dialect == Dialect.POSTGRESQL) {
			sql += " ON CONFLICT (unique_key) DO NOTHING";
		}
		Connection connection = obtain();
		try (PreparedStatement statement = connection.prepareStatement(sql, Statement.RETURN_GENERATED_KEYS)) {
			statement.setString(1, queue);
			statement.setString(2, businessId);
			statement.setString(3, uniqueKey);
			statement.setString(4, payload);
			if (dueAt != null) {
				bindInstant(statement, 5, dueAt);
			}
			else {
				statement.setLong(5, -delayMillis);
			}
			if (statement.executeUpdate() == 0) {
				return Optional.empty();
			}
			try (ResultSet keys = statement.getGeneratedKeys()) {
				keys.next();
				return Optional.of(keys.getLong(1));
			}
		}
		catch (SQLException ex) {
			if (uniqueKey != null && DialectSql.isDuplicateKey(ex)) {
				// MariaDB and H2 roll back only the failed statement: the caller's transaction goes on
				return Optional.empty();
			}
			throw new DataAccessFailure("Could not schedule a job in " + this.table + " (queue '" + queue + "')", ex);
		}
		finally {
			release(connection);
		}
	}

	private void bindInstant(PreparedStatement statement, int index, Instant instant) throws SQLException {
		if (this.dialect == Dialect.MARIADB) {
			statement.setObject(index, instant.atOffset(ZoneOffset.UTC).toLocalDateTime());
		}
		else {
			statement.setObject(index, OffsetDateTime.ofInstant(instant, ZoneOffset.UTC));
		}
	}

	int update(String sql, Binder binder, String what) {
		Connection connection = obtain();
		try (PreparedStatement statement = connection.prepareStatement(sql)) {
			binder.bind(statement);
			return statement.executeUpdate();
		}
		catch (SQLException ex) {
			throw new DataAccessFailure("Could not " + what + " in " + this.table, ex);
		}
		finally {
			release(connection);
		}
	}

	private Connection obtain() {
		return Sql.obtain(this.connections, this.table);
	}

	private void release(Connection connection) {
		Sql.release(this.connections, connection, this.table);
	}

	@FunctionalInterface
	interface Binder {

		void bind(PreparedStatement statement) throws SQLException;

	}

}
