package dev.polling.core;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

/**
 * Notices that this JVM did not run for a while: stopped (SIGSTOP, a frozen container, a suspended
 * VM), a very long GC pause, or a starved process. A daemon thread beats every interval; every
 * {@link #stops()} call beats too, so the first thread to run after a stop sees it at once, before
 * the heartbeat thread is scheduled again. A gap between two beats longer than the threshold counts
 * as one stop.
 *
 * <p>Why: under {@code proceed} a peer that cannot reach a holder for the peer timeout takes the
 * cluster over (under {@code presume-last-known} too, when it never had an answer from the holder). A holder stopped that long may wake up believing it still holds, and would report
 * and poll as holder until its next decision. Holds granted before a detected stop are void
 * ({@link ClusterState}). Uses real monotonic time, not the injectable time source, since only a
 * real stop matters.
 */
final class StopDetector implements StopSource, AutoCloseable {

	/** How often the heartbeat thread beats at most. */
	static final Duration MAX_INTERVAL = Duration.ofMillis(100);

	private static final long NEVER = Long.MIN_VALUE;

	private final long thresholdNanos;

	private final LongConsumer onStop;

	private final LongSupplier clock;

	private final AtomicLong heartbeat;

	private final AtomicLong stops = new AtomicLong();

	private final long intervalNanos;

	private final Runnable onBeat;

	private final Thread thread;

	/** When the latest stop was detected (System.nanoTime), or {@link #NEVER}. */
	private volatile long lastStop = NEVER;

	private volatile boolean closed;

	/**
	 * Starts the heartbeat thread.
	 * @param threshold a gap longer than this is a stop
	 * @param onStop called with the gap in nanoseconds, once per stop, on the thread that noticed it
	 * @param onBeat called on the heartbeat thread after each beat (checks of running cycles)
	 */
	StopDetector(Duration threshold, LongConsumer onStop, Runnable onBeat) {
		this(threshold, onStop, onBeat, System::nanoTime, true);
	}

	/**
	 * @param clock the monotonic clock (the real one, except in tests of the detection itself)
	 * @param heartbeatThread whether to start the heartbeat thread (without it, only {@link #stops()} beats)
	 */
	StopDetector(Duration threshold, LongConsumer onStop, Runnable onBeat, LongSupplier clock, boolean heartbeatThread) {
		this.clock = clock;
		this.heartbeat = new AtomicLong(clock.getAsLong());
		this.thresholdNanos = threshold.toNanos();
		// several beats per threshold, so that a stop is told from a late beat
		this.intervalNanos = Math.max(1_000_000L, Math.min(MAX_INTERVAL.toNanos(), this.thresholdNanos / 4));
		this.onStop = onStop;
		this.onBeat = onBeat;
		this.thread = new Thread(this::run, "polling-stop-detector");
		this.thread.setDaemon(true);
		if (heartbeatThread) {
			this.thread.start();
		}
	}

	/** How many stops were detected so far (checking for one first). */
	@Override
	public long stops() {
		beat();
		return this.stops.get();
	}

	private void beat() {
		long last = this.heartbeat.get();
		long now = this.clock.getAsLong();
		long gap = now - last;
		if (gap <= 0) {
			return;
		}
		if (this.heartbeat.compareAndSet(last, now) && gap > this.thresholdNanos) {
			recordStop(gap);
		}
	}

	/**
	 * Records a stop of the given length as if it had just ended: voids the holds granted before it
	 * and calls the callback. Called by the detection; public for tests of what follows a stop.
	 * @param gapNanos how long the JVM did not run
	 */
	void recordStop(long gapNanos) {
		this.lastStop = this.clock.getAsLong();
		this.stops.incrementAndGet();
		this.onStop.accept(gapNanos);
	}

	/**
	 * Whether a stop was detected within the given time: answers to requests that were under way
	 * during the stop say nothing about the peers (a request "still pending" or timed out because this
	 * JVM, not the peer, did not run).
	 */
	@Override
	public boolean stoppedWithin(Duration window) {
		stops();
		long at = this.lastStop;
		return at != NEVER && this.clock.getAsLong() - at < window.toNanos();
	}

	private void run() {
		while (!this.closed) {
			beat();
			try {
				this.onBeat.run();
			}
			catch (RuntimeException ex) {
				// a check must not end the heartbeat
			}
			try {
				TimeUnit.NANOSECONDS.sleep(this.intervalNanos);
			}
			catch (InterruptedException ex) {
				return;
			}
		}
	}

	/** The gap that counts as a stop. */
	Duration threshold() {
		return Duration.ofNanos(this.thresholdNanos);
	}

	@Override
	public void close() {
		this.closed = true;
		this.thread.interrupt();
	}

}
