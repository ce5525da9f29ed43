package dev.polling.boot.autoconfigure.jdbc;

import dev.polling.jdbc.queue.QueueWorkers;
import dev.polling.jdbc.queue.WorkQueue;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

import dev.polling.boot.autoconfigure.PollingManagerLifecycle;

/**
 * Starts the {@link QueueWorkers} of this instance with the application context and stops them
 * (letting running handlers finish, releasing prefetched messages) when it closes; also deletes
 * DONE messages older than {@code polling.jdbc.queue.retention} every
 * {@code polling.jdbc.queue.purge-interval}. Stops after the clusters are released, waiting up to
 * {@code polling.jdbc.queue.shutdown-wait} on a thread of its own.
 */
public final class QueueWorkersLifecycle implements SmartLifecycle {

	private static final Logger logger = LoggerFactory.getLogger(QueueWorkersLifecycle.class);

	private final WorkQueue queue;

	private final QueueWorkers workers;

	private final Duration retention;

	private final Duration purgeInterval;

	private final Duration shutdownWait;

	private @Nullable ScheduledExecutorService purger;

	private volatile boolean running;

	/**
	 * Creates the lifecycle.
	 * @param queue the queue
	 * @param workers the workers
	 * @param retention how long DONE messages are kept
	 * @param purgeInterval how often to purge, zero to disable
	 * @param shutdownWait how long stopping waits for running handlers
	 */
	public QueueWorkersLifecycle(WorkQueue queue, QueueWorkers workers, Duration retention, Duration purgeInterval,
			Duration shutdownWait) {
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
			ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor((task) -> {
				Thread thread = new Thread(task, "polling-queue-purge");
				thread.setDaemon(true);
				return thread;
			});
			long millis = Math.max(1, this.purgeInterval.toMillis());
			executor.scheduleWithFixedDelay(this::purge, millis, millis, TimeUnit.MILLISECONDS);
			this.purger = executor;
		}
		this.running = true;
	}

	@Override
	public synchronized void stop() {
		if (this.purger != null) {
			this.purger.shutdownNow();
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
			this.queue.purge(this.retention);
		}
		catch (RuntimeException ex) {
			logger.warn("Purging done messages of {} failed; trying again in {}: {}", this.queue.tables().queue(),
					this.purgeInterval, ex.getMessage());
		}
	}

}
