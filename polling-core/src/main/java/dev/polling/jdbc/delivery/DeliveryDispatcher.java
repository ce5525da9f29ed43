package dev.polling.jdbc.delivery;

import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link DeliveryGuard} in the background on one daemon thread: delivers due messages of
 * every registered destination in batches, waits {@code pollInterval} when there was nothing to
 * send, and recovers expired leases every {@code recoverInterval}. A failing database is logged
 * once per outage and tried again.
 */
public final class DeliveryDispatcher implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(DeliveryDispatcher.class);

	private final DeliveryGuard guard;

	private final int batchSize;

	private final Duration pollInterval;

	private final Duration recoverInterval;

	private final Object wakeUp = new Object();

	private volatile boolean running;

	private @Nullable Thread thread;

	private boolean failing;

	/**
	 * Creates the dispatcher (not started).
	 * @param guard the guard
	 * @param batchSize messages sent per destination and round (each claimed right before its send), 1 to 1000
	 * @param pollInterval wait when nothing was due, positive
	 * @param recoverInterval how often expired leases are recovered, positive
	 */
	public DeliveryDispatcher(DeliveryGuard guard, int batchSize, Duration pollInterval, Duration recoverInterval) {
		this.guard = Objects.requireNonNull(guard, "guard must not be null");
		if (batchSize < 1 || batchSize > 1000) {
			throw new IllegalArgumentException("batchSize must be between 1 and 1000 but was " + batchSize);
		}
		if (pollInterval.isNegative() || pollInterval.isZero() || recoverInterval.isNegative()
				|| recoverInterval.isZero()) {
			throw new IllegalArgumentException("pollInterval (" + pollInterval + ") and recoverInterval ("
					+ recoverInterval + ") must be positive");
		}
		this.batchSize = batchSize;
		this.pollInterval = pollInterval;
		this.recoverInterval = recoverInterval;
	}

	/**
	 * Starts the thread; does nothing without destinations or when running.
	 */
	public synchronized void start() {
		if (this.running || this.guard.destinations().isEmpty()) {
			return;
		}
		this.running = true;
		Thread started = new Thread(this::run, "polling-delivery");
		started.setDaemon(true);
		this.thread = started;
		started.start();
	}

	/**
	 * Stops after the send under way (if any) is recorded.
	 * @param timeout how long to wait
	 */
	public synchronized void stop(Duration timeout) {
		this.running = false;
		wakeUp();
		if (this.thread != null) {
			try {
				this.thread.join(Math.max(1, timeout.toMillis()));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			this.thread = null;
		}
	}

	@Override
	public void close() {
		stop(Duration.ofSeconds(30));
	}

	/**
	 * Whether the thread runs.
	 * @return {@code true} between start and stop
	 */
	public boolean isRunning() {
		return this.running;
	}

	/**
	 * Makes the dispatcher look for due messages now instead of after its poll interval.
	 */
	public void wakeUp() {
		synchronized (this.wakeUp) {
			this.wakeUp.notifyAll();
		}
	}

	private void run() {
		long lastRecovery = System.nanoTime();
		while (this.running) {
			int attempted = 0;
			try {
				if (System.nanoTime() - lastRecovery >= this.recoverInterval.toNanos()) {
					lastRecovery = System.nanoTime();
					this.guard.recoverExpired();
				}
				attempted = this.guard.deliverDue(this.batchSize);
				if (this.failing) {
					this.failing = false;
					logger.info("Delivering outgoing messages works again");
				}
			}
			catch (RuntimeException ex) {
				if (!this.failing) {
					this.failing = true;
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

}
