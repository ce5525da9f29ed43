package dev.polling.core.internal;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import dev.polling.core.TimeSource;

/**
 * The hold state of one cluster in this instance: last activity and candidacy as monotonic
 * nanoseconds. Lock-free: activity is extended with a compare-and-set so that a release or pause
 * cannot be overwritten by a late {@link #recordActivity()}. A hold granted before a detected stop
 * of this JVM (see {@link StopDetector}) is void: peers may have taken over meanwhile.
 */
public final class ClusterState {

	/** Sentinel for "never" / "not a candidate". */
	public static final long NONE = Long.MIN_VALUE;

	private final TimeSource time;

	private final long waitNanos;

	private final AtomicLong lastActivity = new AtomicLong(NONE);

	private volatile long candidateSince = NONE;

	private volatile boolean paused;

	/** How many stops of this JVM were detected so far. */
	private final LongSupplier stops;

	/** The stop count when the hold was granted. */
	private volatile long grantStops;

	public ClusterState(TimeSource time, long waitNanos) {
		this(time, waitNanos, () -> 0);
	}

	/**
	 * @param stops how many stops of this JVM were detected so far ({@link StopDetector#stops()}); a hold
	 * granted before the latest one is void
	 */
	public ClusterState(TimeSource time, long waitNanos, LongSupplier stops) {
		this.time = time;
		this.waitNanos = waitNanos;
		this.stops = stops;
	}

	/** The last activity, or {@link #NONE} when never, released, or granted before a detected stop. */
	private long lastActivity() {
		long last = this.lastActivity.get();
		if (last != NONE && this.stops.getAsLong() != this.grantStops) {
			this.lastActivity.compareAndSet(last, NONE);
			return NONE;
		}
		return last;
	}

	/** Milliseconds since the last activity, {@link Long#MAX_VALUE} when never or released. */
	public long elapsedMillis() {
		long last = lastActivity();
		if (last == NONE) {
			return Long.MAX_VALUE;
		}
		return Math.max(0, (this.time.nanoTime() - last) / 1_000_000L);
	}

	/** Milliseconds since candidacy was announced, or -1 when not a candidate. */
	public long candidateAgeMillis() {
		long since = this.candidateSince;
		return (since == NONE) ? -1 : Math.max(0, (this.time.nanoTime() - since) / 1_000_000L);
	}

	/**
	 * Elapsed time and candidacy age from one consistent snapshot: {@code [elapsedMillis,
	 * candidateAgeMillis]}. Candidacy is read before activity, and a grant sets activity before it
	 * ends candidacy, so a reader never sees an instance that is being granted as neither candidate
	 * nor holder (reading the two separately can, and that would let a peer grant too).
	 */
	public long[] snapshot() {
		long since = this.candidateSince;
		long last = lastActivity();
		long now = this.time.nanoTime();
		long elapsed = (last == NONE) ? Long.MAX_VALUE : Math.max(0, (now - last) / 1_000_000L);
		long candidateAge = (since == NONE) ? -1 : Math.max(0, (now - since) / 1_000_000L);
		return new long[] { elapsed, candidateAge };
	}

	public boolean isHolding() {
		long last = lastActivity();
		return !this.paused && last != NONE && this.time.nanoTime() - last < this.waitNanos;
	}

	public boolean isPaused() {
		return this.paused;
	}

	/**
	 * Extends the hold if this instance holds and at least {@code marginNanos} of the wait time are
	 * left, so that no peer can have seen the hold lapse. Returns whether it was extended.
	 */
	public boolean renewIfHolding(long marginNanos) {
		return extend(this.waitNanos - marginNanos);
	}

	/** Extends the hold if this instance holds. Never creates a hold. */
	public boolean recordActivity() {
		return extend(this.waitNanos);
	}

	private boolean extend(long limitNanos) {
		while (true) {
			long last = lastActivity();
			long now = this.time.nanoTime();
			if (this.paused || last == NONE || now - last >= limitNanos) {
				return false;
			}
			if (this.lastActivity.compareAndSet(last, now)) {
				return true;
			}
		}
	}

	/** Starts holding now; ends candidacy. The activity is set before candidacy ends. */
	public void grant() {
		this.grantStops = this.stops.getAsLong(); // before the activity: a reader that sees the hold sees its count
		this.lastActivity.set(this.time.nanoTime());
		this.candidateSince = NONE;
	}

	/** Announces candidacy now; returns the announcement moment. */
	public long announce() {
		long now = this.time.nanoTime();
		this.candidateSince = now;
		return now;
	}

	public void withdraw() {
		this.candidateSince = NONE;
	}

	/** Reports "never" from now on, so a peer can take over at its next tick. */
	public void release() {
		this.lastActivity.set(NONE);
		this.candidateSince = NONE;
	}

	public void pause() {
		this.paused = true;
		release();
	}

	public void resume() {
		this.paused = false;
	}

}
