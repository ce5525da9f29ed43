package dev.polling.boot.autoconfigure.properties;

import java.time.Duration;
import java.time.temporal.ChronoUnit;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.boot.convert.DurationUnit;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

import dev.polling.jdbc.TableNames;

/**
 * Configuration of polling's JDBC parts, under {@code polling.jdbc}: the schema, the inbox, the
 * work queue and the delivery guard (which share {@link JdbcPartProperties}' shape) and the
 * scheduled jobs. A duration written as a plain number means seconds, as everywhere under
 * {@code polling.*}. How long stopping waits is {@code polling.shutdown.timeout}; the failover
 * period of database-coordinated clusters is {@code polling.coordination.failover-period}.
 */
@ConfigurationProperties("polling.jdbc")
public class PollingJdbcProperties implements Validator {

	@Override
	public boolean supports(Class<?> type) {
		return PollingJdbcProperties.class.isAssignableFrom(type);
	}

	/**
	 * Checks the bound values ({@link PollingJdbcPropertiesValidator}); Spring Boot calls this at
	 * bind time and fails the start with every mistake, naming the key, the value and the fix.
	 */
	@Override
	public void validate(Object target, Errors errors) {
		new PollingJdbcPropertiesValidator(errors).validate((PollingJdbcProperties) target);
	}

	/**
	 * When to apply polling's versioned migrations at startup (dev/polling/jdbc/migration/<dialect>,
	 * one read when the tables are current): "embedded" only for embedded databases such as H2 in
	 * memory, "always", or "never" (run them yourself, e.g. with Flyway or Liquibase).
	 */
	private DatabaseInitializationMode initializeSchema = DatabaseInitializationMode.EMBEDDED;

	/**
	 * Prefix of polling's table names ("polling_" gives "polling_inbox"). At most 30 letters,
	 * digits or underscores, starting with a letter or underscore.
	 */
	private String tablePrefix = "polling_";

	private final Inbox inbox = new Inbox();

	private final Queue queue = new Queue();

	private final Delivery delivery = new Delivery();

	private final Jobs jobs = new Jobs();

	private final Metrics metrics = new Metrics();

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
		this.tablePrefix = tablePrefix;
	}

	public Inbox getInbox() {
		return this.inbox;
	}

	public Queue getQueue() {
		return this.queue;
	}

	public Delivery getDelivery() {
		return this.delivery;
	}

	public Jobs getJobs() {
		return this.jobs;
	}

	public Metrics getMetrics() {
		return this.metrics;
	}

	/**
	 * The table names for the configured prefix.
	 * @return the table names
	 */
	public TableNames tableNames() {
		return new TableNames(this.tablePrefix);
	}

	/** The inbox: message keys remembered so a message is processed once. */
	public static class Inbox {

		/**
		 * Whether to provide the Inbox bean (off unless switched on).
		 */
		private boolean enabled;

		/**
		 * How many entries one purge statement deletes.
		 */
		private int purgeBatchSize = 1000;

		/**
		 * How long received keys are remembered (retention.period, 30d). Keep it far longer than any
		 * source may deliver the same message again: a purged key counts as new.
		 */
		@NestedConfigurationProperty
		private final JdbcPartProperties.Retention retention = new JdbcPartProperties.Retention();

		public Inbox() {
			this.retention.setPeriod(Duration.ofDays(30));
		}

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public int getPurgeBatchSize() {
			return this.purgeBatchSize;
		}

		public void setPurgeBatchSize(int purgeBatchSize) {
			this.purgeBatchSize = purgeBatchSize;
		}

		public JdbcPartProperties.Retention getRetention() {
			return this.retention;
		}

	}

	/** The work queue: provides the WorkQueue bean and runs the workers for QueueSubscription beans. */
	public static class Queue extends JdbcPartProperties {

		public Queue() {
			super(Duration.ofSeconds(30), 4, Duration.ofMillis(500));
		}

	}

	/** The delivery guard: provides the DeliveryGuard bean and delivers to DeliveryDestination beans. */
	public static class Delivery extends JdbcPartProperties {

		/**
		 * How often expired sends are recovered (IN_DOUBT, or re-sent for idempotent destinations).
		 * A number without unit means seconds.
		 */
		@DurationUnit(ChronoUnit.SECONDS)
		private Duration recoverInterval = Duration.ofSeconds(30);

		public Delivery() {
			super(Duration.ofMinutes(2), 1, Duration.ofSeconds(1));
		}

		public Duration getRecoverInterval() {
			return this.recoverInterval;
		}

		public void setRecoverInterval(Duration recoverInterval) {
			this.recoverInterval = recoverInterval;
		}

	}

	/** Scheduled jobs ({@link dev.polling.jdbc.jobs.JobScheduler}). */
	public static class Jobs {

		/**
		 * Whether to provide the JobScheduler and dispatch due jobs into the work queue (needs the
		 * queue part; off unless switched on).
		 */
		private boolean enabled;

		/**
		 * Cluster whose holder dispatches due jobs (one of polling.clusters). Without it, one
		 * instance dispatches: the holder of the row "polling.jobs" in the coordination table.
		 */
		private @Nullable String cluster;

		/**
		 * How long a dispatcher that stopped keeps the role "polling.jobs" before another instance
		 * takes over (without polling.jdbc.jobs.cluster). At least 10s. A number without unit
		 * means seconds.
		 */
		@DurationUnit(ChronoUnit.SECONDS)
		private Duration failoverPeriod = Duration.ofSeconds(10);

		/**
		 * Time between dispatch rounds. A number without unit means seconds.
		 */
		@DurationUnit(ChronoUnit.SECONDS)
		private Duration dispatchInterval = Duration.ofSeconds(1);

		/**
		 * Jobs moved into the work queue per transaction.
		 */
		private int batchSize = 1000;

		/**
		 * How long dispatched and cancelled jobs are kept (retention.period, 7d), and how often
		 * each instance deletes older ones.
		 */
		@NestedConfigurationProperty
		private final JdbcPartProperties.Retention retention = new JdbcPartProperties.Retention();

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public @Nullable String getCluster() {
			return this.cluster;
		}

		public void setCluster(@Nullable String cluster) {
			this.cluster = cluster;
		}

		public Duration getFailoverPeriod() {
			return this.failoverPeriod;
		}

		public void setFailoverPeriod(Duration failoverPeriod) {
			this.failoverPeriod = failoverPeriod;
		}

		public Duration getDispatchInterval() {
			return this.dispatchInterval;
		}

		public void setDispatchInterval(Duration dispatchInterval) {
			this.dispatchInterval = dispatchInterval;
		}

		public int getBatchSize() {
			return this.batchSize;
		}

		public void setBatchSize(int batchSize) {
			this.batchSize = batchSize;
		}

		public JdbcPartProperties.Retention getRetention() {
			return this.retention;
		}

	}

	/** Meter settings of the database parts. */
	public static class Metrics {

		/**
		 * How often the queue and delivery gauges are read from the database (one statement per
		 * table), only when the application has a meter registry; 0 disables it. A number without
		 * unit means seconds.
		 */
		@DurationUnit(ChronoUnit.SECONDS)
		private Duration refreshInterval = Duration.ofSeconds(15);

		public Duration getRefreshInterval() {
			return this.refreshInterval;
		}

		public void setRefreshInterval(Duration refreshInterval) {
			this.refreshInterval = refreshInterval;
		}

	}

}
