package dev.polling.jdbc.delivery;

import dev.polling.jdbc.DatabaseStatus;
import dev.polling.jdbc.builder.RuntimeBuilder;
import dev.polling.jdbc.builder.RuntimeBuilder.Runtime;
import dev.polling.jdbc.internal.Arguments;
import dev.polling.jdbc.internal.WorkerThreads;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link DeliveryGuard} in the background on daemon threads: each delivers due messages of
 * every registered destination (each message claimed right before its send, so threads never send
 * the same message), waits {@code pollInterval} when there was nothing to send; a thread of its own
 * recovers expired leases every {@code recoverInterval}, so a slow or hanging send never holds the
 * recovery back. A failing database is logged once per
 * outage and tried again. One thread is enough when sends are quick; with slow destinations (an SMTP
 * session, an HTTP call of tens of milliseconds) more threads deliver more per second.
 * <pre>{@code
 * DeliveryDispatcher dispatcher = DeliveryDispatcher.builder(guard).threads(2).build();
 * dispatcher.start();
 * }</pre>
 */
public final class DeliveryDispatcher implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(DeliveryDispatcher.class);

	/** Most dispatcher threads per instance. */
	public static final int MAX_THREADS = 64;

	private final DeliveryGuard guard;

	private final int threads;

	private final int batchSize;

	private final Duration pollInterval;

	private final Duration recoverInterval;

	private final DatabaseStatus status;

	private final WorkerThreads threadSource;

	private final Object wakeUp = new Object();

	private volatile boolean running;

	private final List<Thread> started = new ArrayList<>();

	private @Nullable ScheduledExecutorService recovery;

	private final AtomicBoolean failing = new AtomicBoolean();

	private volatile boolean failureLogged;

	/**
	 * Creates a dispatcher with one thread (not started).
	 * @param guard the guard
	 * @param batchSize messages sent per destination and round (each claimed right before its send), 1 to 1000
	 * @param pollInterval wait when nothing was due, positive
	 * @param recoverInterval how often expired leases are recovered, positive
	 * @see #builder(DeliveryGuard)
	 */
	public DeliveryDispatcher(DeliveryGuard guard, int batchSize, Duration pollInterval, Duration recoverInterval) {
		this(guard, 1, batchSize, pollInterval, recoverInterval);
	}

	/**
	 * Creates the dispatcher (not started).
	 * @param guard the guard
	 * @param threads sending threads, 1 to {@value #MAX_THREADS}
	 * @param batchSize messages sent per destination and round by each thread (each claimed right before
	 * its send), 1 to 1000
	 * @param pollInterval wait when nothing was due, positive
	 * @param recoverInterval how often expired leases are recovered, positive
	 * @see #builder(DeliveryGuard)
	 */
	public DeliveryDispatcher(DeliveryGuard guard, int threads, int batchSize, Duration pollInterval, Duration recoverInterval) {
		this(guard, threads, batchSize, pollInterval, recoverInterval, null);
	}

	/**
	 * Creates the dispatcher (not started), reporting whether the database answers to a status
	 * shared among the parts of the instance, so that an outage is logged once.
	 * @param guard the guard
	 * @param threads sending threads, 1 to {@value #MAX_THREADS}
	 * @param batchSize messages sent per destination and round by each thread, 1 to 1000
	 * @param pollInterval wait when nothing was due, positive
	 * @param recoverInterval how often expired leases are recovered, positive
	 * @param status the status, or {@code null} for one of its own
	 * @see #builder(DeliveryGuard)
	 */
	public DeliveryDispatcher(DeliveryGuard guard, int threads, int batchSize, Duration pollInterval,
			Duration recoverInterval, @Nullable DatabaseStatus status) {
		this(builder(guard).threads(threads).batchSize(batchSize).intervals(pollInterval, recoverInterval)
			.status(status));
	}

	private DeliveryDispatcher(Builder builder) {
		this(builder, builder.settings());
	}

	private DeliveryDispatcher(Builder builder, Runtime runtime) {
		this.guard = builder.guard;
		this.threads = builder.threads;
		this.batchSize = runtime.batchSize();
		this.pollInterval = builder.pollInterval;
		this.recoverInterval = builder.recoverInterval;
		this.status = runtime.status();
		this.threadSource = runtime.threads();
	}

	/**
	 * Starts building a dispatcher (defaults: one thread, batches of 10, a poll interval of 1 s,
	 * recovery every 30 s, a status of its own, daemon platform threads).
	 * @param guard the guard
	 * @return the builder
	 */
	public static Builder builder(DeliveryGuard guard) {
		return new Builder(Objects.requireNonNull(guard, "guard must not be null"));
	}

	/**
	 * Starts the threads; does nothing without destinations or when running.
	 */
	public synchronized void start() {
		if (this.running || this.guard.destinations().isEmpty()) {
			return;
		}
		this.running = true;
		for (int i = 0; i < this.threads; i++) {
			String name = (this.threads == 1) ? "polling-delivery" : "polling-delivery-" + (i + 1);
			this.started.add(this.threadSource.start(name, this::run));
		}
		ScheduledExecutorService executor = this.threadSource.timer("polling-delivery-recovery");
		long millis = Math.max(1, this.recoverInterval.toMillis());
		executor.scheduleWithFixedDelay(this::recover, millis, millis, TimeUnit.MILLISECONDS);
		this.recovery = executor;
	}

	/**
	 * Stops after the sends under way (if any) are recorded.
	 * @param timeout how long to wait in all
	 */
	public synchronized void stop(Duration timeout) {
		this.running = false;
		if (this.recovery != null) {
			this.recovery.shutdownNow();
			this.recovery = null;
		}
		wakeUp();
		long deadline = System.nanoTime() + timeout.toNanos();
		for (Thread thread : this.started) {
			try {
				thread.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000L));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				break;
			}
		}
		this.started.clear();
	}

	@Override
	public void close() {
		stop(Duration.ofSeconds(30));
	}

	/**
	 * Whether the threads run.
	 * @return {@code true} between start and stop
	 */
	public boolean isRunning() {
		return this.running;
	}

	/** How many sending threads it runs. */
	public int threads() {
		return this.threads;
	}

	/**
	 * Makes the dispatcher look for due messages now instead of after its poll interval.
	 */
	public void wakeUp() {
		synchronized (this.wakeUp) {
			this.wakeUp.notifyAll();
		}
	}

	private void recover() {
		try {
			this.guard.recoverExpired();
		}
		catch (RuntimeException ex) {
			// a lost database is logged once by the status
			if (!this.status.failed("recovering expired sends", ex) && this.failing.compareAndSet(false, true)) {
				this.failureLogged = true;
				logger.warn("Recovering expired sends failed; trying again every {}: {}", this.recoverInterval,
						ex.getMessage());
			}
		}
	}

	private void run() {
		while (this.running) {
			int attempted = 0;
			try {
				long started = this.status.roundStarted();
				// a round ends early when the dispatcher stops: what is under way is recorded, nothing more claimed
				attempted = this.guard.deliverDue(this.batchSize, () -> this.running);
				this.status.succeeded(DatabaseStatus.DELIVERY_DISPATCHER, started);
				if (this.failing.compareAndSet(true, false) && this.failureLogged) {
					this.failureLogged = false;
					logger.info("Delivering outgoing messages works again");
				}
			}
			catch (RuntimeException ex) {
				// a lost database is logged once by the status
				boolean outage = this.status.failed("delivering outgoing messages", ex);
				if (this.failing.compareAndSet(false, true) && !outage) {
					this.failureLogged = true;
					logger.warn("Delivering outgoing messages failed; trying again every {}: {}", this.pollInterval,
							ex.getMessage());
				}
			}
			if (attempted == 0 && this.running) {
				synchronized (this.wakeUp) {
					try {
						this.wakeUp.wait(Math.max(1, this.pollInterval.toMillis()));
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
						return;
					}
				}
			}
		}
	}

	/**
	 * Builds a {@link DeliveryDispatcher}: how many messages each thread sends per destination and
	 * round, each claimed right before its send ({@link #batchSize}: 1 to 1000, default 10), where the
	 * dispatcher reports whether the database answers and where its threads come from
	 * ({@code polling-delivery}, {@code polling-delivery-2}, {@code polling-delivery-recovery}), as
	 * every runtime is built.
	 */
	public static final class Builder extends RuntimeBuilder<Builder> {

		private final DeliveryGuard guard;

		private int threads = 1;

		private Duration pollInterval = Duration.ofSeconds(1);

		private Duration recoverInterval = Duration.ofSeconds(30);

		private Builder(DeliveryGuard guard) {
			super(10, 1000);
			this.guard = guard;
		}

		/**
		 * Sets the number of sending threads (default 1).
		 * @param threads 1 to {@value DeliveryDispatcher#MAX_THREADS}
		 * @return this builder
		 */
		public Builder threads(int threads) {
			this.threads = Arguments.between("threads", threads, 1, MAX_THREADS, "e.g. 1");
			return this;
		}

		/**
		 * Sets how long a thread waits when nothing was due (default 1 s) and how often expired leases
		 * are recovered (default 30 s).
		 * @param pollInterval positive
		 * @param recoverInterval positive
		 * @return this builder
		 */
		public Builder intervals(Duration pollInterval, Duration recoverInterval) {
			Objects.requireNonNull(pollInterval, "pollInterval must not be null");
			Objects.requireNonNull(recoverInterval, "recoverInterval must not be null");
			if (pollInterval.isNegative() || pollInterval.isZero() || recoverInterval.isNegative()
					|| recoverInterval.isZero()) {
				throw new IllegalArgumentException("pollInterval (" + pollInterval + ") and recoverInterval ("
						+ recoverInterval + ") must be positive");
			}
			this.pollInterval = pollInterval;
			this.recoverInterval = recoverInterval;
			return this;
		}

		/**
		 * Sets where the dispatcher reports whether the database answers (default: a status of its
		 * own); share one among the parts of an instance so that an outage is logged once.
		 * @param status the status, or {@code null} for one of its own
		 * @return this builder
		 */
		@Override
		public Builder status(@Nullable DatabaseStatus status) {
			return (status != null) ? super.status(status) : ownStatus();
		}

		/**
		 * Builds the dispatcher (not started).
		 * @return the dispatcher
		 */
		public DeliveryDispatcher build() {
			return new DeliveryDispatcher(this);
		}

		private Runtime settings() {
			return runtime("the delivery dispatcher of " + this.guard.owner());
		}

	}

}
