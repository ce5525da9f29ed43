package dev.polling.core.sim;

import java.time.Duration;
import java.util.SplittableRandom;
import java.util.function.LongSupplier;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import dev.polling.core.ClusterCoordinator;
import dev.polling.core.ClusterDefinition;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link StoreCycleSimulation} over an in-memory lock (holder, epoch, last run on the virtual clock)
 * that the store modules' coordinators are measured against: the harness itself, and that it tells a
 * store that loses its lock from one that does not.
 */
class StoreCycleSimulationTest {

	private static final int SEEDS = Integer.getInteger("polling.storesim.seeds", 30);

	private static final int DECISIONS = Integer.getInteger("polling.storesim.decisions", 300);

	@Test
	void anHonestLockKeepsCyclesApartAndTokensRising() {
		StoreCycleSimulation.Stats stats = StoreCycleSimulation.runSeeds("in-memory", (nanos, wall) -> new MemoryLock(nanos, false), 1,
				SEEDS, DECISIONS, System.out);
		assertThat(stats.violations).isZero();
		assertThat(stats.cycles).isPositive();
		assertThat(stats.grants).isGreaterThan(SEEDS);
	}

	@Test
	void aLockThatHandsOutExpiredHoldsIsCaught() {
		// a store that ignores the failover period (any request takes the lock): cycles overlap, nothing excuses it
		StoreCycleSimulation.Stats stats = StoreCycleSimulation.runSeeds("in-memory (broken)", (nanos, wall) -> new MemoryLock(nanos, true),
				1, 10, DECISIONS, System.out);
		assertThat(stats.violations).isPositive();
	}

	@Test
	void aSeedRunsTheSameEachTime() {
		// every choice comes from the seed and every wait is on the virtual clock: the same seed gives the same run,
		// whatever the load of the machine (a scheduler that asked a thread whether it had terminated got a different
		// run when the restart of a crashed instance met its old thread still terminating)
		for (long seed = 1; seed <= 10; seed++) {
			String first = fingerprint(StoreCycleSimulation.run((nanos, wall) -> new MemoryLock(nanos, false), seed, DECISIONS));
			for (int again = 0; again < 2; again++) {
				assertThat(fingerprint(StoreCycleSimulation.run((nanos, wall) -> new MemoryLock(nanos, false), seed, DECISIONS)))
					.as("seed %d, run %d", seed, again + 2)
					.isEqualTo(first);
			}
		}
	}

	private static String fingerprint(StoreCycleSimulation.Result result) {
		return result.violation() + " " + result.stats().summary("in-memory", true, 0) + " virtualNanos=" + result.stats().virtualNanos;
	}

	/** A lock in memory: taken when free or older than the failover period; a fault deletes it (its epoch starts anew). */
	static final class MemoryLock implements StoreCycleSimulation.Store {

		private final LongSupplier nanos;

		private final boolean broken;

		private @Nullable String holder;

		private long lastRun;

		private long epoch;

		MemoryLock(LongSupplier nanos, boolean broken) {
			this.nanos = nanos;
			this.broken = broken;
		}

		@Override
		public ClusterCoordinator coordinator(String instanceId) {
			return new ClusterCoordinator() {

				@Override
				public Claim acquire(ClusterDefinition cluster, String id) {
					long now = MemoryLock.this.nanos.getAsLong();
					boolean expired = MemoryLock.this.holder == null
							|| now - MemoryLock.this.lastRun >= StoreCycleSimulation.FAILOVER.toNanos();
					if (id.equals(MemoryLock.this.holder) && !expired) {
						MemoryLock.this.lastRun = now;
						return new Claim(true, true, id, MemoryLock.this.epoch, 0, null);
					}
					if (expired || MemoryLock.this.broken) {
						MemoryLock.this.holder = id;
						MemoryLock.this.lastRun = now;
						MemoryLock.this.epoch++;
						return new Claim(true, false, id, MemoryLock.this.epoch, 0, null);
					}
					return new Claim(false, false, MemoryLock.this.holder, MemoryLock.this.epoch,
							Duration.ofNanos(now - MemoryLock.this.lastRun).toMillis(), null);
				}

				@Override
				public void release(ClusterDefinition cluster, String id) {
					if (id.equals(MemoryLock.this.holder)) {
						MemoryLock.this.holder = null;
					}
				}

				@Override
				public String describe() {
					return "memory";
				}

			};
		}

		@Override
		public @Nullable String fault(SplittableRandom random) {
			this.holder = null;
			this.epoch = 0;
			return "deleted";
		}

		@Override
		public boolean handsOutTokens() {
			return true;
		}

	}

}
