package dev.polling.boot.autoconfigure.properties;

import java.time.Duration;

import org.springframework.validation.Errors;

import dev.polling.jdbc.TableNames;
import dev.polling.jdbc.delivery.DeliveryDispatcher;
import dev.polling.jdbc.jobs.JobDispatcher;

/**
 * The checks of {@link PollingJdbcProperties}, each mistake reported under {@code polling.jdbc.}
 * with its value and the fix.
 */
final class PollingJdbcPropertiesValidator {

	private final PollingPropertyErrors errors;

	PollingJdbcPropertiesValidator(Errors errors) {
		this.errors = new PollingPropertyErrors(errors);
	}

	void validate(PollingJdbcProperties properties) {
		try {
			new TableNames(properties.getTablePrefix());
		}
		catch (IllegalArgumentException ex) {
			this.errors.reject("table-prefix", properties.getTablePrefix(), ex.getMessage(),
					"use letters, digits and '_', starting with a letter, e.g. polling_");
		}
		PollingJdbcProperties.Inbox inbox = properties.getInbox();
		positive("inbox.retention.period", inbox.getRetention().getPeriod(), "30d (how long received keys are remembered)");
		notNegative("inbox.retention.purge-interval", inbox.getRetention().getPurgeInterval());
		range("inbox.purge-batch-size", inbox.getPurgeBatchSize(), 1, 100_000, "1000");
		part("queue", properties.getQueue(), "30s", 256, "4", "500ms");
		notNegative("queue.retention.period", properties.getQueue().getRetention().getPeriod());
		PollingJdbcProperties.Delivery delivery = properties.getDelivery();
		part("delivery", delivery, "2m", DeliveryDispatcher.MAX_THREADS, "1", "1s");
		positive("delivery.retention.period", delivery.getRetention().getPeriod(), "7d");
		positive("delivery.recover-interval", delivery.getRecoverInterval(), "30s");
		PollingJdbcProperties.Jobs jobs = properties.getJobs();
		positive("jobs.dispatch-interval", jobs.getDispatchInterval(), "1s");
		range("jobs.batch-size", jobs.getBatchSize(), 1, 10_000, "1000");
		if (jobs.getFailoverPeriod().compareTo(JobDispatcher.DEFAULT_FAILOVER_PERIOD) < 0) {
			this.errors.reject("jobs.failover-period", display(jobs.getFailoverPeriod()),
					"a dispatcher that stopped is replaced after the failover period, which must be at least 10s",
					"set polling.jdbc.jobs.failover-period to at least 10s");
		}
		positive("jobs.retention.period", jobs.getRetention().getPeriod(), "7d");
		notNegative("jobs.retention.purge-interval", jobs.getRetention().getPurgeInterval());
		notNegative("metrics.refresh-interval", properties.getMetrics().getRefreshInterval());
	}

	/** The checks the queue and the delivery guard share. */
	private void part(String key, JdbcPartProperties part, String lease, int maxThreads, String threads, String pollInterval) {
		Duration duration = part.getLease().getDuration();
		if (duration.compareTo(Duration.ofSeconds(1)) < 0 || duration.compareTo(Duration.ofDays(1)) > 0) {
			this.errors.reject(key + ".lease.duration", display(duration), "the value must be between 1s and 1d",
					"set polling.jdbc." + key + ".lease.duration to e.g. " + lease + " (longer than a handler takes)");
		}
		range(key + ".max-attempts", part.getMaxAttempts(), 1, 100, "3");
		range(key + ".workers.threads", part.getWorkers().getThreads(), 1, maxThreads, threads);
		range(key + ".workers.batch-size", part.getWorkers().getBatchSize(), 1, 1000, "10");
		positive(key + ".workers.poll-interval", part.getWorkers().getPollInterval(), pollInterval);
		notNegative(key + ".retention.purge-interval", part.getRetention().getPurgeInterval());
		backoff(key + ".backoff", part.getBackoff());
	}

	private void positive(String key, Duration value, String example) {
		if (value.isNegative() || value.isZero()) {
			this.errors.reject(key, display(value), "the value must be positive", "set polling.jdbc." + key + " to e.g. " + example);
		}
	}

	private void notNegative(String key, Duration value) {
		if (value.isNegative()) {
			this.errors.reject(key, display(value), "the value must not be negative",
					"set polling.jdbc." + key + " to e.g. 1h, or to 0");
		}
	}

	private void range(String key, int value, int min, int max, String example) {
		if (value < min || value > max) {
			this.errors.reject(key, value, "the value must be between " + min + " and " + max,
					"set polling.jdbc." + key + " to e.g. " + example);
		}
	}

	private void backoff(String key, JdbcPartProperties.Backoff backoff) {
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

	private static String display(Duration duration) {
		return PollingPropertyErrors.display(duration);
	}

}
