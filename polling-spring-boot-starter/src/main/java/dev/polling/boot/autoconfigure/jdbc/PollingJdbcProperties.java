package dev.polling.boot.autoconfigure.jdbc;

import dev.polling.jdbc.delivery.DeliveryDispatcher;

import dev.polling.boot.autoconfigure.PollingPropertyErrors;
import dev.polling.jdbc.TableNames;
import dev.polling.jdbc.jobs.JobDispatcher;
import java.time.Duration;
import java.time.temporal.ChronoUnit;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.convert.DurationUnit;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * Configuration of polling's JDBC parts, under {@code polling.jdbc}. A duration written as a plain
 * number means seconds, as everywhere under {@code polling.*}.
 */
@ConfigurationProperties("polling.jdbc")
public class PollingJdbcProperties implements Validator {

	@Override
	public boolean supports(Class<?> type) {
		return PollingJdbcProperties.class.isAssignableFrom(type);
	}

	/**
	 * Checks the bound values; Spring Boot calls this at bind time and fails the start with every
	 * mistake, naming the key, the value and the fix.
	 */
	@Override
	public void validate(Object target, Errors errors) {
		PollingJdbcProperties properties = (PollingJdbcProperties) target;
		Checks checks = new Checks(new PollingPropertyErrors(errors));
		try {
			new TableNames(properties.getTablePrefix());
		}
		catch (IllegalArgumentException ex) {
			checks.errors.reject("table-prefix", properties.getTablePrefix(), ex.getMessage(),
					"use letters, digits and '_', starting with a letter, e.g. polling_");
		}
		Inbox inbox = properties.getInbox();
		checks.positive("inbox.retention", inbox.getRetention(), "30d (how long received keys are remembered)");
		checks.notNegative("inbox.purge-interval", inbox.getPurgeInterval());
		checks.range("inbox.purge-batch-size", inbox.getPurgeBatchSize(), 1, 100_000, "1000");
		Queue queue = properties.getQueue();
		checks.lease("queue.lease-time", queue.getLeaseTime(), "30s");
		checks.range("queue.max-attempts", queue.getMaxAttempts(), 1, 100, "3");
		checks.range("queue.threads", queue.getThreads(), 1, 256, "4");
		checks.range("queue.batch-size", queue.getBatchSize(), 1, 1000, "10");
		checks.positive("queue.poll-interval", queue.getPollInterval(), "500ms");
		checks.notNegative("queue.retention", queue.getRetention());
		checks.notNegative("queue.purge-interval", queue.getPurgeInterval());
		checks.notNegative("queue.shutdown-wait", queue.getShutdownWait());
		checks.backoff("queue.backoff", queue.getBackoff());
		Delivery delivery = properties.getDelivery();
		checks.lease("delivery.lease-time", delivery.getLeaseTime(), "2m");
		checks.range("delivery.max-attempts", delivery.getMaxAttempts(), 1, 100, "3");
		checks.range("delivery.threads", delivery.getThreads(), 1, DeliveryDispatcher.MAX_THREADS, "1");
		checks.range("delivery.batch-size", delivery.getBatchSize(), 1, 1000, "10");
		checks.positive("delivery.poll-interval", delivery.getPollInterval(), "1s");
		checks.positive("delivery.recover-interval", delivery.getRecoverInterval(), "30s");
		checks.positive("delivery.retention", delivery.getRetention(), "7d");
		checks.notNegative("delivery.purge-interval", delivery.getPurgeInterval());
		checks.notNegative("delivery.shutdown-wait", delivery.getShutdownWait());
		checks.backoff("delivery.backoff", delivery.getBackoff());
		Duration coordinationFailover = properties.getCoordination().getFailoverPeriod();
		if (coordinationFailover != null) {
			checks.positive("coordination.failover-period", coordinationFailover,
					"30s (at least the longest cycle plus the timer delay)");
		}
		Jobs jobs = properties.getJobs();
		checks.positive("jobs.dispatch-interval", jobs.getDispatchInterval(), "1s");
		checks.range("jobs.batch-size", jobs.getBatchSize(), 1, 10_000, "1000");
		if (jobs.getFailoverPeriod().compareTo(JobDispatcher.DEFAULT_FAILOVER_PERIOD) < 0) {
			checks.errors.reject("jobs.failover-period", Checks.display(jobs.getFailoverPeriod()),
					"a dispatcher that stopped is replaced after the failover period, which must be at least 10s",
					"set polling.jdbc.jobs.failover-period to at least 10s");
		}
		checks.positive("jobs.retention", jobs.getRetention(), "7d");
		checks.notNegative("jobs.purge-interval", jobs.getPurgeInterval());
		checks.notNegative("jobs.shutdown-wait", jobs.getShutdownWait());
		checks.notNegative("metrics.refresh-interval", properties.getMetrics().getRefreshInterval());
	}

	/** The checks of single values, reported under {@code polling.jdbc.}. */
	private static final class Checks {

		private final PollingPropertyErrors errors;

		Checks(PollingPropertyErrors errors) {
			this.errors = errors;
		}

		void positive(String key, Duration value, String example) {
			if (value.isNegative() || value.isZero()) {
				this.errors.reject(key, display(value), "the value must be positive", "set polling.jdbc." + key + " to e.g. " + example);
			}
		}

		void notNegative(String key, Duration value) {
			if (value.isNegative()) {
				this.errors.reject(key, display(value), "the value must not be negative",
						"set polling.jdbc." + key + " to e.g. 1h, or to 0");
			}
		}

		void lease(String key, Duration value, String example) {
			if (value.compareTo(Duration.ofSeconds(1)) < 0 || value.compareTo(Duration.ofDays(1)) > 0) {
				this.errors.reject(key, display(value), "the value must be between 1s and 1d",
						"set polling.jdbc." + key + " to e.g. " + example + " (longer than a handler takes)");
			}
		}

		void range(String key, int value, int min, int max, String example) {
			if (value < min || value > max) {
				this.errors.reject(key, value, "the value must be between " + min + " and " + max,
						"set polling.jdbc." + key + " to e.g. " + example);
			}
		}

		void backoff(String key, Backoff backoff) {
			positive(key + ".initial", backoff.getInitial(), "1s");
			positive(key + ".max", backoff.getMax(), "5m");
			if (!(backoff.getMultiplier() >= 1.0) || Double.isInfinite(backoff.getMultiplier())) {
				this.errors.reject(key + ".multiplier", backoff.getMultiplier(), "the multiplier must be at least 1",
						"set polling.jdbc." + key + ".multiplier to e.g. 2 (doubles the wait after every attempt)");
			}
			if (backoff.getMax().compareTo(backoff.getInitial()) < 0) {
				this.errors.reject(key + ".max", display(backoff.getMax()),
						"the longest wait is shorter than polling.jdbc." + key + ".initial (" + display(backoff.getInitial()) + ")",
						"set polling.jdbc." + key + ".max to at least the initial wait");
			}
		}

		static String display(Duration duration) {
			return PollingPropertyErrors.display(duration);
		}

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
			this.retention = retention;
		}

		public Duration getPurgeInterval() {
			return this.purgeInterval;
		}

		public void setPurgeInterval(Duration purgeInterval) {
			this.purgeInterval = purgeInterval;
		}

		public int getPurgeBatchSize() {
			return this.purgeBatchSize;
		}

		public void setPurgeBatchSize(int purgeBatchSize) {
			this.purgeBatchSize = purgeBatchSize;
		}

	}


	/**
	 * Backoff between attempts.
	 */
	public static class Backoff {

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

		public Duration getInitial() {
			return this.initial;
		}

		public void setInitial(Duration initial) {
			this.initial = initial;
		}

		public double getMultiplier() {
			return this.multiplier;
		}

		public void setMultiplier(double multiplier) {
			this.multiplier = multiplier;
		}

		public Duration getMax() {
			return this.max;
		}

		public void setMax(Duration max) {
			this.max = max;
		}

		dev.polling.jdbc.Backoff toBackoff() {
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

		private final Backoff backoff = new Backoff();

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
		 * How long DONE messages are kept; 0 deletes a message when it is done (no history, less
		 * work for the database per message). A number without unit means seconds.
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
			this.leaseTime = leaseTime;
		}

		public int getMaxAttempts() {
			return this.maxAttempts;
		}

		public void setMaxAttempts(int maxAttempts) {
			this.maxAttempts = maxAttempts;
		}

		public Backoff getBackoff() {
			return this.backoff;
		}

		public int getThreads() {
			return this.threads;
		}

		public void setThreads(int threads) {
			this.threads = threads;
		}

		public int getBatchSize() {
			return this.batchSize;
		}

		public void setBatchSize(int batchSize) {
			this.batchSize = batchSize;
		}

		public Duration getPollInterval() {
			return this.pollInterval;
		}

		public void setPollInterval(Duration pollInterval) {
			this.pollInterval = pollInterval;
		}

		public Duration getRetention() {
			return this.retention;
		}

		public void setRetention(Duration retention) {
			this.retention = retention;
		}

		public Duration getPurgeInterval() {
			return this.purgeInterval;
		}

		public void setPurgeInterval(Duration purgeInterval) {
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

		private final Backoff backoff = new Backoff();

		/**
		 * Sending threads of this instance. One is enough for quick destinations; slow ones (an SMTP
		 * session, an HTTP call) deliver more per second with more. Each message is claimed right
		 * before its send, so threads never send the same one.
		 */
		private int threads = 1;

		/**
		 * Messages sent per destination and round, each claimed right before its send (a destination with
		 * batched claims gets at least ten of its batches per round).
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
			this.leaseTime = leaseTime;
		}

		public int getMaxAttempts() {
			return this.maxAttempts;
		}

		public void setMaxAttempts(int maxAttempts) {
			this.maxAttempts = maxAttempts;
		}

		public Backoff getBackoff() {
			return this.backoff;
		}

		public int getThreads() {
			return this.threads;
		}

		public void setThreads(int threads) {
			this.threads = threads;
		}

		public int getBatchSize() {
			return this.batchSize;
		}

		public void setBatchSize(int batchSize) {
			this.batchSize = batchSize;
		}

		public Duration getPollInterval() {
			return this.pollInterval;
		}

		public void setPollInterval(Duration pollInterval) {
			this.pollInterval = pollInterval;
		}

		public Duration getRecoverInterval() {
			return this.recoverInterval;
		}

		public void setRecoverInterval(Duration recoverInterval) {
			this.recoverInterval = recoverInterval;
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
			this.retention = retention;
		}

		public Duration getPurgeInterval() {
			return this.purgeInterval;
		}

		public void setPurgeInterval(Duration purgeInterval) {
			this.purgeInterval = purgeInterval;
		}

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
			this.retention = retention;
		}

		public Duration getPurgeInterval() {
			return this.purgeInterval;
		}

		public void setPurgeInterval(Duration purgeInterval) {
			this.purgeInterval = purgeInterval;
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


}
