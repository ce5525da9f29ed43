package dev.polling.boot.autoconfigure.properties;

import java.time.Duration;
import java.time.temporal.ChronoUnit;

import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.boot.convert.DurationUnit;

/**
 * What the work queue ({@code polling.jdbc.queue}) and the delivery guard
 * ({@code polling.jdbc.delivery}) are configured by alike: whether they run, how often a message is
 * tried and how long it waits between tries, the lease an instance holds on a message, this
 * instance's workers, and how long finished messages are kept. Each part sets its own defaults.
 */
public abstract class JdbcPartProperties {

	/**
	 * Whether to provide the part's bean and run its workers on this instance (off unless switched
	 * on).
	 */
	private boolean enabled;

	/**
	 * Attempts before a message goes dead (the queue stores it with each message when it is
	 * enqueued; the delivery guard counts definite failures).
	 */
	private int maxAttempts = 3;

	@NestedConfigurationProperty
	private final Backoff backoff = new Backoff();

	@NestedConfigurationProperty
	private final Lease lease = new Lease();

	@NestedConfigurationProperty
	private final Workers workers = new Workers();

	@NestedConfigurationProperty
	private final Retention retention = new Retention();

	/**
	 * Creates the settings with the part's defaults.
	 * @param leaseDuration the default lease of a message
	 * @param threads the default number of worker threads
	 * @param pollInterval the default wait when nothing was ready
	 */
	protected JdbcPartProperties(Duration leaseDuration, int threads, Duration pollInterval) {
		this.lease.setDuration(leaseDuration);
		this.workers.setThreads(threads);
		this.workers.setPollInterval(pollInterval);
		this.retention.setPeriod(Duration.ofDays(7));
	}

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
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

	public Lease getLease() {
		return this.lease;
	}

	public Workers getWorkers() {
		return this.workers;
	}

	public Retention getRetention() {
		return this.retention;
	}

	/** The wait between attempts of one message. */
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

		public dev.polling.jdbc.Backoff toBackoff() {
			return new dev.polling.jdbc.Backoff(this.initial, this.multiplier, this.max);
		}

	}

	/** The lease an instance holds on a message while it works on it. */
	public static class Lease {

		/**
		 * How long a claimed message stays this instance's: a queue message's lease is renewed every
		 * third of it while its handler runs, and an instance that stops renewing loses it after this
		 * time; a send that outlives it ends IN_DOUBT. Longer than the slowest handler or send
		 * (queue 30s, delivery 2m). A number without unit means seconds.
		 */
		@DurationUnit(ChronoUnit.SECONDS)
		private Duration duration = Duration.ofSeconds(30);

		public Duration getDuration() {
			return this.duration;
		}

		public void setDuration(Duration duration) {
			this.duration = duration;
		}

	}

	/** This instance's workers of the part. */
	public static class Workers {

		/**
		 * Worker threads of this instance (queue 4, delivery 1). A slow delivery destination (an SMTP
		 * session, an HTTP call) delivers more per second with more; each message is claimed right
		 * before its send, so threads never send the same one.
		 */
		private int threads = 1;

		/**
		 * Messages taken per claim (queue; 1 claims single rows), or sent per destination and round
		 * (delivery, each claimed right before its send).
		 */
		private int batchSize = 10;

		/**
		 * Wait when no message was ready (queue 500ms, delivery 1s). A number without unit means
		 * seconds.
		 */
		@DurationUnit(ChronoUnit.SECONDS)
		private Duration pollInterval = Duration.ofSeconds(1);

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

	}

	/** How long finished entries are kept, and how often each instance deletes older ones. */
	public static class Retention {

		/**
		 * How long finished entries are kept (DONE messages, DELIVERED messages, dispatched jobs,
		 * received inbox keys). For the queue, 0 deletes a message when it is done (no history, less
		 * work for the database per message). A number without unit means seconds.
		 */
		@DurationUnit(ChronoUnit.SECONDS)
		private Duration period = Duration.ofDays(7);

		/**
		 * How often each instance deletes finished entries older than the period (in batches, a
		 * transaction each); 0 disables it. Purging on several instances at once is safe. A number
		 * without unit means seconds.
		 */
		@DurationUnit(ChronoUnit.SECONDS)
		private Duration purgeInterval = Duration.ofHours(1);

		public Duration getPeriod() {
			return this.period;
		}

		public void setPeriod(Duration period) {
			this.period = period;
		}

		public Duration getPurgeInterval() {
			return this.purgeInterval;
		}

		public void setPurgeInterval(Duration purgeInterval) {
			this.purgeInterval = purgeInterval;
		}

	}

}
