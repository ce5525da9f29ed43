package dev.polling.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serialises the migrators of all instances sharing a database and table prefix, taken only when a
 * migration is needed. PostgreSQL: a session advisory lock on the migrating connection; MariaDB:
 * {@code GET_LOCK} on it; H2 (no named locks): a row of the version table locked by a second
 * connection that stays in its transaction while the first one migrates.
 */
abstract class MigrationLock implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(MigrationLock.class);

	/** The first key of PostgreSQL's two-key advisory lock: "poll" in ASCII. */
	private static final int ADVISORY_NAMESPACE = 0x706F6C6C;

	/** How long MariaDB waits for another instance's migration, in seconds. */
	private static final int MARIADB_WAIT_SECONDS = 600;

	/** How often H2 tries the lock row again after its lock timeout (LOCK_TIMEOUT, 1 s by default). */
	private static final int H2_ATTEMPTS = 600;

	/**
	 * Takes the lock, waiting for another instance's migration to end.
	 * @param dataSource for H2's second connection
	 * @param connection the migrating connection, in auto-commit mode
	 * @param dialect the dialect
	 * @param tables the table names: the prefix names the lock
	 * @param versionTableDdl creates the version table if missing (H2 locks a row in it)
	 * @return the lock, to be closed when the migration is done
	 * @throws SQLException if the database fails or the wait ends
	 */
	static MigrationLock acquire(DataSource dataSource, Connection connection, Dialect dialect, TableNames tables,
			String versionTableDdl) throws SQLException {
		return switch (dialect) {
			case POSTGRESQL -> advisory(connection, tables);
			case MARIADB -> named(connection, tables);
			case H2 -> lockRow(dataSource, tables, versionTableDdl);
		};
	}

	@Override
	public abstract void close() throws SQLException;

	private static MigrationLock advisory(Connection connection, TableNames tables) throws SQLException {
		int key = ("polling-schema:" + tables.prefix()).hashCode();
		try (PreparedStatement statement = connection.prepareStatement("SELECT pg_advisory_lock(?, ?)")) {
			statement.setInt(1, ADVISORY_NAMESPACE);
			statement.setInt(2, key);
			statement.execute();
		}
		return new MigrationLock() {
			@Override
			public void close() throws SQLException {
				try (PreparedStatement statement = connection.prepareStatement("SELECT pg_advisory_unlock(?, ?)")) {
					statement.setInt(1, ADVISORY_NAMESPACE);
					statement.setInt(2, key);
					statement.execute();
				}
			}
		};
	}

	private static MigrationLock named(Connection connection, TableNames tables) throws SQLException {
		String name = "polling_schema:" + tables.prefix();
		try (PreparedStatement statement = connection.prepareStatement("SELECT GET_LOCK(?, ?)")) {
			statement.setString(1, name);
			statement.setInt(2, MARIADB_WAIT_SECONDS);
			try (ResultSet result = statement.executeQuery()) {
				if (!result.next() || result.getInt(1) != 1) {
					throw new SQLException("Another instance has been migrating polling's tables for more than "
							+ MARIADB_WAIT_SECONDS + " s (GET_LOCK('" + name + "') did not succeed)");
				}
			}
		}
		return new MigrationLock() {
			@Override
			public void close() throws SQLException {
				try (PreparedStatement statement = connection.prepareStatement("SELECT RELEASE_LOCK(?)")) {
					statement.setString(1, name);
					statement.execute();
				}
			}
		};
	}

	private static MigrationLock lockRow(DataSource dataSource, TableNames tables, String versionTableDdl)
			throws SQLException {
		Connection holder = dataSource.getConnection();
		try {
			holder.setAutoCommit(true);
			try (Statement statement = holder.createStatement()) {
				statement.execute(versionTableDdl);
			}
			insertLockRow(holder, tables);
			holder.setAutoCommit(false);
			lockTheRow(holder, tables);
		}
		catch (SQLException | RuntimeException ex) {
			holder.close();
			throw ex;
		}
		return new MigrationLock() {
			@Override
			public void close() throws SQLException {
				try (holder) {
					holder.rollback();
				}
			}
		};
	}

	private static void insertLockRow(Connection holder, TableNames tables) throws SQLException {
		try (PreparedStatement statement = holder.prepareStatement("INSERT INTO " + tables.schemaVersion()
				+ " (version, description) SELECT 0, 'lock row of the migrators' WHERE NOT EXISTS (SELECT 1 FROM "
				+ tables.schemaVersion() + " WHERE version = 0)")) {
			statement.executeUpdate();
		}
		catch (SQLException ex) {
			if (!Dialect.isDuplicateKey(ex)) { // another migrator inserted it first
				throw ex;
			}
		}
	}

	private static void lockTheRow(Connection holder, TableNames tables) throws SQLException {
		String sql = "SELECT version FROM " + tables.schemaVersion() + " WHERE version = 0 FOR UPDATE";
		for (int attempt = 1;; attempt++) {
			try (PreparedStatement statement = holder.prepareStatement(sql);
					ResultSet result = statement.executeQuery()) {
				return;
			}
			catch (SQLException ex) {
				// H2's lock timeout (error 50200): another instance is migrating
				if (ex.getErrorCode() != 50200 || attempt >= H2_ATTEMPTS) {
					throw ex;
				}
				holder.rollback();
				logger.debug("Waiting for another instance migrating polling's tables", ex);
			}
		}
	}

}
