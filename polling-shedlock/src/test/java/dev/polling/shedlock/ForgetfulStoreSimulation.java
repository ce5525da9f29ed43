package dev.polling.shedlock;

import java.time.Duration;
import java.util.Optional;
import java.util.function.LongPredicate;

import org.jspecify.annotations.Nullable;

import dev.polling.core.ClusterCoordinator.Claim;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
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
final class ForgetfulStoreSimulation
		extends VirtualStoreSimulation<ForgetfulStoreSimulation.Instance, ForgetfulStoreSimulation.Stats> {

	/** When the store last forgot its record. */
	private long lastForget = Long.MIN_VALUE;

	private long highestToken = Long.MIN_VALUE;

	ForgetfulStoreSimulation(long seed) {
		super(seed, 3, 6, new Stats());
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
			scheduleFirstTick(instance);
		}
		scheduleForget();
		return runTicks(ticks);
	}

	private void scheduleForget() {
		long at = this.now + Duration.ofSeconds(2).toNanos() + this.random.nextLong(Duration.ofSeconds(40).toNanos());
		schedule(at, () -> {
			this.store.forget();
			this.lastForget = this.now;
			this.stats.forgets++;
			scheduleForget();
		});
	}

	@Override
	void granted(Instance instance, Claim claim) {
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
		believe(instance, claim, instance.grantSent + FAILOVER - MARGIN);
		instance.beliefApplied = instance.grantApplied;
		checkOverlap(instance);
	}

	/** Excused when the store forgot the earlier believer's lock: it ends by that one's next decision. */
	@Override
	boolean excused(Instance instance, Instance other) {
		Instance earlier = (other.beliefApplied <= instance.beliefApplied) ? other : instance;
		if (this.lastForget <= earlier.beliefApplied) {
			return false;
		}
		if (earlier.excusedSince == Long.MIN_VALUE) {
			earlier.excusedSince = this.now;
			this.stats.excusedOverlaps++;
		}
		return true;
	}

	@Override
	String overlapNote() {
		return " (last forget " + millis(this.lastForget) + ")";
	}

	@Override
	void checkStore() {
		for (Instance instance : this.instances) {
			if (instance.believes(this.now) && !this.store.liveAt(this.now) && this.lastForget <= instance.beliefApplied) {
				fail(instance.id + " believes it holds (until " + millis(instance.believedUntil) + ") but the store's lock ended at "
						+ millis(this.store.lockUntil));
				return;
			}
		}
	}

	/** An application instance: a coordinator and a storage-based provider of its own. */
	final class Instance extends Believer {

		/** When the store applied this decision's lock or extension. */
		long grantApplied = Long.MIN_VALUE;

		/** When the store applied the request behind the current belief. */
		long beliefApplied = Long.MIN_VALUE;

		/** When an excused overlap with this (earlier) believer began, while it lasts. */
		long excusedSince = Long.MIN_VALUE;

		/** Whether the current lock request's insert found the record. */
		boolean insertFoundRecord;

		/** Whether the current lock request found the record missing when it tried to update it. */
		boolean updateFoundNoRecord;

		Instance(String id) {
			super(id);
			this.coordinator = ShedLockCoordinator.builder(new Provider(this))
				.failoverPeriod(Duration.ofNanos(FAILOVER))
				.nanoTime(() -> ForgetfulStoreSimulation.this.now)
				.build();
		}

		@Override
		void startDecision() {
			this.grantApplied = Long.MIN_VALUE;
			super.startDecision();
		}

		@Override
		void beginBelief(long at) {
			closeExcused(at);
			super.beginBelief(at);
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

		@Override
		void stopBelieving(long at) {
			closeExcused(at);
			super.stopBelieving(at);
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
	private final class Accessor extends LockRecord.Accessor {

		private final Instance instance;

		Accessor(Instance instance) {
			super(ForgetfulStoreSimulation.this.store, instance.id);
			this.instance = instance;
		}

		/**
		 * A faulty request; notes what the instance's checks need: whether an insert found the record or an
		 * update found it missing, when the store applied a lock or extension, and when an extension was sent.
		 */
		@Override
		boolean request(String what, LongPredicate atRecord) {
			long sent = ForgetfulStoreSimulation.this.now;
			boolean done = ForgetfulStoreSimulation.this.request(what, (at) -> {
				if (what.equals("insert") && this.record.exists) {
					this.instance.insertFoundRecord = true;
				}
				if (what.equals("update") && !this.record.exists) {
					this.instance.updateFoundNoRecord = true;
				}
				boolean taken = atRecord.test(at);
				if (taken && !what.equals("unlock")) {
					this.instance.grantApplied = at;
				}
				return taken;
			});
			if (done && what.equals("extend")) {
				this.instance.grantSent = sent;
			}
			return done;
		}

	}

	/** What a run exercised. */
	static final class Stats extends VirtualStoreSimulation.Stats {

		long forgets;

		long excusedOverlaps;

		long longestExcusedOverlap;

		long lostLockRequests;

		void add(Stats other) {
			super.add(other);
			this.forgets += other.forgets;
			this.excusedOverlaps += other.excusedOverlaps;
			this.longestExcusedOverlap = Math.max(this.longestExcusedOverlap, other.longestExcusedOverlap);
			this.lostLockRequests += other.lostLockRequests;
		}

		@Override
		public String toString() {
			return "decisions " + this.decisions + ", " + super.toString() + ", forgets " + this.forgets + ", excused overlaps "
					+ this.excusedOverlaps + " (longest " + millis(this.longestExcusedOverlap)
					+ "), lock requests refused because the forget fell between their insert and update " + this.lostLockRequests;
		}

	}

}
