package dev.polling.boot.autoconfigure.jdbc;

import dev.polling.jdbc.TableNames;
import java.time.Duration;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.sql.init.DatabaseInitializationMode;

/**
 * Configuration of polling's JDBC parts, under {@code polling.jdbc}.
 */
@ConfigurationProperties("polling.jdbc")
public class PollingJdbcProperties {

	/**
	 * When to create polling's tables at startup from the schema script of the detected database
	 * (dev/polling/jdbc/schema-<dialect>.sql): "embedded" only for embedded databases such as H2
	 * in memory, "always", or "never" (manage the schema yourself, e.g. with Flyway).
	 */
	private DatabaseInitializationMode initializeSchema = DatabaseInitializationMode.EMBEDDED;

	/**
	 * Prefix of polling's table names ("polling_" gives "polling_inbox"). At most 30 letters,
	 * digits or underscores, starting with a letter or underscore.
	 */
	private String tablePrefix = "polling_";

	private final Inbox inbox = new Inbox();

	private final Coordination coordination = new Coordination();

	public Coordination getCoordination() {
		return this.coordination;
	}

	public DatabaseInitializationMode getInitializeSchema() {
		return this.initializeSchema;
	}

	public void setInitializeSchema(DatabaseInitializationMode initializeSchema) {
		this.initializeSchema = initializeSchema;
	}

	public String getTablePrefix() {
		return this.tablePrefix;
	}

	public void setTablePrefix(String tablePrefix) {
		try {
			new TableNames(tablePrefix);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("polling.jdbc.table-prefix: " + ex.getMessage());
		}
		this.tablePrefix = tablePrefix;
	}

	public Inbox getInbox() {
		return this.inbox;
	}

	/**
	 * The table names for the configured prefix.
	 * @return the table names
	 */
	TableNames tableNames() {
		return new TableNames(this.tablePrefix);
	}

	/**
	 * Inbox settings.
	 */
	public static class Inbox {

		/**
		 * Whether to provide the Inbox bean.
		 */
		private boolean enabled = true;

		/**
		 * How long received keys are remembered. Keep it far longer than any source may deliver the
		 * same message again: a purged key counts as new.
		 */
		private Duration retention = Duration.ofDays(30);

		/**
		 * How often each instance deletes entries older than the retention; 0 disables the purge.
		 * Purging on several instances at once is safe.
		 */
		private Duration purgeInterval = Duration.ofHours(1);

		/**
		 * How many entries one purge statement deletes.
		 */
		private int purgeBatchSize = 1000;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public Duration getRetention() {
			return this.retention;
		}

		public void setRetention(Duration retention) {
			if (retention.isNegative() || retention.isZero()) {
				throw new IllegalArgumentException("polling.jdbc.inbox.retention must be positive but was " + retention
						+ ": set how long received keys are remembered, e.g. 30d");
			}
			this.retention = retention;
		}

		public Duration getPurgeInterval() {
			return this.purgeInterval;
		}

		public void setPurgeInterval(Duration purgeInterval) {
			if (purgeInterval.isNegative()) {
				throw new IllegalArgumentException("polling.jdbc.inbox.purge-interval must not be negative but was "
						+ purgeInterval + ": set e.g. 1h, or 0 to disable the purge");
			}
			this.purgeInterval = purgeInterval;
		}

		public int getPurgeBatchSize() {
			return this.purgeBatchSize;
		}

		public void setPurgeBatchSize(int purgeBatchSize) {
			if (purgeBatchSize < 1 || purgeBatchSize > 100_000) {
				throw new IllegalArgumentException("polling.jdbc.inbox.purge-batch-size must be between 1 and 100000 "
						+ "but was " + purgeBatchSize + ": e.g. 1000");
			}
			this.purgeBatchSize = purgeBatchSize;
		}

	}

	/** Settings of clusters coordinated through the database ({@code polling.coordination=jdbc}). */
	public static class Coordination {

		/**
		 * How long a holder that stopped deciding keeps a cluster before another instance takes it
		 * over, in database time. Defaults to each cluster's wait time. Must exceed the longest cycle
		 * plus the timer delay.
		 */
		private @Nullable Duration failoverPeriod;

		public @Nullable Duration getFailoverPeriod() {
			return this.failoverPeriod;
		}

		public void setFailoverPeriod(@Nullable Duration failoverPeriod) {
			this.failoverPeriod = failoverPeriod;
		}

	}

}
