package dev.polling.boot.autoconfigure.jdbc;

import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.Schema;
import dev.polling.jdbc.TableNames;
import javax.sql.DataSource;
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

	private boolean initialize() {
		if (this.mode == DatabaseInitializationMode.NEVER) {
			return false;
		}
		if (this.mode == DatabaseInitializationMode.EMBEDDED && !EmbeddedDatabaseConnection.isEmbedded(this.dataSource)) {
			logger.debug("Not migrating polling's tables: the database is not embedded and "
					+ "polling.jdbc.initialize-schema is embedded");
			return false;
		}
		Dialect dialect = Dialect.detect(this.dataSource);
		Schema.Outcome outcome = Schema.migrate(this.dataSource, dialect, this.tables);
		logger.debug("Polling's tables are at version {} ({}, prefix '{}')", outcome.toVersion(), dialect.id(),
				this.tables.prefix());
		return true;
	}

}
