package dev.polling.boot.autoconfigure.jdbc;

import java.time.Duration;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Runs a retention purge (delivered messages, dispatched and cancelled jobs) on every instance at
 * a fixed delay, first one interval after startup, on a timer from {@link PollingTaskSchedulers}. The purge deletes
 * in batches, each in a transaction of its own. A failed purge is logged and tried again at the
 * next interval. An interval of zero disables it.
 */
public class RetentionPurgeScheduler implements SmartLifecycle {

	private static final Logger logger = LoggerFactory.getLogger(RetentionPurgeScheduler.class);

	private final String what;

	private final Duration interval;

	private final Runnable purge;

	private final PollingTaskSchedulers schedulers;

	private PollingTaskSchedulers.@Nullable Timer timer;

	/**
	 * Creates the scheduler.
	 * @param what what is purged, for the thread name and the log, e.g. {@code delivery}
	 * @param interval delay between purges, zero to disable
	 * @param purge the purge
	 * @param schedulers where the timer comes from
	 */
	public RetentionPurgeScheduler(String what, Duration interval, Runnable purge, PollingTaskSchedulers schedulers) {
		this.schedulers = schedulers;
		this.what = what;
		this.interval = interval;
		this.purge = purge;
	}

	@Override
	public synchronized void start() {
		if (this.timer != null || this.interval.isZero()) {
			return;
		}
		this.timer = this.schedulers.start("polling-" + this.what + "-purge", this.interval, this::purge);
	}

	@Override
	public synchronized void stop() {
		if (this.timer != null) {
			this.timer.stop(Duration.ZERO);
			this.timer = null;
		}
	}

	@Override
	public synchronized boolean isRunning() {
		return this.timer != null;
	}

	private void purge() {
		try {
			this.purge.run();
		}
		catch (RuntimeException ex) {
			failed(ex, this.interval);
		}
	}

	/**
	 * Logs a failed purge.
	 * @param ex the failure
	 * @param interval when the purge is tried again
	 */
	void failed(RuntimeException ex, Duration interval) {
		logger.warn("Purging finished rows ({}) failed; trying again in {}: {}", this.what, interval, ex.getMessage());
	}

}
