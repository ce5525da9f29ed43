package dev.polling.shedlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.function.LongFunction;

import org.jspecify.annotations.Nullable;

import dev.polling.core.ClusterCoordinator.Claim;
import dev.polling.core.ClusterDefinition;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.support.LockException;

/**
 * A seeded, single-threaded simulation of several instances coordinating through
 * {@link ShedLockCoordinator} on a simulated ShedLock store, on virtual time (nanoseconds; every
 * coordinator reads the virtual clock).
 *
 * <p>The store keeps one lock as ShedLock's JDBC provider does: a lock is taken when its
 * {@code lockUntil} has passed, extended only while it is still locked and by the same owner name,
 * and unlocked by the same owner name. Every instance uses one owner name (they run on one host),
 * so the owner checks never tell them apart: the hazard the local expiry guards against.
 *
 * <p>Faults, drawn from the seed: each request reaches the store after a delay (at most the
 * coordinator's safety margin, the assumption the margin is there for) and its answer after another
 * (up to twice the margin); some requests fail (not applied, the call throws), some answers are lost
 * (applied, the call throws); instances tick at random intervals, now and then release the
 * cluster, and now and then freeze for longer than the failover period.
 *
 * <p>Invariants, checked at every event: (1) no two instances believe at once that they hold the
 * cluster, an instance believing from the moment it receives a grant until its local expiry (the
 * grant's request sent + failover − margin) or its release, whichever comes first; (2) while an
 * instance believes it holds, the store's lock is live ({@code lockUntil} later than now).
 */
final class ShedLockSimulation {

	static final long FAILOVER = Duration.ofSeconds(10).toNanos();

	static final long MARGIN = ShedLockCoordinator.safetyMargin(Duration.ofNanos(FAILOVER)).toNanos();

	static final String OWNER = "the-one-host";

	private static final ClusterDefinition CLUSTER = ClusterDefinition.of("SIM", Duration.ofSeconds(10));

	private final long seed;

	private final Random random;

	private final boolean guarded;

	private final PriorityQueue<Event> events = new PriorityQueue<>();

	private final List<Instance> instances = new ArrayList<>();

	private long now;

	private long sequence;

	/** The store's lock. */
	private long lockUntil = Long.MIN_VALUE;

	private @Nullable String lockOwner;

	private @Nullable String violation;

	final Stats stats = new Stats();

	ShedLockSimulation(long seed, boolean guarded) {
		this.seed = seed;
		this.random = new Random(seed);
		this.guarded = guarded;
	}

	/**
	 * Runs the given number of ticks (over all instances).
	 * @return the first violation of an invariant, or null
	 */
	@Nullable String run(int ticks) {
		int count = 3 + this.random.nextInt(3);
		for (int i = 0; i < count; i++) {
			Instance instance = new Instance("i" + i);
			this.instances.add(instance);
		}
		for (Instance instance : this.instances) {
			try {
				instance.coordinator.verifyExtendSupport();
			}
			catch (IllegalStateException ex) {
				return "seed " + this.seed + ": verifyExtendSupport refused an extending provider: " + ex.getMessage();
			}
			scheduleTick(this.now + this.random.nextLong(Duration.ofSeconds(3).toNanos()), () -> tick(instance));
		}
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

	private void tick(Instance instance) {
		if (this.violation != null) {
			return;
		}
		if (this.random.nextInt(100) < 2) {
			instance.stopBelieving(this.now);
			this.stats.releases++;
			instance.coordinator.release(CLUSTER, instance.id);
		}
		else {
			instance.grantSent = Long.MIN_VALUE;
			Claim claim = instance.coordinator.acquire(CLUSTER, instance.id);
			if (claim.granted()) {
				if (instance.grantSent == Long.MIN_VALUE) {
					fail("granted without a lock or extend answered in this decision");
					return;
				}
				long until = instance.grantSent + FAILOVER - MARGIN;
				if (!claim.renewed() || instance.believedUntil <= this.now) {
					instance.believedFrom = this.now;
					this.stats.grants++;
				}
				else {
					this.stats.renewals++;
				}
				instance.believedUntil = until;
				checkOverlap(instance);
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
		instance.ticks++;
	}

	private void checkOverlap(Instance instance) {
		for (Instance other : this.instances) {
			if (other != instance && other.believes(this.now) && instance.believes(this.now)) {
				fail(instance.id + " believes it holds from " + millis(instance.believedFrom) + " to " + millis(instance.believedUntil)
						+ " while " + other.id + " believes it holds from " + millis(other.believedFrom) + " to "
						+ millis(other.believedUntil));
				return;
			}
		}
	}

	private void checkStore() {
		for (Instance instance : this.instances) {
			if (instance.believes(this.now) && this.lockUntil <= this.now) {
				fail(instance.id + " believes it holds (until " + millis(instance.believedUntil) + ") but the store's lock ended at "
						+ millis(this.lockUntil));
				return;
			}
		}
	}

	private void fail(String what) {
		if (this.violation == null) {
			this.violation = "seed " + this.seed + ", at " + millis(this.now) + ": " + what;
		}
	}

	private static String millis(long nanos) {
		return (nanos == Long.MIN_VALUE) ? "never" : (nanos / 1_000_000L) + " ms";
	}

	private void schedule(long time, Runnable action) {
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

	/** A request of one instance: fails, or is applied after a delay and answered (or not) after another. */
	private <T> T request(String what, LongFunction<T> atStore) {
		long sent = this.now;
		long delay = this.random.nextLong(MARGIN + 1);
		long answer = this.random.nextLong(2 * MARGIN + 1);
		int fault = this.random.nextInt(100);
		if (fault < 4) {
			this.stats.failedRequests++;
			runUntil(sent + delay);
			throw new LockException("simulated: " + what + " failed");
		}
		Object[] result = new Object[1];
		schedule(sent + delay, () -> result[0] = atStore.apply(this.now));
		runUntil(sent + delay + answer);
		if (fault < 8) {
			this.stats.lostAnswers++;
			throw new LockException("simulated: the answer to " + what + " was lost");
		}
		@SuppressWarnings("unchecked")
		T value = (T) result[0];
		return value;
	}

	private boolean storeLock(long at, long lockAtMostFor) {
		if (this.lockUntil > at) {
			return false;
		}
		this.lockUntil = at + lockAtMostFor;
		this.lockOwner = OWNER;
		return true;
	}

	private boolean storeExtend(long at, long lockAtMostFor) {
		if (this.lockUntil <= at || !OWNER.equals(this.lockOwner)) {
			return false;
		}
		this.lockUntil = at + lockAtMostFor;
		return true;
	}

	private boolean storeUnlock(long at) {
		if (OWNER.equals(this.lockOwner)) {
			this.lockUntil = Math.min(this.lockUntil, at);
		}
		return true;
	}

	/** An application instance: a coordinator and a provider of its own. */
	private final class Instance implements LockProvider {

		final String id;

		final ShedLockCoordinator coordinator;

		/** Sent time of the request of the latest lock or extend answered with a lock in this decision. */
		long grantSent = Long.MIN_VALUE;

		long believedFrom = Long.MIN_VALUE;

		long believedUntil = Long.MIN_VALUE;

		int ticks;

		Instance(String id) {
			this.id = id;
			ShedLockCoordinator.Builder builder = ShedLockCoordinator.builder(this)
				.failoverPeriod(Duration.ofNanos(FAILOVER))
				.nanoTime(() -> ShedLockSimulation.this.now);
			if (!ShedLockSimulation.this.guarded) {
				builder.withoutLocalExpiryGuard();
			}
			this.coordinator = builder.build();
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
		public Optional<SimpleLock> lock(LockConfiguration configuration) {
			long sent = ShedLockSimulation.this.now;
			long atMost = configuration.getLockAtMostFor().toNanos();
			boolean locked = request("lock", (at) -> storeLock(at, atMost));
			if (!locked) {
				return Optional.empty();
			}
			this.grantSent = sent;
			return Optional.of(new Handle(this));
		}

		@Override
		public String toString() {
			return this.id;
		}

	}

	/** A lock handle; like ShedLock's, it may be used once (extend or unlock), unless the request failed. */
	private final class Handle implements SimpleLock {

		private final Instance instance;

		private boolean used;

		Handle(Instance instance) {
			this.instance = instance;
		}

		@Override
		public Optional<SimpleLock> extend(Duration lockAtMostFor, Duration lockAtLeastFor) {
			use("extend");
			long sent = ShedLockSimulation.this.now;
			boolean extended;
			try {
				extended = request("extend", (at) -> storeExtend(at, lockAtMostFor.toNanos()));
			}
			catch (LockException ex) {
				this.used = false;
				throw ex;
			}
			if (!extended) {
				return Optional.empty();
			}
			this.instance.grantSent = sent;
			return Optional.of(new Handle(this.instance));
		}

		@Override
		public void unlock() {
			use("unlock");
			try {
				request("unlock", ShedLockSimulation.this::storeUnlock);
			}
			catch (LockException ex) {
				this.used = false;
				throw ex;
			}
		}

		private void use(String what) {
			if (this.used) {
				fail(this.instance.id + " used a lock handle again (" + what + ") after it was extended or unlocked");
			}
			this.used = true;
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
	static final class Stats {

		long grants;

		long renewals;

		long releases;

		long freezes;

		long unavailable;

		long failedRequests;

		long lostAnswers;

		void add(Stats other) {
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
