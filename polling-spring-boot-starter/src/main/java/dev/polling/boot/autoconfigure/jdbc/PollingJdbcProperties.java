package dev.polling.boot.autoconfigure.jdbc;

import dev.polling.jdbc.delivery.DeliveryDispatcher;

import dev.polling.jdbc.TableNames;
import java.time.Duration;
import java.time.temporal.ChronoUnit;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.convert.DurationUnit;
import org.springframework.boot.sql.init.DatabaseInitializationMode;

/**
 * Configuration of polling's JDBC parts, under {@code polling.jdbc}. A duration written as a plain
 * number means seconds, as everywhere under {@code polling.*}.
 */
@ConfigurationProperties("polling.jdbc")
public class PollingJdbcProperties {

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

	private final Coordination coordination = new Coordination();

	private final Jobs jobs = new Jobs();

	private final Metrics metrics = new Metrics();

	public Jobs getJobs() {
		return this.jobs;
	}

	public Metrics getMetrics() {
		return this.metrics;
	}

	public Coordination getCoordination() {
		return this.coordination;
	}

	private final Queue queue = new Queue();

	private final Delivery delivery = new Delivery();

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

	public Queue getQueue() {
		return this.queue;
	}

	public Delivery getDelivery() {
		return this.delivery;
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
		 * Whether to provide the Inbox bean (off unless switched on).
		 */
		private boolean enabled;

		/**
		 * How long received keys are remembered. Keep it far longer than any source may deliver the
		 * same message again: a purged key counts as new. A number without unit means seconds.
		 */
		@DurationUnit(ChronoUnit.SECONDS)
		private Duration retention = Duration.ofDays(30);

		/**
		 * How often each instance deletes entries older than the retention; 0 disables the purge.
		 * Purging on several instances at once is safe. A number without unit means seconds.
		 */
		@DurationUnit(ChronoUnit.SECONDS)
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


	/**
	 * Backoff between attempts.
	 */
	public static class Backoff {

		// the owner's key for messages; not a property (no accessors), set by the owner
		private String prefix = "polling.jdbc";

		/**
		 * Wait before the first retry. A number without unit means seconds.
		 */
		@DurationUnit(ChronoUnit.SECONDS)
		private Duration initial = Duration.ofSeconds(1);

		/**
		 * Growth of the wait per attempt (at least 1).
		 */
		private double multiplier = 2.0;

		/**
		 * Longest wait between attempts. A number without unit means seconds.
		 */
		@DurationUnit(ChronoUnit.SECONDS)
		private Duration max = Duration.ofMinutes(5);

		Backoff prefix(String prefix) {
			this.prefix = prefix;
			return this;
		}

		public Duration getInitial() {
			return this.initial;
		}

		public void setInitial(Duration initial) {
			this.initial = positive(this.prefix + ".backoff.initial", initial, "1s");
		}

		public double getMultiplier() {
			return this.multiplier;
		}

		public void setMultiplier(double multiplier) {
			if (!(multiplier >= 1.0) || Double.isInfinite(multiplier)) {
				throw new IllegalArgumentException(this.prefix + ".backoff.multiplier must be at least 1 but was "
						+ multiplier + ": e.g. 2 doubles the wait after every attempt");
			}
			this.multiplier = multiplier;
		}

		public Duration getMax() {
			return this.max;
		}

		public void setMax(Duration max) {
			this.max = positive(this.prefix + ".backoff.max", max, "5m");
		}

		dev.polling.jdbc.Backoff toBackoff() {
			if (this.max.compareTo(this.initial) < 0) {
				throw new IllegalArgumentException(this.prefix + ".backoff.max (" + this.max + ") is shorter than "
						+ this.prefix + ".backoff.initial (" + this.initial + "): set it to at least the initial wait");
			}
			return new dev.polling.jdbc.Backoff(this.initial, this.multiplier, this.max);
		}

	}

	/**
	 * Work queue settings.
	 */
	public static class Queue {

		/**
		 * Whether to provide the WorkQueue bean and run the workers for QueueSubscription beans (off unless switched on).
		 */
		private boolean enabled;

		/**
		 * Lease of a claimed message; renewed every third of it while the instance holds the
		 * message. An instance that stops renewing loses its messages after this time.
		 * A number without unit means seconds.
		 */
		@DurationUnit(ChronoUnit.SECONDS)
		private Duration leaseTime = Duration.ofSeconds(30);

		/**
		 * Attempts before a message goes dead (stored with each message when it is enqueued).
		 */
		private int maxAttempts = 3;

		private final Backoff backoff = new Backoff().prefix("polling.jdbc.queue");

		/**
		 * Worker threads of this instance.
		 */
		private int threads = 4;

		/**
		 * Messages taken per claim (1 claims single rows).
		 */
		private int batchSize = 10;

		/**
		 * Wait of the fetcher when no message was ready. A number without unit means seconds.
		 */
		@DurationUnit(ChronoUnit.SECONDS)
		private Duration pollInterval = Duration.ofMillis(500);

		/**
		 * How long DONE messages are kept. A number without unit means seconds.
		 */
		@DurationUnit(ChronoUnit.SECONDS)
		private Duration retention = Duration.ofDays(7);

		/**
		 * How often each instance deletes DONE messages older than the retention; 0 disables it.
		 * A number without unit means seconds.
		 */
		@DurationUnit(ChronoUnit.SECONDS)
		private Duration purgeInterval = Duration.ofHours(1);

		/**
		 * How long stopping waits for running handlers to finish; the parts stop side by side, after the
		 * clusters are released. Keep it below spring.lifecycle.timeout-per-shutdown-phase. A
		 * number without unit means seconds.
		 */
		@DurationUnit(ChronoUnit.SECONDS)
		private Duration shutdownWait = Duration.ofSeconds(20);

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public Duration getLeaseTime() {
			return this.leaseTime;
		}

		public void setLeaseTime(Duration leaseTime) {
			this.leaseTime = lease("polling.jdbc.queue.lease-time", leaseTime, "30s");
		}

		public int getMaxAttempts() {
			return this.maxAttempts;
		}

		public void setMaxAttempts(int maxAttempts) {
			this.maxAttempts = range("polling.jdbc.queue.max-attempts", maxAttempts, 1, 100, "3");
		}

		public Backoff getBackoff() {
			return this.backoff;
		}

		public int getThreads() {
			return this.threads;
		}

		public void setThreads(int threads) {
			this.threads = range("polling.jdbc.queue.threads", threads, 1, 256, "4");
		}

		public int getBatchSize() {
			return this.batchSize;
		}

		public void setBatchSize(int batchSize) {
			this.batchSize = range("polling.jdbc.queue.batch-size", batchSize, 1, 1000, "10");
		}

		public Duration getPollInterval() {
			return this.pollInterval;
		}

		public void setPollInterval(Duration pollInterval) {
			this.pollInterval = positive("polling.jdbc.queue.poll-interval", pollInterval, "500ms");
		}

		public Duration getRetention() {
			return this.retention;
		}

		public void setRetention(Duration retention) {
			this.retention = positive("polling.jdbc.queue.retention", retention, "7d");
		}

		public Duration getPurgeInterval() {
			return this.purgeInterval;
		}

		public void setPurgeInterval(Duration purgeInterval) {
			if (purgeInterval.isNegative()) {
				throw new IllegalArgumentException("polling.jdbc.queue.purge-interval must not be negative but was "
						+ purgeInterval + ": set e.g. 1h, or 0 to disable the purge");
			}
			this.purgeInterval = purgeInterval;
		}

		public Duration getShutdownWait() {
			return this.shutdownWait;
		}

		public void setShutdownWait(Duration shutdownWait) {
			this.shutdownWait = shutdownWait;
		}

	}

	/**
	 * Delivery guard settings.
	 */
	public static class Delivery {

		/**
		 * Whether to provide the DeliveryGuard bean and deliver to DeliveryDestination beans (off unless switched on).
		 */
		private boolean enabled;

		/**
		 * Lease of a message being sent; longer than the slowest send. A send that outlives it ends
		 * IN_DOUBT. A number without unit means seconds.
		 */
		@DurationUnit(ChronoUnit.SECONDS)
		private Duration leaseTime = Duration.ofMinutes(2);

		/**
		 * Attempts after definite failures before a message goes dead.
		 */
		private int maxAttempts = 3;

		private final Backoff backoff = new Backoff().prefix("polling.jdbc.delivery");

		/**
		 * Sending threads of this instance. One is enough for quick destinations; slow ones (an SMTP
		 * session, an HTTP call) deliver more per second with more. Each message is claimed right
		 * before its send, so threads never send the same one.
		 */
		private int threads = 1;

		/**
		 * Messages sent per destination and round, each claimed right before its send.
		 */
		private int batchSize = 10;

		/**
		 * Wait of the dispatcher when nothing was due. A number without unit means seconds.
		 */
		@DurationUnit(ChronoUnit.SECONDS)
		private Duration pollInterval = Duration.ofSeconds(1);

		/**
		 * How often expired sends are recovered (IN_DOUBT, or re-sent for idempotent destinations).
		 * A number without unit means seconds.
		 */
		@DurationUnit(ChronoUnit.SECONDS)
		private Duration recoverInterval = Duration.ofSeconds(30);

		/**
		 * How long stopping waits for the send under way to be recorded; the parts stop side by side, after the
		 * clusters are released. Keep it below spring.lifecycle.timeout-per-shutdown-phase. A
		 * number without unit means seconds.
		 */
		@DurationUnit(ChronoUnit.SECONDS)
		private Duration shutdownWait = Duration.ofSeconds(20);

		/**
		 * How long DELIVERED messages are kept.
		 */
		@DurationUnit(ChronoUnit.SECONDS)
		private Duration retention = Duration.ofDays(7);

		/**
		 * How often each instance deletes DELIVERED messages older than the retention (in batches of
		 * 1000, a transaction each); 0 disables it.
		 */
		@DurationUnit(ChronoUnit.SECONDS)
		private Duration purgeInterval = Duration.ofHours(1);

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public Duration getLeaseTime() {
			return this.leaseTime;
		}

		public void setLeaseTime(Duration leaseTime) {
			this.leaseTime = lease("polling.jdbc.delivery.lease-time", leaseTime, "2m");
		}

		public int getMaxAttempts() {
			return this.maxAttempts;
		}

		public void setMaxAttempts(int maxAttempts) {
			this.maxAttempts = range("polling.jdbc.delivery.max-attempts", maxAttempts, 1, 100, "3");
		}

		public Backoff getBackoff() {
			return this.backoff;
		}

		public int getThreads() {
			return this.threads;
		}

		public void setThreads(int threads) {
			this.threads = range("polling.jdbc.delivery.threads", threads, 1, DeliveryDispatcher.MAX_THREADS, "1");
		}

		public int getBatchSize() {
			return this.batchSize;
		}

		public void setBatchSize(int batchSize) {
			this.batchSize = range("polling.jdbc.delivery.batch-size", batchSize, 1, 1000, "10");
		}

		public Duration getPollInterval() {
			return this.pollInterval;
		}

		public void setPollInterval(Duration pollInterval) {
			this.pollInterval = positive("polling.jdbc.delivery.poll-interval", pollInterval, "1s");
		}

		public Duration getRecoverInterval() {
			return this.recoverInterval;
		}

		public void setRecoverInterval(Duration recoverInterval) {
			this.recoverInterval = positive("polling.jdbc.delivery.recover-interval", recoverInterval, "30s");
		}

		public Duration getShutdownWait() {
			return this.shutdownWait;
		}

		public void setShutdownWait(Duration shutdownWait) {
			this.shutdownWait = shutdownWait;
		}

		public Duration getRetention() {
			return this.retention;
		}

		public void setRetention(Duration retention) {
			this.retention = positive("polling.jdbc.delivery.retention", retention, "7d");
		}

		public Duration getPurgeInterval() {
			return this.purgeInterval;
		}

		public void setPurgeInterval(Duration purgeInterval) {
			this.purgeInterval = notNegative("polling.jdbc.delivery.purge-interval", purgeInterval);
		}

	}

	static Duration positive(String property, Duration value, String example) {
		if (value.isNegative() || value.isZero()) {
			throw new IllegalArgumentException(property + " must be positive but was " + value + ": e.g. " + example);
		}
		return value;
	}

	static Duration lease(String property, Duration value, String example) {
		if (value.compareTo(Duration.ofSeconds(1)) < 0 || value.compareTo(Duration.ofDays(1)) > 0) {
			throw new IllegalArgumentException(property + " must be between 1s and 1d but was " + value + ": e.g. "
					+ example);
		}
		return value;
	}

	static int range(String property, int value, int min, int max, String example) {
		if (value < min || value > max) {
			throw new IllegalArgumentException(property + " must be between " + min + " and " + max + " but was "
					+ value + ": e.g. " + example);
		}
		return value;
	}

	/** Settings of clusters coordinated through the database ({@code polling.coordination=jdbc}). */
	public static class Coordination {

		/**
		 * How long a holder that stopped deciding keeps a cluster before another instance takes it
		 * over, in database time. Defaults to each cluster's wait time. Must exceed the longest cycle
		 * plus the timer delay. A number without unit means seconds.
		 */
		@DurationUnit(ChronoUnit.SECONDS)
		private @Nullable Duration failoverPeriod;

		public @Nullable Duration getFailoverPeriod() {
			return this.failoverPeriod;
		}

		public void setFailoverPeriod(@Nullable Duration failoverPeriod) {
			this.failoverPeriod = failoverPeriod;
		}

	}

	/** Scheduled jobs ({@link dev.polling.jdbc.jobs.JobScheduler}). */
	public static class Jobs {

		/**
		 * Whether to provide the JobScheduler and dispatch due jobs into the work queue (needs the queue part; off unless switched on).
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
		 * How long stopping waits for the dispatch round under way; the parts stop side by side, after the
		 * clusters are released. Keep it below spring.lifecycle.timeout-per-shutdown-phase. A
		 * number without unit means seconds.
		 */
		@DurationUnit(ChronoUnit.SECONDS)
		private Duration shutdownWait = Duration.ofSeconds(10);

		/**
		 * How long dispatched and cancelled jobs are kept.
		 */
		@DurationUnit(ChronoUnit.SECONDS)
		private Duration retention = Duration.ofDays(7);

		/**
		 * How often each instance deletes dispatched and cancelled jobs older than the retention (in
		 * batches of 1000, a transaction each); 0 disables it.
		 */
		@DurationUnit(ChronoUnit.SECONDS)
		private Duration purgeInterval = Duration.ofHours(1);

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

		public Duration getShutdownWait() {
			return this.shutdownWait;
		}

		public void setShutdownWait(Duration shutdownWait) {
			this.shutdownWait = shutdownWait;
		}

		public Duration getRetention() {
			return this.retention;
		}

		public void setRetention(Duration retention) {
			this.retention = positive("polling.jdbc.jobs.retention", retention, "7d");
		}

		public Duration getPurgeInterval() {
			return this.purgeInterval;
		}

		public void setPurgeInterval(Duration purgeInterval) {
			this.purgeInterval = notNegative("polling.jdbc.jobs.purge-interval", purgeInterval);
		}

	}

	/**
	 * Meter settings of the database parts.
	 */
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

	static Duration notNegative(String property, Duration value) {
		if (value.isNegative()) {
			throw new IllegalArgumentException(property + " must not be negative but was " + value
					+ ": set e.g. 1h, or 0 to disable the purge");
		}
		return value;
	}

}
