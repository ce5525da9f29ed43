package dev.polling.boot.autoconfigure.jdbc;

import dev.polling.jdbc.queue.QueueWorkers;
import dev.polling.jdbc.queue.WorkQueue;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

import dev.polling.boot.autoconfigure.PollingManagerLifecycle;

/**
 * Starts the {@link QueueWorkers} of this instance with the application context and stops them
 * (letting running handlers finish, releasing prefetched messages) when it closes; also deletes
 * DONE messages older than {@code polling.jdbc.queue.retention.period} every
 * {@code polling.jdbc.queue.retention.purge-interval}. Stops after the clusters are released, waiting up to
 * {@code polling.shutdown.timeout} on a thread of its own.
 */
public final class QueueWorkersLifecycle implements SmartLifecycle {

	private static final Logger logger = LoggerFactory.getLogger(QueueWorkersLifecycle.class);

	private final WorkQueue queue;

	private final QueueWorkers workers;

	private final Duration retention;

	private final Duration purgeInterval;

	private final Duration shutdownWait;

	private final PollingTaskSchedulers schedulers;

	private PollingTaskSchedulers.@Nullable Timer purger;

	private volatile boolean running;

	/**
	 * Creates the lifecycle.
	 * @param queue the queue
	 * @param workers the workers
	 * @param retention how long DONE messages are kept
	 * @param purgeInterval how often to purge, zero to disable
	 * @param shutdownWait how long stopping waits for running handlers
	 * @param schedulers where the purge timer comes from
	 */
	public QueueWorkersLifecycle(WorkQueue queue, QueueWorkers workers, Duration retention, Duration purgeInterval,
			Duration shutdownWait, PollingTaskSchedulers schedulers) {
		this.schedulers = schedulers;
		this.queue = queue;
		this.workers = workers;
		this.retention = retention;
		this.purgeInterval = purgeInterval;
		this.shutdownWait = shutdownWait;
	}

	/**
	 * The workers.
	 * @return the workers
	 */
	public QueueWorkers getWorkers() {
		return this.workers;
	}

	@Override
	public synchronized void start() {
		if (this.running) {
			return;
		}
		this.workers.start();
		if (!this.purgeInterval.isZero()) {
			this.purger = this.schedulers.start("polling-queue-purge", this.purgeInterval, this::purge);
		}
		this.running = true;
	}

	@Override
	public synchronized void stop() {
		if (this.purger != null) {
			this.purger.stop(Duration.ZERO);
			this.purger = null;
		}
		this.workers.stop(this.shutdownWait);
		this.running = false;
	}

	@Override
	public void stop(Runnable callback) {
		BackgroundStop.run("polling-queue-stop", this::stop, callback);
	}

	@Override
	public int getPhase() {
		return PollingManagerLifecycle.WORKERS_PHASE;
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	private void purge() {
		try {
			this.queue.admin().purge(this.retention);
		}
		catch (RuntimeException ex) {
			logger.warn("Purging done messages of {} failed; trying again in {}: {}", this.queue.tables().queue(),
					this.purgeInterval, ex.getMessage());
		}
	}

}
