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
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.support.LockException;
import net.javacrumbs.shedlock.support.StorageAccessor;
import net.javacrumbs.shedlock.support.StorageBasedLockProvider;

/**
 * A seeded, single-threaded simulation of several instances coordinating one cluster through
 * {@link ShedLockCoordinator} over a store that forgets its lock now and then (the row deleted, the
 * table truncated, the key evicted), on virtual time (nanoseconds; every coordinator reads the
 * virtual clock).
 *
 * <p>Each instance's provider is ShedLock's own {@link StorageBasedLockProvider} (with its cache
 * of the records it has seen) over a simulated {@link StorageAccessor}, as the JDBC providers are:
 * a record is inserted when missing, updated when its {@code lockUntil} has passed, extended while
 * it is live and by the same owner, unlocked by the same owner. Every instance has its own owner
 * name (the recommended {@code withLockedByValue}); with one owner name a former holder's extension
 * would succeed on the new holder's record after a forget (see {@link ShedLockSimulation} for that
 * configuration without forgets).
 *
 * <p>Faults, drawn from the seed: each store request is applied after a delay (at most the
 * coordinator's safety margin) and answered after another (up to twice the margin); some requests
 * fail (not applied), some answers are lost (applied); instances tick at random intervals, now and
 * then release the cluster or freeze for longer than the failover period; and the store forgets
 * its record at random times.
 *
 * <p>Checked at every event:
 * <ol>
 * <li>Exclusion: no two instances believe at once that they hold the cluster (an instance believes
 * from a grant until its local expiry, its release or a refusal), unless the store forgot the lock
 * after the earlier believer's grant was applied: such an overlap is <em>excused</em> (the store
 * broke its word), counted, and its length measured; it must end by the earlier believer's next
 * decision or its local expiry.</li>
 * <li>The store agrees: while an instance believes, the store's lock is live, unless it forgot it
 * since that instance's grant (excused as above).</li>
 * <li>No lost lock: every lock request first tries to insert the record, so a request that finds
 * the record missing takes the lock. The one exception is ShedLock's two steps (an insert that
 * found the record, then an update that finds it gone): the forget fell between them; counted.</li>
 * <li>Fencing: the coordinator hands out no token (epoch {@code -1}, ShedLock has none); a grant
 * with a token would have to exceed every earlier one.</li>
 * </ol>
 */
final class ForgetfulStoreSimulation {

	static final long FAILOVER = Duration.ofSeconds(10).toNanos();

	static final long MARGIN = ShedLockCoordinator.safetyMargin(Duration.ofNanos(FAILOVER)).toNanos();

	private static final ClusterDefinition CLUSTER = ClusterDefinition.of("SIM", Duration.ofSeconds(10));

	private final long seed;

	private final Random random;

	private final PriorityQueue<Event> events = new PriorityQueue<>();

	private final List<Instance> instances = new ArrayList<>();

	private long now;

	private long sequence;

	/** The store's record: whether it exists, until when it is locked, by whom. */
	private boolean recordExists;

	private long lockUntil = Long.MIN_VALUE;

	private @Nullable String lockOwner;

	/** When the store last forgot its record. */
	private long lastForget = Long.MIN_VALUE;

	private long highestToken = Long.MIN_VALUE;

	private @Nullable String violation;

	final Stats stats = new Stats();

	ForgetfulStoreSimulation(long seed) {
		this.seed = seed;
		this.random = new Random(seed);
	}

	/**
	 * Runs until the given number of ticks (over all instances) have been taken from the top of the
	 * event queue; ticks that fall inside a request run nested and are not counted.
	 * @return the first violation, or null
	 */
	@Nullable String run(int ticks) {
		int count = 2 + this.random.nextInt(4);
		for (int i = 0; i < count; i++) {
			this.instances.add(new Instance("i" + i));
		}
		for (Instance instance : this.instances) {
			scheduleTick(this.now + this.random.nextLong(Duration.ofSeconds(3).toNanos()), () -> tick(instance));
		}
		scheduleForget();
		int done = 0;
		while (done < ticks && this.violation == null && !this.events.isEmpty()) {
			if (this.events.peek().tick) {
				done++;
			}
			runUntil(this.events.peek().time);
		}
		return this.violation;
	}

	private void scheduleForget() {
		long at = this.now + Duration.ofSeconds(2).toNanos() + this.random.nextLong(Duration.ofSeconds(40).toNanos());
		schedule(at, () -> {
			this.recordExists = false;
			this.lockUntil = Long.MIN_VALUE;
			this.lockOwner = null;
			this.lastForget = this.now;
			this.stats.forgets++;
			scheduleForget();
		});
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
			instance.grantApplied = Long.MIN_VALUE;
			instance.grantSent = Long.MIN_VALUE;
			Claim claim = instance.coordinator.acquire(CLUSTER, instance.id);
			this.stats.decisions++;
			if (claim.granted()) {
				grant(instance, claim);
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

	private void grant(Instance instance, Claim claim) {
		if (instance.grantSent == Long.MIN_VALUE) {
			fail(instance.id + " was granted without a lock or extension the store applied in this decision");
			return;
		}
		if (!instance.id.equals(claim.holder())) {
			fail(instance.id + " was granted with holder " + claim.holder());
			return;
		}
		if (claim.epoch() != -1) {
			if (claim.epoch() <= this.highestToken) {
				fail(instance.id + " was granted token " + claim.epoch() + ", not above " + this.highestToken);
				return;
			}
			this.highestToken = claim.epoch();
		}
		if (!claim.renewed() || instance.believedUntil <= this.now) {
			instance.closeExcused(this.now);
			instance.believedFrom = this.now;
			this.stats.grants++;
		}
		else {
			this.stats.renewals++;
		}
		instance.believedUntil = instance.grantSent + FAILOVER - MARGIN;
		instance.beliefApplied = instance.grantApplied;
		checkOverlap(instance);
	}

	private void checkOverlap(Instance instance) {
		for (Instance other : this.instances) {
			if (other == instance || !other.believes(this.now) || !instance.believes(this.now)) {
				continue;
			}
			Instance earlier = (other.beliefApplied <= instance.beliefApplied) ? other : instance;
			if (this.lastForget > earlier.beliefApplied) {
				// the store forgot the earlier believer's lock: excused, it ends by that one's next decision
				if (earlier.excusedSince == Long.MIN_VALUE) {
					earlier.excusedSince = this.now;
					this.stats.excusedOverlaps++;
				}
				continue;
			}
			fail(instance.id + " believes it holds from " + millis(instance.believedFrom) + " to " + millis(instance.believedUntil)
					+ " while " + other.id + " believes it holds from " + millis(other.believedFrom) + " to "
					+ millis(other.believedUntil) + " (last forget " + millis(this.lastForget) + ")");
			return;
		}
	}

	private void checkStore() {
		for (Instance instance : this.instances) {
			if (instance.believes(this.now) && !(this.recordExists && this.lockUntil > this.now)
					&& this.lastForget <= instance.beliefApplied) {
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

	private void runUntil(long time) {
		while (!this.events.isEmpty() && this.events.peek().time <= time) {
			Event event = this.events.poll();
			this.now = Math.max(this.now, event.time);
			event.action.run();
			checkStore();
		}
		this.now = Math.max(this.now, time);
	}

	/** A store request: fails, or is applied after a delay and answered (or not) after another. */
	private <T> T request(String what, LongFunction<T> atStore) {
		long sent = this.now;
		long delay = this.random.nextLong(MARGIN + 1);
		long answer = this.random.nextLong(2 * MARGIN + 1);
		int fault = this.random.nextInt(100);
		if (fault < 3) {
			this.stats.failedRequests++;
			runUntil(sent + delay);
			throw new LockException("simulated: " + what + " failed");
		}
		Object[] result = new Object[1];
		schedule(sent + delay, () -> result[0] = atStore.apply(this.now));
		runUntil(sent + delay + answer);
		if (fault < 6) {
			this.stats.lostAnswers++;
			throw new LockException("simulated: the answer to " + what + " was lost");
		}
		@SuppressWarnings("unchecked")
		T value = (T) result[0];
		return value;
	}

	/** An application instance: a coordinator and a storage-based provider of its own. */
	private final class Instance {

		final String id;

		final ShedLockCoordinator coordinator;

		/** Sent time of the request of this decision's lock or extension the store applied, and when it applied it. */
		long grantSent = Long.MIN_VALUE;

		long grantApplied = Long.MIN_VALUE;

		long believedFrom = Long.MIN_VALUE;

		long believedUntil = Long.MIN_VALUE;

		/** When the store applied the request behind the current belief. */
		long beliefApplied = Long.MIN_VALUE;

		/** When an excused overlap with this (earlier) believer began, while it lasts. */
		long excusedSince = Long.MIN_VALUE;

		/** Whether the current lock request's insert found the record. */
		boolean insertFoundRecord;

		/** Whether the current lock request found the record missing when it tried to update it. */
		boolean updateFoundNoRecord;

		Instance(String id) {
			this.id = id;
			this.coordinator = ShedLockCoordinator.builder(new Provider(this))
				.failoverPeriod(Duration.ofNanos(FAILOVER))
				.nanoTime(() -> ForgetfulStoreSimulation.this.now)
				.build();
		}

		/** Ends the excused overlap this believer is in, if any, measuring it. */
		void closeExcused(long at) {
			if (this.excusedSince != Long.MIN_VALUE) {
				long overlap = Math.min(at, this.believedUntil) - this.excusedSince;
				ForgetfulStoreSimulation.this.stats.longestExcusedOverlap = Math
					.max(ForgetfulStoreSimulation.this.stats.longestExcusedOverlap, overlap);
				this.excusedSince = Long.MIN_VALUE;
			}
		}

		boolean believes(long at) {
			return this.believedFrom != Long.MIN_VALUE && this.believedFrom <= at && at < this.believedUntil;
		}

		void stopBelieving(long at) {
			closeExcused(at);
			if (this.believedUntil > at) {
				this.believedUntil = at;
			}
		}

	}

	/** ShedLock's storage-based provider (its record cache included) over the simulated store. */
	private final class Provider extends StorageBasedLockProvider {

		private final Instance instance;

		Provider(Instance instance) {
			super(new Accessor(instance));
			this.instance = instance;
		}

		@Override
		public Optional<SimpleLock> lock(LockConfiguration configuration) {
			long sent = ForgetfulStoreSimulation.this.now;
			this.instance.insertFoundRecord = false;
			this.instance.updateFoundNoRecord = false;
			Optional<SimpleLock> lock = super.lock(configuration);
			if (lock.isPresent()) {
				this.instance.grantSent = sent;
			}
			else if (this.instance.updateFoundNoRecord) {
				if (!this.instance.insertFoundRecord) {
					fail(this.instance.id + " was refused although the store had no record: the request only updated (the "
							+ "provider's cache of existing records was not cleared before it)");
				}
				// the forget fell between its insert (which found the record) and its update: counted
				ForgetfulStoreSimulation.this.stats.lostLockRequests++;
			}
			return lock;
		}

	}

	/** The simulated store as one instance reaches it (its owner name, its requests' faults). */
	private final class Accessor implements StorageAccessor {

		private final Instance instance;

		Accessor(Instance instance) {
			this.instance = instance;
		}

		@Override
		public boolean insertRecord(LockConfiguration configuration) {
			long atMost = configuration.getLockAtMostFor().toNanos();
			return request("insert", (at) -> {
				if (ForgetfulStoreSimulation.this.recordExists) {
					this.instance.insertFoundRecord = true;
					return false;
				}
				take(at, atMost);
				return true;
			});
		}

		@Override
		public boolean updateRecord(LockConfiguration configuration) {
			long atMost = configuration.getLockAtMostFor().toNanos();
			return request("update", (at) -> {
				if (!ForgetfulStoreSimulation.this.recordExists) {
					this.instance.updateFoundNoRecord = true;
					return false;
				}
				if (ForgetfulStoreSimulation.this.lockUntil > at) {
					return false;
				}
				take(at, atMost);
				return true;
			});
		}

		@Override
		public boolean extend(LockConfiguration configuration) {
			long sent = ForgetfulStoreSimulation.this.now;
			long atMost = configuration.getLockAtMostFor().toNanos();
			boolean extended = request("extend", (at) -> {
				if (!ForgetfulStoreSimulation.this.recordExists || ForgetfulStoreSimulation.this.lockUntil <= at
						|| !this.instance.id.equals(ForgetfulStoreSimulation.this.lockOwner)) {
					return false;
				}
				ForgetfulStoreSimulation.this.lockUntil = at + atMost;
				this.instance.grantApplied = at;
				return true;
			});
			if (extended) {
				this.instance.grantSent = sent;
			}
			return extended;
		}

		@Override
		public void unlock(LockConfiguration configuration) {
			request("unlock", (at) -> {
				if (ForgetfulStoreSimulation.this.recordExists && this.instance.id.equals(ForgetfulStoreSimulation.this.lockOwner)) {
					ForgetfulStoreSimulation.this.lockUntil = Math.min(ForgetfulStoreSimulation.this.lockUntil, at);
				}
				return null;
			});
		}

		private void take(long at, long atMost) {
			ForgetfulStoreSimulation.this.recordExists = true;
			ForgetfulStoreSimulation.this.lockUntil = at + atMost;
			ForgetfulStoreSimulation.this.lockOwner = this.instance.id;
			this.instance.grantApplied = at;
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

		long decisions;

		long grants;

		long renewals;

		long releases;

		long freezes;

		long unavailable;

		long failedRequests;

		long lostAnswers;

		long forgets;

		long excusedOverlaps;

		long longestExcusedOverlap;

		long lostLockRequests;

		void add(Stats other) {
			this.decisions += other.decisions;
			this.grants += other.grants;
			this.renewals += other.renewals;
			this.releases += other.releases;
			this.freezes += other.freezes;
			this.unavailable += other.unavailable;
			this.failedRequests += other.failedRequests;
			this.lostAnswers += other.lostAnswers;
			this.forgets += other.forgets;
			this.excusedOverlaps += other.excusedOverlaps;
			this.longestExcusedOverlap = Math.max(this.longestExcusedOverlap, other.longestExcusedOverlap);
			this.lostLockRequests += other.lostLockRequests;
		}

		@Override
		public String toString() {
			return "decisions " + this.decisions + ", grants " + this.grants + ", renewals " + this.renewals + ", releases "
					+ this.releases + ", freezes " + this.freezes + ", unavailable " + this.unavailable + ", failed requests "
					+ this.failedRequests + ", lost answers " + this.lostAnswers + ", forgets " + this.forgets
					+ ", excused overlaps " + this.excusedOverlaps + " (longest " + millis(this.longestExcusedOverlap)
					+ "), lock requests refused because the forget fell between their insert and update " + this.lostLockRequests;
		}

	}

}
