package dev.polling.core;

import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;

import org.jspecify.annotations.Nullable;

/**
 * The hold of one cluster in this instance, as one immutable value swapped with compare-and-set, so
 * that every reader sees a consistent state and no writer overwrites another's change blindly.
 *
 * <p>Every change that ends a hold or a candidacy (release, pause, close) starts a new
 * <em>generation</em>. An acquisition remembers the generation and the stop count at its
 * announcement ({@link Ticket}) and {@link #grant(Ticket) grants} only if neither changed: a release,
 * pause or close during the acquisition, or a stop of this JVM anywhere between announcement and
 * grant, makes the grant fail instead of resurrecting a hold. A hold granted before a detected stop
 * is void (peers may have taken over meanwhile). While a cycle runs under a hold, the hold counts
 * as active (keep-alive), up to an optional maximum cycle time.
 *
 * <p>An operator's pause or release, a balancing handover and a shutdown all let go through
 * {@link #letGo}: without a running cycle the hold ends at once; during one it is <em>handed over
 * when the cycle ends</em>: it stays alive (peers see this instance as active) until
 * {@link #endCycle} or the maximum cycle time, cannot be extended, and no new hold is granted meanwhile.
 */
final class HoldState {

	/** Sentinel for "never" / "not a candidate" / "no cycle". */
	static final long NONE = Long.MIN_VALUE;

	private final TimeSource time;

	private final long waitNanos;

	/** Longest a running cycle keeps the hold alive; {@code Long.MAX_VALUE} for as long as it runs. */
	private final long maxCycleNanos;

	/** How many stops of this JVM were detected so far. */
	private final LongSupplier stops;

	private final AtomicReference<Hold> hold;

	/**
	 * @param time the time source
	 * @param waitNanos the cluster's wait time
	 * @param maxCycleNanos how long a running cycle keeps the hold alive at most ({@code Long.MAX_VALUE}: as long as it runs)
	 * @param stops how many stops of this JVM were detected so far; a hold granted before the latest is void
	 */
	HoldState(TimeSource time, long waitNanos, long maxCycleNanos, LongSupplier stops) {
		this.time = time;
		this.waitNanos = waitNanos;
		this.maxCycleNanos = maxCycleNanos;
		this.stops = stops;
		this.hold = new AtomicReference<>(new Hold(0, NONE, NONE, 0, NONE, false, false, false));
	}

	HoldState(TimeSource time, long waitNanos) {
		this(time, waitNanos, Long.MAX_VALUE, () -> 0);
	}

	/**
	 * One value of the state.
	 * @param generation changes with every release, pause and close
	 * @param lastActivity monotonic nanos of the last activity, {@link #NONE} when not holding
	 * @param candidateSince monotonic nanos of the announcement, {@link #NONE} when not a candidate
	 * @param grantStops the stop count when the hold was granted
	 * @param cycleSince monotonic nanos when the running cycle started, {@link #NONE} when none runs
	 * @param paused whether paused on this instance
	 * @param closed whether the manager is closed (final)
	 * @param handover whether the hold ends when the running cycle ends (a pause, release, balancing handover or shutdown came
	 *        during the cycle)
	 */
	record Hold(long generation, long lastActivity, long candidateSince, long grantStops, long cycleSince, boolean paused,
			boolean closed, boolean handover) {

		Hold released() {
			return new Hold(this.generation + 1, NONE, NONE, this.grantStops, NONE, this.paused, this.closed, false);
		}

	}

	/** What an acquisition started from: it is granted only if neither changed by then. */
	record Ticket(long generation, long stops, long announcedAt) {
	}

	// ---------------------------------------------------------------- reads

	/** The last activity in effect now: {@link #NONE} when never, released, or granted before a detected stop. */
	private long effectiveActivity(Hold h, long now, long stopCount) {
		if (h.lastActivity == NONE || stopCount != h.grantStops) {
			return NONE;
		}
		if (h.handover) {
			// handed over when the running cycle ends: alive until then, or until the maximum cycle time
			return (h.cycleSince != NONE && now - h.cycleSince < this.maxCycleNanos) ? now : NONE;
		}
		if (h.cycleSince != NONE) {
			// a cycle runs under this hold: it is alive until the cycle ends (or the maximum cycle time passes)
			long keptUntil = (this.maxCycleNanos == Long.MAX_VALUE) ? now : Math.min(now, saturatedAdd(h.cycleSince, this.maxCycleNanos));
			return Math.max(h.lastActivity, keptUntil);
		}
		return h.lastActivity;
	}

	private static long saturatedAdd(long a, long b) {
		long sum = a + b;
		return (((a ^ sum) & (b ^ sum)) < 0) ? Long.MAX_VALUE : sum;
	}

	/** Milliseconds since the last activity, {@link Long#MAX_VALUE} when never or released. */
	long elapsedMillis() {
		return snapshot()[0];
	}

	/** Milliseconds since candidacy was announced, or -1 when not a candidate. */
	long candidateAgeMillis() {
		return snapshot()[1];
	}

	/**
	 * Elapsed time and candidacy age from one value: {@code [elapsedMillis, candidateAgeMillis]}. A
	 * grant sets activity and ends candidacy in one step, so a reader never sees an instance that is
	 * being granted as neither candidate nor holder.
	 */
	long[] snapshot() {
		Hold h = this.hold.get();
		long stopCount = this.stops.getAsLong();
		long now = this.time.nanoTime();
		long last = effectiveActivity(h, now, stopCount);
		long elapsed = (last == NONE) ? Long.MAX_VALUE : Math.max(0, (now - last) / 1_000_000L);
		long candidateAge = (h.candidateSince == NONE) ? -1 : Math.max(0, (now - h.candidateSince) / 1_000_000L);
		return new long[] { elapsed, candidateAge };
	}

	boolean isHolding() {
		Hold h = this.hold.get();
		long now = this.time.nanoTime();
		long last = effectiveActivity(h, now, this.stops.getAsLong());
		return (!h.paused || h.handover) && last != NONE && now - last < this.waitNanos;
	}

	/** Whether this instance holds the cluster only until its running cycle ends (it lets go then). */
	boolean isHandingOver() {
		Hold h = this.hold.get();
		return h.handover && effectiveActivity(h, this.time.nanoTime(), this.stops.getAsLong()) != NONE;
	}

	boolean isPaused() {
		return this.hold.get().paused;
	}

	boolean isClosed() {
		return this.hold.get().closed;
	}

	/** The current generation: a later {@link #isHolding()} under the same generation means nothing ended the hold. */
	long generation() {
		return this.hold.get().generation;
	}

	/** Whether a cycle runs under the hold and has run longer than the wait time. */
	boolean isCycleOverrunning() {
		Hold h = this.hold.get();
		return h.cycleSince != NONE && this.time.nanoTime() - h.cycleSince >= this.waitNanos;
	}

	/** Nanoseconds the running cycle has run, or -1 when none runs. */
	long cycleNanos() {
		Hold h = this.hold.get();
		return (h.cycleSince == NONE) ? -1 : this.time.nanoTime() - h.cycleSince;
	}

	// ---------------------------------------------------------------- writes

	/**
	 * Extends the hold if this instance holds and at least {@code marginNanos} of the wait time are
	 * left, so that no peer can have seen the hold lapse.
	 * @return the generation of the extended hold, or -1 when it was not extended
	 */
	long renewIfHolding(long marginNanos) {
		return extend(this.waitNanos - marginNanos);
	}

	/** Extends the hold if this instance holds. Never creates a hold. */
	boolean recordActivity() {
		return extend(this.waitNanos) >= 0;
	}

	private long extend(long limitNanos) {
		while (true) {
			Hold h = this.hold.get();
			long now = this.time.nanoTime();
			long last = effectiveActivity(h, now, this.stops.getAsLong());
			if (h.paused || h.closed || h.handover || last == NONE || now - last >= limitNanos) {
				return -1;
			}
			Hold extended = new Hold(h.generation, now, h.candidateSince, h.grantStops, h.cycleSince, false, false, false);
			if (this.hold.compareAndSet(h, extended)) {
				return h.generation;
			}
		}
	}

	/**
	 * Announces candidacy now.
	 * @return the ticket to grant with, or null when paused or closed
	 */
	@Nullable Ticket announce() {
		long stopCount = this.stops.getAsLong();
		while (true) {
			Hold h = this.hold.get();
			if (h.paused || h.closed || h.handover) {
				return null;
			}
			long now = this.time.nanoTime();
			Hold candidate = new Hold(h.generation, h.lastActivity, now, h.grantStops, h.cycleSince, false, false, false);
			if (this.hold.compareAndSet(h, candidate)) {
				return new Ticket(h.generation, stopCount, now);
			}
		}
	}

	/**
	 * Starts holding now, ending candidacy in the same step, if nothing changed since the ticket was
	 * issued: same generation (no release, pause or close) and no stop of this JVM detected since.
	 * @return whether the hold was granted
	 */
	boolean grant(Ticket ticket) {
		return grant(ticket, this.time.nanoTime() + Long.MAX_VALUE / 2);
	}

	/**
	 * As {@link #grant(Ticket)}, and only until {@code notAfterNanos} (monotonic), checked with the time
	 * the grant writes: the decision's answers are only good for so long (peers ignore a candidacy
	 * older than the longest a decision may take; a peer unknown in the first round may have been
	 * granted later), so a candidate whose thread stalled between its last check and this grant must
	 * not be granted.
	 * @return whether the hold was granted
	 */
	boolean grant(Ticket ticket, long notAfterNanos) {
		long stopCount = this.stops.getAsLong();
		if (stopCount != ticket.stops) {
			return false;
		}
		while (true) {
			Hold h = this.hold.get();
			if (h.generation != ticket.generation || h.paused || h.closed || h.handover) {
				return false;
			}
			long now = this.time.nanoTime();
			if (now - notAfterNanos > 0) {
				return false;
			}
			Hold granted = new Hold(h.generation, now, NONE, stopCount, h.cycleSince, false, false, false);
			if (this.hold.compareAndSet(h, granted)) {
				return true;
			}
		}
	}

	/** Announces and grants in one step (no peers to race: standalone, a coordinator, or check-then-act). */
	boolean grantNow() {
		Ticket ticket = announce();
		return ticket != null && grant(ticket);
	}

	/** Ends candidacy if it is still the one of the ticket's generation. */
	void withdraw(Ticket ticket) {
		update((h) -> (h.generation == ticket.generation && h.candidateSince == ticket.announcedAt)
				? new Hold(h.generation, h.lastActivity, NONE, h.grantStops, h.cycleSince, h.paused, h.closed, h.handover) : h);
	}

	/**
	 * Reports "never" from now on, even while a cycle runs, so a peer can take over at its next tick;
	 * a new generation. For a hold that is lost anyway (the coordinator gave the cluster to another
	 * instance); an operator's release goes through {@link #letGo}.
	 */
	void release() {
		update(Hold::released);
	}

	/** Releases the hold at once only if it is still the given generation (a yield decided on what that hold saw). */
	void releaseIf(long generation) {
		update((h) -> (h.generation == generation) ? h.released() : h);
	}

	/**
	 * Lets go of the cluster: the one path of a pause, a release, a balancing handover and a shutdown.
	 * Without a running cycle the hold ends now (a new generation, so an acquisition under way is not
	 * granted either); while a cycle runs under a live hold, the hold is handed over when the cycle ends
	 * ({@link #endCycle}) or the maximum cycle time passes, whichever comes first.
	 * @param generation the generation to let go of (a balancing handover decided on what that hold saw), or -1 for any
	 * @param pause whether to pause the cluster (refused until {@link #resume()})
	 * @param close whether to close for good
	 * @return whether the hold is handed over only when the running cycle ends
	 */
	boolean letGo(long generation, boolean pause, boolean close) {
		long stopCount = this.stops.getAsLong();
		Hold after = this.hold.updateAndGet((h) -> {
			if (generation >= 0 && h.generation != generation) {
				return h;
			}
			boolean paused = h.paused || pause;
			boolean closed = h.closed || close;
			boolean cycleAlive = h.cycleSince != NONE && effectiveActivity(h, this.time.nanoTime(), stopCount) != NONE;
			if (cycleAlive) {
				return new Hold(h.generation, h.lastActivity, NONE, h.grantStops, h.cycleSince, paused, closed, true);
			}
			Hold r = h.released();
			return new Hold(r.generation, NONE, NONE, r.grantStops, NONE, paused, closed, false);
		});
		return after.handover;
	}

	/** Pauses: {@link #letGo} with a pause. */
	void pause() {
		letGo(-1, true, false);
	}

	void resume() {
		update((h) -> new Hold(h.generation, h.lastActivity, h.candidateSince, h.grantStops, h.cycleSince, false, h.closed, h.handover));
	}

	/** Releases for good and at once, also under a running cycle: no announcement or grant succeeds afterwards. */
	void close() {
		update((h) -> {
			Hold r = h.released();
			return new Hold(r.generation, NONE, NONE, r.grantStops, NONE, r.paused, true, false);
		});
	}

	/**
	 * Marks a cycle as running under the hold of the given generation, which keeps the hold alive
	 * while it runs.
	 * @return whether the cycle runs under the hold (false when it ended meanwhile)
	 */
	boolean beginCycle(long generation) {
		long now = this.time.nanoTime();
		long stopCount = this.stops.getAsLong();
		while (true) {
			Hold h = this.hold.get();
			if (h.generation != generation || h.paused || h.closed || h.handover || effectiveActivity(h, now, stopCount) == NONE) {
				return false;
			}
			Hold running = new Hold(h.generation, now, h.candidateSince, h.grantStops, now, false, false, false);
			if (this.hold.compareAndSet(h, running)) {
				return true;
			}
		}
	}

	/**
	 * Ends the running cycle: its end counts as activity of the hold, if the hold still is the cycle's;
	 * a hold handed over during the cycle ends now (a new generation).
	 * @return whether a handover waited for this cycle (the caller completes it, e.g. frees a coordinator's lock)
	 */
	boolean endCycle(long generation) {
		long stopCount = this.stops.getAsLong();
		boolean[] handedOver = new boolean[1];
		update((h) -> {
			handedOver[0] = false;
			if (h.generation != generation || h.cycleSince == NONE) {
				return h;
			}
			if (h.handover) {
				handedOver[0] = true;
				Hold r = h.released();
				return new Hold(r.generation, NONE, NONE, r.grantStops, NONE, h.paused, h.closed, false);
			}
			long now = this.time.nanoTime();
			long last = effectiveActivity(h, now, stopCount);
			boolean alive = !h.paused && !h.closed && last != NONE && now - last < this.waitNanos;
			return new Hold(h.generation, alive ? now : NONE, h.candidateSince, h.grantStops, NONE, h.paused, h.closed, false);
		});
		return handedOver[0];
	}

	private void update(UnaryOperator<Hold> change) {
		this.hold.updateAndGet(change);
	}

	/** The current value; for tests. */
	Hold current() {
		return this.hold.get();
	}

}
