package dev.polling.shedlock;

import java.time.Duration;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

import dev.polling.core.ClusterCoordinator.Claim;
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
final class ShedLockSimulation extends VirtualStoreSimulation<ShedLockSimulation.Instance, VirtualStoreSimulation.Stats> {

	static final String OWNER = "the-one-host";

	private final boolean guarded;

	ShedLockSimulation(long seed, boolean guarded) {
		super(seed, 4, 8, new Stats());
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
			scheduleFirstTick(instance);
		}
		return runTicks(ticks);
	}

	@Override
	void granted(Instance instance, Claim claim) {
		if (instance.grantSent == Long.MIN_VALUE) {
			fail("granted without a lock or extend answered in this decision");
			return;
		}
		believe(instance, claim, instance.grantSent + FAILOVER - MARGIN);
		checkOverlap(instance);
	}

	@Override
	void checkStore() {
		for (Instance instance : this.instances) {
			if (instance.believes(this.now) && this.store.lockUntil <= this.now) {
				fail(instance.id + " believes it holds (until " + millis(instance.believedUntil) + ") but the store's lock ended at "
						+ millis(this.store.lockUntil));
				return;
			}
		}
	}

	/** A lock request: every instance locks as the one owner, so the record is taken whenever it has lapsed. */
	private boolean storeLock(long at, long lockAtMostFor) {
		return this.store.exists ? this.store.update(OWNER, at, lockAtMostFor) : this.store.insert(OWNER, at, lockAtMostFor);
	}

	/** An application instance: a coordinator and a provider of its own. */
	final class Instance extends Believer implements LockProvider {

		Instance(String id) {
			super(id);
			ShedLockCoordinator.Builder builder = ShedLockCoordinator.builder(this)
				.failoverPeriod(Duration.ofNanos(FAILOVER))
				.nanoTime(() -> ShedLockSimulation.this.now);
			if (!ShedLockSimulation.this.guarded) {
				builder.withoutLocalExpiryGuard();
			}
			this.coordinator = builder.build();
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
				extended = request("extend", (at) -> ShedLockSimulation.this.store.extend(OWNER, at, lockAtMostFor.toNanos()));
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
				request("unlock", (at) -> {
					ShedLockSimulation.this.store.unlock(OWNER, at);
					return true;
				});
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

}
