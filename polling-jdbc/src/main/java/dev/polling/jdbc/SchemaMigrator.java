package dev.polling.jdbc;

import dev.polling.jdbc.Schema.Migration;
import dev.polling.jdbc.Schema.Outcome;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies the missing versions of {@link Schema#migrations()}; see {@link Schema#migrate}.
 */
final class SchemaMigrator {

	private static final Logger logger = LoggerFactory.getLogger(SchemaMigrator.class);

	/** The version read from a database without a version table. */
	private static final int NO_VERSION_TABLE = -1;

	private final DataSource dataSource;

	private final Dialect dialect;

	private final TableNames tables;

	private final String versionTable;

	SchemaMigrator(DataSource dataSource, Dialect dialect, TableNames tables) {
		this.dataSource = dataSource;
		this.dialect = dialect;
		this.tables = tables;
		this.versionTable = tables.schemaVersion();
	}

	Outcome migrate() {
		int latest = Schema.latestVersion();
		try (Connection connection = this.dataSource.getConnection()) {
			connection.setAutoCommit(true);
			int found = readVersion(connection);
			if (found == latest) {
				logger.debug("Polling's tables are current (version {}, {}, prefix '{}')", found, this.dialect.id(),
						this.tables.prefix());
				return new Outcome(found, found, false);
			}
			refuseNewer(found);
			try (MigrationLock lock = MigrationLock.acquire(this.dataSource, connection, this.dialect, this.tables,
					versionTableDdl())) {
				return migrateLocked(connection);
			}
		}
		catch (SQLException ex) {
			throw new DataAccessFailure("Could not migrate polling's tables (" + this.dialect.id() + ", version table "
					+ this.versionTable + ")", ex);
		}
	}

	private Outcome migrateLocked(Connection connection) throws SQLException {
		try (Statement statement = connection.createStatement()) {
			statement.execute(versionTableDdl());
		}
		int found = Math.max(readVersion(connection), 0);
		refuseNewer(found);
		boolean baseline = found == 0 && tablesExist(connection);
		if (baseline) {
			logger.info("Polling's tables found without {}: upgrading them as the tables of polling 0.1.0",
					this.versionTable);
		}
		int version = found;
		for (Migration migration : Schema.migrations()) {
			if (migration.version() > version) {
				apply(connection, migration);
				version = migration.version();
			}
		}
		if (version != found) {
			logger.info("Polling's tables migrated from version {} to {} ({}, prefix '{}')", found, version,
					this.dialect.id(), this.tables.prefix());
		}
		return new Outcome(found, version, baseline);
	}

	private void refuseNewer(int found) {
		int latest = Schema.latestVersion();
		if (found > latest) {
			throw new IllegalStateException("Polling's tables are at schema version " + found + " (recorded in "
					+ this.versionTable + "), newer than the latest this polling-jdbc knows (" + latest
					+ "): a newer polling version upgraded them. Run that polling version or newer on every instance; "
					+ "this one does not know how to use them.");
		}
	}

	/**
	 * The highest version recorded: one query, a plain read.
	 * @return the version, 0 if the table is empty, {@value #NO_VERSION_TABLE} if it does not exist
	 */
	private int readVersion(Connection connection) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement("SELECT MAX(version) FROM " + this.versionTable);
				ResultSet result = statement.executeQuery()) {
			return result.next() ? result.getInt(1) : 0;
		}
		catch (SQLException ex) {
			if (isMissingTable(ex)) {
				return NO_VERSION_TABLE;
			}
			throw ex;
		}
	}

	private static boolean isMissingTable(SQLException ex) {
		// PostgreSQL 42P01 undefined_table; MariaDB and H2 42S02 base table or view not found; H2 42S04
		// the same in an empty database
		String state = String.valueOf(ex.getSQLState());
		return state.equals("42P01") || state.equals("42S02") || state.equals("42S04");
	}

	private boolean tablesExist(Connection connection) throws SQLException {
		try (PreparedStatement statement = connection
			.prepareStatement("SELECT COUNT(*) FROM " + this.tables.coordination() + " WHERE 1 = 0");
				ResultSet result = statement.executeQuery()) {
			return true;
		}
		catch (SQLException ex) {
			if (isMissingTable(ex)) {
				return false;
			}
			throw ex;
		}
	}

	private String versionTableDdl() {
		String time = (this.dialect == Dialect.MARIADB) ? "DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)"
				: "TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT CURRENT_TIMESTAMP";
		String options = (this.dialect == Dialect.MARIADB)
				? " ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin" : "";
		return "CREATE TABLE IF NOT EXISTS " + this.versionTable + " (version INTEGER NOT NULL, "
				+ "description VARCHAR(200) NOT NULL, installed_at " + time + ", CONSTRAINT " + this.versionTable
				+ "_pk PRIMARY KEY (version))" + options;
	}

	/** The most times a migration runs when it lost a deadlock or waited too long for a lock. */
	private static final int ATTEMPTS = 10;

	/**
	 * Applies one migration. Its data migrations run while other instances work on the same tables
	 * (a rolling upgrade), so a statement may lose a deadlock to them (seen on MariaDB): the
	 * migration runs again, which its idempotent statements allow (on PostgreSQL after the rollback
	 * of the whole script).
	 */
	private void apply(Connection connection, Migration migration) throws SQLException {
		long pauseMillis = 50;
		for (int attempt = 1;; attempt++) {
			try {
				applyOnce(connection, migration);
				return;
			}
			catch (SQLException ex) {
				if (attempt >= ATTEMPTS || !Failures.isTransient(ex)
						|| Failures.isConnectionFailure(ex)) {
					throw ex;
				}
				logger.info("Polling's schema version {} lost a lock to the instances at work ({}); running it again in {} ms",
						migration.version(), ex.getMessage(), pauseMillis);
				try {
					Thread.sleep(pauseMillis);
				}
				catch (InterruptedException interrupted) {
					Thread.currentThread().interrupt();
					throw ex;
				}
				pauseMillis = Math.min(pauseMillis * 2, 2000);
			}
		}
	}

	private void applyOnce(Connection connection, Migration migration) throws SQLException {
		String resource = migration.resource(this.dialect);
		logger.info("Applying polling's schema version {} ({})", migration.version(), resource);
		// PostgreSQL: the script and its record commit together. MariaDB and H2 commit each DDL
		// statement: a script cut off half-way runs again, which its idempotent statements allow.
		boolean transactional = this.dialect == Dialect.POSTGRESQL;
		connection.setAutoCommit(!transactional);
		try {
			try (Statement statement = connection.createStatement()) {
				for (String sql : Schema.statements(this.dialect, migration, this.tables)) {
					execute(statement, sql, resource);
				}
			}
			try (PreparedStatement record = connection
				.prepareStatement("INSERT INTO " + this.versionTable + " (version, description) VALUES (?, ?)")) {
				record.setInt(1, migration.version());
				record.setString(2, migration.description());
				record.executeUpdate();
			}
			if (transactional) {
				connection.commit();
			}
		}
		catch (SQLException | RuntimeException ex) {
			if (transactional) {
				connection.rollback();
			}
			throw ex;
		}
		finally {
			connection.setAutoCommit(true);
		}
	}

	private static void execute(Statement statement, String sql, String resource) throws SQLException {
		try {
			statement.execute(sql);
		}
		catch (SQLException ex) {
			throw new SQLException("Statement of " + resource + " failed: " + sql + ": " + ex.getMessage(),
					ex.getSQLState(), ex.getErrorCode(), ex);
		}
	}

}
