package dev.polling.jdbc.jobs;

import dev.polling.jdbc.DatabaseStatus;
import dev.polling.jdbc.HoldCheck;
import dev.polling.jdbc.coordination.JdbcCoordinator;
import dev.polling.jdbc.coordination.LostHoldException;
import dev.polling.jdbc.builder.RuntimeBuilder;
import dev.polling.jdbc.builder.RuntimeBuilder.Runtime;
import dev.polling.jdbc.internal.Arguments;
import dev.polling.jdbc.internal.WorkerThreads;
import dev.polling.jdbc.jobs.JobScheduler.DispatchResult;
import dev.polling.jdbc.queue.WorkQueue;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves due jobs into the work queue on a timer, on one instance: by default the holder of the row
 * {@value #DEFAULT_ROLE} in the coordination table ({@link DispatchHold#database}), which another
 * instance takes over after the failover period (default 10 s) when the holder stops. A failing
 * database is logged once per outage and tried again at the next round.
 * <pre>{@code
 * JobDispatcher dispatcher = JobDispatcher.builder(jobs, workQueue).build();
 * dispatcher.start();
 * }</pre>
 */
public final class JobDispatcher implements AutoCloseable {

	/** The id of the default dispatcher role in the coordination table. */
	public static final String DEFAULT_ROLE = "polling.jobs";

	/** The default failover period of the dispatcher role. */
	public static final Duration DEFAULT_FAILOVER_PERIOD = Duration.ofSeconds(10);

	private static final Logger logger = LoggerFactory.getLogger(JobDispatcher.class);

	private final JobScheduler scheduler;

	private final WorkQueue queue;

	private final DispatchHold hold;

	private final Duration interval;

	private final int batchSize;

	private final Consumer<DispatchResult> observer;

	private final Duration shutdownWait;

	private final DatabaseStatus status;

	private final WorkerThreads threadSource;

	private @Nullable ScheduledExecutorService timer;

	private volatile @Nullable String lastFailure;

	private volatile boolean failureLogged;

	private JobDispatcher(Builder builder, Runtime runtime) {
		this.scheduler = builder.scheduler;
		this.queue = builder.queue;
		this.interval = builder.interval;
		this.batchSize = runtime.batchSize();
		this.observer = builder.observer;
		this.status = runtime.status();
		this.shutdownWait = builder.shutdownWait;
		this.threadSource = runtime.threads();
		this.hold = (builder.hold != null) ? builder.hold
				: DispatchHold.database(new JdbcCoordinator(this.scheduler.dataSource(), this.scheduler.dialect(),
						this.scheduler.tables(), builder.failoverPeriod, JdbcCoordinator.DEFAULT_LOCK_TIMEOUT, this.status),
						DEFAULT_ROLE, this.queue.owner(),
						builder.failoverPeriod);
	}

	/**
	 * Starts building a dispatcher.
	 * @param scheduler the jobs
	 * @param queue where due jobs go
	 * @return the builder
	 */
	public static Builder builder(JobScheduler scheduler, WorkQueue queue) {
		return new Builder(Objects.requireNonNull(scheduler, "scheduler must not be null"),
				Objects.requireNonNull(queue, "queue must not be null"));
	}

	/** Starts the timer thread; does nothing when running. */
	public synchronized void start() {
		if (this.timer != null) {
			return;
		}
		ScheduledExecutorService executor = this.threadSource.timer("polling-job-dispatcher");
		long millis = Math.max(1, this.interval.toMillis());
		executor.scheduleWithFixedDelay(this::tick, millis, millis, TimeUnit.MILLISECONDS);
		this.timer = executor;
		logger.info("Job dispatcher started: every {}, up to {} jobs per transaction, dispatching while it holds {}",
				this.interval, this.batchSize, this.hold);
	}

	/** Stops the timer (letting a round under way finish) and releases the role. */
	public synchronized void stop() {
		if (this.timer == null) {
			return;
		}
		this.timer.shutdown();
		try {
			this.timer.awaitTermination(this.shutdownWait.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		this.timer = null;
		this.hold.release();
	}

	@Override
	public void close() {
		stop();
	}

	/**
	 * Whether the timer runs.
	 * @return {@code true} between start and stop
	 */
	public synchronized boolean isRunning() {
		return this.timer != null;
	}

	/** One dispatch round, as the timer runs it: never throws. */
	void tick() {
		try {
			this.hold.runIfHeld(this::dispatch);
			if (this.lastFailure != null) {
				this.lastFailure = null;
				if (this.failureLogged) {
					this.failureLogged = false;
					logger.info("Dispatching due jobs works again");
				}
			}
		}
		catch (LostHoldException ex) {
			logger.info("Stopped a dispatch round: {}", ex.getMessage());
		}
		catch (RuntimeException ex) {
			String failure = ex.getClass().getSimpleName() + ": " + ex.getMessage();
			// a lost database is logged once by the status
			if (!this.status.failed("dispatching due jobs", ex) && this.lastFailure == null) {
				this.failureLogged = true;
				logger.warn("Dispatching due jobs failed ({}); trying again every {}", failure, this.interval);
			}
			this.lastFailure = failure;
		}
	}

	private void dispatch(HoldCheck check) {
		DispatchResult result;
		do {
			long started = this.status.roundStarted();
			result = this.scheduler.dispatchDue(this.queue, this.batchSize, check);
			this.status.succeeded(DatabaseStatus.JOB_DISPATCHER, started);
			this.observer.accept(result);
		}
		while (result.dispatched() >= this.batchSize);
	}

	/**
	 * Builds a {@link JobDispatcher}: how many jobs one transaction moves ({@link #batchSize}: 1 to
	 * 10,000, default 1000), where the dispatcher reports whether the database answers and where its
	 * timer's thread comes from (named {@code polling-job-dispatcher}), as every runtime is built.
	 */
	public static final class Builder extends RuntimeBuilder<Builder> {

		private final JobScheduler scheduler;

		private final WorkQueue queue;

		private Duration interval = Duration.ofSeconds(1);

		private Duration failoverPeriod = DEFAULT_FAILOVER_PERIOD;

		private Duration shutdownWait = Duration.ofSeconds(10);

		private @Nullable DispatchHold hold;

		private Consumer<DispatchResult> observer = (result) -> {
		};

		private Builder(JobScheduler scheduler, WorkQueue queue) {
			super(1000, 10_000);
			this.scheduler = scheduler;
			this.queue = queue;
		}

		/**
		 * Sets the time between dispatch rounds (default 1 s).
		 * @param interval positive
		 * @return this builder
		 */
		public Builder interval(Duration interval) {
			this.interval = Arguments.positive("interval", interval, "e.g. 1s");
			return this;
		}

		/**
		 * Sets how long a dispatcher that stopped (crash, freeze, lost database) keeps the default role
		 * before another instance takes it over (default 10 s).
		 * @param failoverPeriod at least 10 s
		 * @return this builder
		 */
		public Builder failoverPeriod(Duration failoverPeriod) {
			Objects.requireNonNull(failoverPeriod, "failoverPeriod must not be null");
			if (failoverPeriod.compareTo(DEFAULT_FAILOVER_PERIOD) < 0) {
				throw new IllegalArgumentException("failoverPeriod must be at least 10s but was " + failoverPeriod
						+ ": a dispatcher that stopped is replaced after it, e.g. 10s");
			}
			this.failoverPeriod = failoverPeriod;
			return this;
		}

		/**
		 * Sets how long {@link JobDispatcher#stop()} waits for the round under way (default 10 s).
		 * @param shutdownWait not negative
		 * @return this builder
		 */
		public Builder shutdownWait(Duration shutdownWait) {
			Objects.requireNonNull(shutdownWait, "shutdownWait must not be null");
			if (shutdownWait.isNegative()) {
				throw new IllegalArgumentException("shutdownWait must not be negative but was " + shutdownWait + ": e.g. 10s");
			}
			this.shutdownWait = shutdownWait;
			return this;
		}

		/**
		 * Sets which instance dispatches (default: the holder of the role {@value #DEFAULT_ROLE} in the
		 * coordination table).
		 * @param hold the hold
		 * @return this builder
		 */
		public Builder hold(DispatchHold hold) {
			this.hold = Objects.requireNonNull(hold, "hold must not be null");
			return this;
		}

		/**
		 * Sets who is told about every round (e.g. meters).
		 * @param observer the observer
		 * @return this builder
		 */
		public Builder observer(Consumer<DispatchResult> observer) {
			this.observer = Objects.requireNonNull(observer, "observer must not be null");
			return this;
		}

		/**
		 * Builds the dispatcher (not started).
		 * @return the dispatcher
		 */
		public JobDispatcher build() {
			return new JobDispatcher(this, runtime("the job dispatcher of " + this.queue.owner()));
		}

	}

}
