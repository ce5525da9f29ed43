package dev.polling.boot.autoconfigure.jdbc;

import dev.polling.jdbc.inbox.Inbox;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Runs the inbox's retention purge on every instance at a fixed delay
 * ({@code polling.jdbc.inbox.retention.purge-interval}), first one interval after startup, on a daemon
 * thread of its own. A failed purge is logged and tried again at the next interval. An interval of
 * zero disables the purge.
 */
public final class InboxPurgeScheduler implements SmartLifecycle {

	private static final Logger logger = LoggerFactory.getLogger(InboxPurgeScheduler.class);

	private final Inbox inbox;

	private final Duration retention;

	private final Duration interval;

	private final PollingTaskSchedulers schedulers;

	private PollingTaskSchedulers.@Nullable Timer executor;

	/**
	 * Creates the scheduler.
	 * @param inbox the inbox to purge
	 * @param retention minimum age of purged entries
	 * @param interval delay between purges, zero to disable
	 * @param schedulers where the timer comes from
	 */
	public InboxPurgeScheduler(Inbox inbox, Duration retention, Duration interval, PollingTaskSchedulers schedulers) {
		this.schedulers = schedulers;
		this.inbox = inbox;
		this.retention = retention;
		this.interval = interval;
	}

	@Override
	public synchronized void start() {
		if (this.executor != null || this.interval.isZero()) {
			return;
		}
		this.executor = this.schedulers.start("polling-inbox-purge", this.interval, this::purge);
	}

	@Override
	public synchronized void stop() {
		if (this.executor != null) {
			this.executor.stop(Duration.ZERO);
			this.executor = null;
		}
	}

	@Override
	public synchronized boolean isRunning() {
		return this.executor != null;
	}

	private void purge() {
		try {
			this.inbox.purge(this.retention);
		}
		catch (RuntimeException ex) {
			logger.warn("Purging {} failed; trying again in {}", this.inbox.tables().inbox(), this.interval, ex);
		}
	}

}
