package dev.polling.boot.autoconfigure.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import dev.polling.boot.InvalidPollingConfigurationException;
import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.Schema;
import dev.polling.jdbc.TableNames;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.jdbc.EmbeddedDatabaseConnection;
import org.springframework.boot.sql.init.DatabaseInitializationMode;

/**
 * Brings polling's tables up to date at startup per {@code polling.jdbc.initialize-schema}, with the
 * versioned migrations of polling-jdbc ({@link Schema#migrate}): one read when they are current,
 * the missing versions otherwise, serialised across instances. A database initializer in the sense
 * of Boot's {@code DatabaseInitializerDetector} ({@link PollingJdbcSchemaInitializerDetector}), so
 * beans marked {@code @DependsOnDatabaseInitialization} are created after it.
 */
public final class PollingJdbcSchemaInitializer implements InitializingBean {

	private static final Logger logger = LoggerFactory.getLogger(PollingJdbcSchemaInitializer.class);

	private final DataSource dataSource;

	private final DatabaseInitializationMode mode;

	private final TableNames tables;

	private boolean initialized;

	/**
	 * Creates the initializer.
	 * @param dataSource the data source
	 * @param mode when to initialise
	 * @param tables the table names
	 */
	public PollingJdbcSchemaInitializer(DataSource dataSource, DatabaseInitializationMode mode, TableNames tables) {
		this.dataSource = dataSource;
		this.mode = mode;
		this.tables = tables;
	}

	@Override
	public void afterPropertiesSet() {
		this.initialized = initialize();
	}

	/**
	 * Whether the migrations ran (or found the tables current) at startup.
	 * @return {@code false} if the mode said not to
	 */
	public boolean isInitialized() {
		return this.initialized;
	}

	/**
	 * The data source of polling's tables.
	 * @return the data source
	 */
	public DataSource dataSource() {
		return this.dataSource;
	}

	/**
	 * The names of polling's tables.
	 * @return the names
	 */
	public TableNames tables() {
		return this.tables;
	}

	private boolean initialize() {
		if (this.mode == DatabaseInitializationMode.NEVER) {
			verify();
			return false;
		}
		if (this.mode == DatabaseInitializationMode.EMBEDDED && !EmbeddedDatabaseConnection.isEmbedded(this.dataSource)) {
			logger.debug("Not migrating polling's tables: the database is not embedded and "
					+ "polling.jdbc.initialize-schema is embedded");
			verify();
			return false;
		}
		Dialect dialect = Dialect.detect(this.dataSource);
		Schema.Outcome outcome = Schema.migrate(this.dataSource, dialect, this.tables);
		logger.debug("Polling's tables are at version {} ({}, prefix '{}')", outcome.toVersion(), dialect.id(),
				this.tables.prefix());
		return true;
	}

	/**
	 * When the starter does not migrate, checks that the tables are there and current, and fails
	 * the start naming {@code polling.jdbc.initialize-schema} and the migration tools when not:
	 * without them every database part fails at run time and a cluster coordinated through the
	 * database is never acquired, while the application looks healthy. The version table is read
	 * when it exists (the starter's or {@code Schema.migrate}'s); tables made by Flyway or Liquibase
	 * have none and are checked by what the latest version added. A database that cannot be reached
	 * is left to the run time (outages are reported there), with one warning.
	 */
	private void verify() {
		String mode = this.mode.name().toLowerCase(Locale.ROOT);
		int latest = Schema.latestVersion();
		String problem;
		Dialect dialect = null;
		try (Connection connection = this.dataSource.getConnection()) {
			dialect = Dialect.detect(this.dataSource);
			Integer version = read(connection, "SELECT MAX(version) FROM " + this.tables.schemaVersion());
			if (version != null && version >= latest) {
				return;
			}
			if (version != null) {
				problem = "polling's tables are outdated: " + this.tables.schemaVersion() + " records version " + version
						+ ", this polling needs version " + latest;
			}
			else {
				List<String> missing = new ArrayList<>();
				for (String table : List.of(this.tables.coordination(), this.tables.inbox(), this.tables.queue(),
						this.tables.queueKey(), this.tables.job(), this.tables.delivery())) {
					if (read(connection, "SELECT COUNT(*) FROM " + table + " WHERE 1 = 0") == null) {
						missing.add(table);
					}
				}
				boolean jobCurrent = missing.contains(this.tables.job())
						|| read(connection, "SELECT COUNT(attempts) + COUNT(next_attempt_at) + COUNT(finished_at) FROM "
								+ this.tables.job() + " WHERE 1 = 0") != null;
				if (missing.size() == 6) {
					problem = "polling's tables are missing (" + String.join(", ", missing) + ")";
				}
				else if (!missing.isEmpty() || !jobCurrent) {
					problem = "polling's tables are outdated (" + (missing.isEmpty() ? "" : "missing " + String.join(", ", missing)
							+ (jobCurrent ? "" : "; ")) + (jobCurrent ? "" : this.tables.job() + " lacks the columns of version 2")
							+ "), this polling needs version " + latest;
				}
				else {
					return;
				}
			}
		}
		catch (SQLException | RuntimeException ex) {
			logger.warn("Could not check polling's tables at start ({}); the database parts report it when they use them",
					ex.toString());
			return;
		}
		String folder = (dialect != null) ? dialect.id() : "<database>";
		throw new InvalidPollingConfigurationException("polling.jdbc.initialize-schema", mode, problem
				+ " and polling.jdbc.initialize-schema=" + mode + " does not "
				+ ((this.mode == DatabaseInitializationMode.NEVER) ? "touch the schema"
						: "create or upgrade them on a database that is not embedded")
				+ ": the database parts would fail and a cluster coordinated through the database would never be acquired",
				"set polling.jdbc.initialize-schema=always to let the starter create and upgrade them, or run polling-jdbc's "
						+ "migrations with Flyway (classpath:dev/polling/jdbc/migration/" + folder
						+ ") or Liquibase (dev/polling/jdbc/migration/changelog.xml), see docs/database.md, \"Schema\"");
	}

	/** The first column of the query's first row, or null when a table or column is missing. */
	private static @Nullable Integer read(Connection connection, String sql) throws SQLException {
		try (Statement statement = connection.createStatement(); ResultSet result = statement.executeQuery(sql)) {
			return result.next() ? result.getInt(1) : 0;
		}
		catch (SQLException ex) {
			if (isMissing(ex)) {
				if (!connection.getAutoCommit()) {
					connection.rollback();
				}
				return null;
			}
			throw ex;
		}
	}

	private static boolean isMissing(SQLException ex) {
		// undefined table or column: PostgreSQL 42P01, 42703; MariaDB 42S02, 42S22; H2 42S02, 42S04, 42S22, 42122
		String state = String.valueOf(ex.getSQLState());
		return state.equals("42P01") || state.equals("42703") || state.equals("42S02") || state.equals("42S04")
				|| state.equals("42S22") || state.equals("42122");
	}

}
