package dev.polling.shedlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.function.LongFunction;

import org.jspecify.annotations.Nullable;

import dev.polling.core.ClusterCoordinator.Claim;
import dev.polling.core.ClusterDefinition;
import net.javacrumbs.shedlock.support.LockException;

/**
 * What the seeded ShedLock simulations share: virtual time (nanoseconds) as a queue of events, the store's
 * one {@link LockRecord}, store requests applied after a delay (at most the coordinator's safety margin) and
 * answered after another (up to twice the margin) of which some fail and some lose their answer, the
 * instances' ticks (now and then a release, else a decision; now and then a freeze longer than the failover
 * period), the invariant that no two instances believe at once that they hold, and the first violation.
 */
abstract class VirtualStoreSimulation<I extends VirtualStoreSimulation.Believer, S extends VirtualStoreSimulation.Stats> {

	static final long FAILOVER = Duration.ofSeconds(10).toNanos();

	static final long MARGIN = ShedLockCoordinator.safetyMargin(Duration.ofNanos(FAILOVER)).toNanos();

	static final ClusterDefinition CLUSTER = ClusterDefinition.of("SIM", Duration.ofSeconds(10));

	final long seed;

	final Random random;

	final S stats;

	final List<I> instances = new ArrayList<>();

	final LockRecord store = new LockRecord();

	long now;

	private final PriorityQueue<Event> events = new PriorityQueue<>();

	private final int failedPercent;

	private final int lostPercent;

	private long sequence;

	private @Nullable String violation;

	/**
	 * @param failedPercent the share of requests that fail (not applied, the call throws)
	 * @param lostPercent the share of requests that fail or lose their answer (applied, the call throws)
	 */
	VirtualStoreSimulation(long seed, int failedPercent, int lostPercent, S stats) {
		this.seed = seed;
		this.random = new Random(seed);
		this.failedPercent = failedPercent;
		this.lostPercent = lostPercent;
		this.stats = stats;
	}

	/** What the instance's claim granted it: checks it, and what it believes from now on. */
	abstract void granted(I instance, Claim claim);

	/** Checks the store against what the instances believe, after every event. */
	abstract void checkStore();

	/** Whether the overlap of two believers is excused (and counted as such). */
	boolean excused(I instance, I other) {
		return false;
	}

	/** What {@link #fail} adds to an overlap's description. */
	String overlapNote() {
		return "";
	}

	/** Schedules the instance's first tick within 3 s. */
	void scheduleFirstTick(I instance) {
		scheduleTick(this.now + this.random.nextLong(Duration.ofSeconds(3).toNanos()), () -> tick(instance));
	}

	/**
	 * Runs until the given number of ticks (over all instances) have been taken from the top of the
	 * event queue; ticks that fall inside a request run nested and are not counted.
	 * @return the first violation, or null
	 */
	@Nullable String runTicks(int ticks) {
		int done = 0;
		while (done < ticks && this.violation == null && !this.events.isEmpty()) {
			Event next = this.events.peek();
			if (next.tick) {
				done++;
			}
			runUntil(next.time);
		}
		return this.violation;
	}

	private void tick(I instance) {
		if (this.violation != null) {
			return;
		}
		if (this.random.nextInt(100) < 2) {
			instance.stopBelieving(this.now);
			this.stats.releases++;
			instance.coordinator.release(CLUSTER, instance.id);
		}
		else {
			instance.startDecision();
			Claim claim = instance.coordinator.acquire(CLUSTER, instance.id);
			this.stats.decisions++;
			if (claim.granted()) {
				granted(instance, claim);
			}
			else {
				instance.stopBelieving(this.now);
				if (claim.isUnavailable()) {
					this.stats.unavailable++;
				}
			}
		}
		long gap;
		if (this.random.nextInt(100) < 3) {
			this.stats.freezes++;
			gap = FAILOVER + 1 + this.random.nextLong(2 * FAILOVER);
		}
		else {
			gap = Duration.ofMillis(500).toNanos() + this.random.nextLong(Duration.ofMillis(3500).toNanos());
		}
		scheduleTick(this.now + gap, () -> tick(instance));
	}

	/** Counts the grant or renewal that starts or continues the instance's belief, until {@code until}. */
	void believe(I instance, Claim claim, long until) {
		if (!claim.renewed() || instance.believedUntil <= this.now) {
			instance.beginBelief(this.now);
			this.stats.grants++;
		}
		else {
			this.stats.renewals++;
		}
		instance.believedUntil = until;
	}

	/** Invariant: no two instances believe at once that they hold, unless {@link #excused}. */
	void checkOverlap(I instance) {
		for (I other : this.instances) {
			if (other == instance || !other.believes(this.now) || !instance.believes(this.now) || excused(instance, other)) {
				continue;
			}
			fail(instance.id + " believes it holds from " + millis(instance.believedFrom) + " to " + millis(instance.believedUntil)
					+ " while " + other.id + " believes it holds from " + millis(other.believedFrom) + " to "
					+ millis(other.believedUntil) + overlapNote());
			return;
		}
	}

	void fail(String what) {
		if (this.violation == null) {
			this.violation = "seed " + this.seed + ", at " + millis(this.now) + ": " + what;
		}
	}

	static String millis(long nanos) {
		return (nanos == Long.MIN_VALUE) ? "never" : (nanos / 1_000_000L) + " ms";
	}

	void schedule(long time, Runnable action) {
		this.events.add(new Event(time, this.sequence++, action, false));
	}

	private void scheduleTick(long time, Runnable action) {
		this.events.add(new Event(time, this.sequence++, action, true));
	}

	/** Processes every event up to the time (a tick may run requests, which process events in turn). */
	private void runUntil(long time) {
		while (!this.events.isEmpty() && this.events.peek().time <= time) {
			Event event = this.events.poll();
			this.now = Math.max(this.now, event.time);
			event.action.run();
			checkStore();
		}
		this.now = Math.max(this.now, time);
	}

	/** A store request of one instance: fails, or is applied after a delay and answered (or not) after another. */
	<T> T request(String what, LongFunction<T> atStore) {
		long sent = this.now;
		long delay = this.random.nextLong(MARGIN + 1);
		long answer = this.random.nextLong(2 * MARGIN + 1);
		int fault = this.random.nextInt(100);
		if (fault < this.failedPercent) {
			this.stats.failedRequests++;
			runUntil(sent + delay);
			throw new LockException("simulated: " + what + " failed");
		}
		Object[] result = new Object[1];
		schedule(sent + delay, () -> result[0] = atStore.apply(this.now));
		runUntil(sent + delay + answer);
		if (fault < this.lostPercent) {
			this.stats.lostAnswers++;
			throw new LockException("simulated: the answer to " + what + " was lost");
		}
		@SuppressWarnings("unchecked")
		T value = (T) result[0];
		return value;
	}

	/** An application instance: its coordinator and what it believes about holding the cluster. */
	abstract static class Believer {

		final String id;

		ShedLockCoordinator coordinator;

		/** Sent time of the request of this decision's lock or extension the store applied (answered). */
		long grantSent = Long.MIN_VALUE;

		long believedFrom = Long.MIN_VALUE;

		long believedUntil = Long.MIN_VALUE;

		Believer(String id) {
			this.id = id;
		}

		/** Forgets the previous decision's grant before the next decision. */
		void startDecision() {
			this.grantSent = Long.MIN_VALUE;
		}

		void beginBelief(long at) {
			this.believedFrom = at;
		}

		boolean believes(long at) {
			return this.believedFrom != Long.MIN_VALUE && this.believedFrom <= at && at < this.believedUntil;
		}

		void stopBelieving(long at) {
			if (this.believedUntil > at) {
				this.believedUntil = at;
			}
		}

		@Override
		public String toString() {
			return this.id;
		}

	}

	private record Event(long time, long sequence, Runnable action, boolean tick) implements Comparable<Event> {

		@Override
		public int compareTo(Event other) {
			int byTime = Long.compare(this.time, other.time);
			return (byTime != 0) ? byTime : Long.compare(this.sequence, other.sequence);
		}

	}

	/** What a run exercised. */
	static class Stats {

		long decisions;

		long grants;

		long renewals;

		long releases;

		long freezes;

		long unavailable;

		long failedRequests;

		long lostAnswers;

		void add(Stats other) {
			this.decisions += other.decisions;
			this.grants += other.grants;
			this.renewals += other.renewals;
			this.releases += other.releases;
			this.freezes += other.freezes;
			this.unavailable += other.unavailable;
			this.failedRequests += other.failedRequests;
			this.lostAnswers += other.lostAnswers;
		}

		@Override
		public String toString() {
			return "grants " + this.grants + ", renewals " + this.renewals + ", releases " + this.releases + ", freezes "
					+ this.freezes + ", unavailable " + this.unavailable + ", failed requests " + this.failedRequests
					+ ", lost answers " + this.lostAnswers;
		}

	}

}
