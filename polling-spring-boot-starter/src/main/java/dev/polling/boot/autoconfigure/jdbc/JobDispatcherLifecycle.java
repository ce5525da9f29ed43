package dev.polling.boot.autoconfigure.jdbc;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

import dev.polling.core.PollingManager;
import dev.polling.jdbc.jobs.JobScheduler;
import dev.polling.jdbc.jobs.JobScheduler.DispatchResult;
import dev.polling.jdbc.queue.WorkQueue;

/**
 * Moves due scheduled jobs into the work queue every {@code polling.jdbc.jobs.dispatch-interval},
 * on one instance: the holder of {@code polling.jdbc.jobs.cluster} (through
 * {@link PollingManager#runIfGranted}), or on every instance when no cluster is named (safe, since
 * each job is locked while it is moved, but wasteful). Failures are logged and retried at the next
 * tick.
 */
public final class JobDispatcherLifecycle implements SmartLifecycle {

	private static final Logger logger = LoggerFactory.getLogger(JobDispatcherLifecycle.class);

	private final JobScheduler scheduler;

	private final WorkQueue queue;

	private final @Nullable PollingManager manager;

	private final @Nullable String cluster;

	private final Duration interval;

	private final int batchSize;

	private final Consumer<DispatchResult> observer;

	private @Nullable ScheduledExecutorService timer;

	private volatile @Nullable String lastFailure;

	/**
	 * @param scheduler the jobs
	 * @param queue where due jobs go
	 * @param manager the polling manager, or null when no cluster is named
	 * @param cluster the cluster whose holder dispatches, or null for every instance
	 * @param interval time between dispatch rounds
	 * @param batchSize jobs moved per transaction
	 * @param observer told about every round (meters)
	 */
	public JobDispatcherLifecycle(JobScheduler scheduler, WorkQueue queue, @Nullable PollingManager manager, @Nullable String cluster,
			Duration interval, int batchSize, Consumer<DispatchResult> observer) {
		this.scheduler = scheduler;
		this.queue = queue;
		this.manager = manager;
		this.cluster = cluster;
		this.interval = interval;
		this.batchSize = batchSize;
		this.observer = observer;
	}

	/** One dispatch round, as the timer runs it. */
	void tick() {
		try {
			if (this.manager != null && this.cluster != null) {
				this.manager.runIfGranted(this.cluster, this::dispatch);
			}
			else {
				dispatch();
			}
			this.lastFailure = null;
		}
		catch (RuntimeException ex) {
			String failure = ex.getClass().getSimpleName() + ": " + ex.getMessage();
			if (!failure.equals(this.lastFailure)) {
				logger.warn("Dispatching due jobs failed ({}); trying again at the next tick", failure);
			}
			this.lastFailure = failure;
		}
	}

	private void dispatch() {
		DispatchResult result;
		do {
			result = this.scheduler.dispatchDue(this.queue, this.batchSize);
			this.observer.accept(result);
		}
		while (result.dispatched() >= this.batchSize);
	}

	@Override
	public synchronized void start() {
		if (this.timer != null) {
			return;
		}
		this.timer = FixedDelayTimer.start("polling-job-dispatcher", this.interval, this::tick);
	}

	@Override
	public synchronized void stop() {
		if (this.timer != null) {
			this.timer.shutdown();
			try {
				this.timer.awaitTermination(10, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			this.timer = null;
		}
	}

	@Override
	public boolean isRunning() {
		return this.timer != null;
	}

}
