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
 * Creates polling's tables at startup per {@code polling.jdbc.initialize-schema}, with the schema
 * script of the detected database (idempotent, safe when several instances start at once).
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
	 * Whether the tables were created (or found in place) at startup.
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
			logger.debug("Not creating polling's tables: the database is not embedded and "
					+ "polling.jdbc.initialize-schema is embedded");
			return false;
		}
		Dialect dialect = Dialect.detect(this.dataSource);
		Schema.migrate(this.dataSource, dialect, this.tables);
		logger.info("Polling's tables are in place ({}, prefix '{}')", dialect.id(), this.tables.prefix());
		return true;
	}

}
