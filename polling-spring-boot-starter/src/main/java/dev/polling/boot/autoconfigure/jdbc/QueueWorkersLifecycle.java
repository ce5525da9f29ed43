package dev.polling.boot.autoconfigure.jdbc;

import dev.polling.jdbc.queue.QueueWorkers;
import dev.polling.jdbc.queue.WorkQueue;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts the {@link QueueWorkers} of this instance with the application context and stops them
 * (letting running handlers finish, releasing prefetched messages) when it closes; also deletes
 * DONE messages older than {@code polling.jdbc.queue.retention.period} every
 * {@code polling.jdbc.queue.retention.purge-interval}. Stops after the clusters are released, waiting up to
 * {@code polling.shutdown.timeout} on a thread of its own.
 */
public final class QueueWorkersLifecycle extends WorkerLifecycle {

	private static final Logger logger = LoggerFactory.getLogger(QueueWorkersLifecycle.class);

	private final QueueWorkers workers;

	private final Duration shutdownWait;

	private final RetentionPurgeScheduler purger;

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
		super("polling-queue-stop");
		this.workers = workers;
		this.shutdownWait = shutdownWait;
		this.purger = new RetentionPurgeScheduler("queue", purgeInterval, () -> queue.admin().purge(retention),
				schedulers) {

			@Override
			void failed(RuntimeException ex, Duration interval) {
				logger.warn("Purging done messages of {} failed; trying again in {}: {}", queue.tables().queue(),
						interval, ex.getMessage());
			}

		};
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
		if (isRunning()) {
			return;
		}
		this.workers.start();
		this.purger.start();
		running(true);
	}

	@Override
	public synchronized void stop() {
		this.purger.stop();
		this.workers.stop(this.shutdownWait);
		running(false);
	}

}
