package dev.polling.boot.autoconfigure.jdbc;

import dev.polling.jdbc.inbox.Inbox;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the inbox's retention purge on every instance at a fixed delay
 * ({@code polling.jdbc.inbox.retention.purge-interval}), first one interval after startup, on a daemon
 * thread of its own. A failed purge is logged and tried again at the next interval. An interval of
 * zero disables the purge.
 */
public final class InboxPurgeScheduler extends RetentionPurgeScheduler {

	private static final Logger logger = LoggerFactory.getLogger(InboxPurgeScheduler.class);

	private final Inbox inbox;

	/**
	 * Creates the scheduler.
	 * @param inbox the inbox to purge
	 * @param retention minimum age of purged entries
	 * @param interval delay between purges, zero to disable
	 * @param schedulers where the timer comes from
	 */
	public InboxPurgeScheduler(Inbox inbox, Duration retention, Duration interval, PollingTaskSchedulers schedulers) {
		super("inbox", interval, () -> inbox.purge(retention), schedulers);
		this.inbox = inbox;
	}

	@Override
	void failed(RuntimeException ex, Duration interval) {
		logger.warn("Purging {} failed; trying again in {}", this.inbox.tables().inbox(), interval, ex);
	}

}
