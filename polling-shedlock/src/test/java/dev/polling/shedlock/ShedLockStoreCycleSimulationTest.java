package dev.polling.shedlock;

import java.util.SplittableRandom;
import java.util.function.LongSupplier;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import dev.polling.core.ClusterCoordinator;
import dev.polling.core.sim.StoreCycleSimulation;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.support.StorageAccessor;
import net.javacrumbs.shedlock.support.StorageBasedLockProvider;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cycle invariant of {@link StoreCycleSimulation} for {@link ShedLockCoordinator}: each process
 * has ShedLock's own {@link StorageBasedLockProvider} (its record cache included) over one simulated
 * store on the virtual clock, which forgets its record now and then (a row deleted, a key evicted).
 * ShedLock hands out no fencing token; the harness checks that none is claimed.
 * {@code -Dpolling.storesim.seeds=N -Dpolling.storesim.decisions=N -Dpolling.storesim.seed=FIRST}.
 */
class ShedLockStoreCycleSimulationTest {

	@Test
	void cyclesNeverOverlapUnlessTheStoreForgotTheLock() {
		StoreCycleSimulation.Stats stats = StoreCycleSimulation.runSeeds("shedlock", ForgetfulStore::new,
				Long.getLong("polling.storesim.seed", 1), Integer.getInteger("polling.storesim.seeds", 20),
				Integer.getInteger("polling.storesim.decisions", 300), System.out);
		assertThat(stats.violations).isZero();
		assertThat(stats.cycles).isPositive();
		assertThat(stats.storeFaults).isPositive();
	}

	/** One lock record on the virtual clock: inserted when missing, updated when lapsed, extended and unlocked by its owner. */
	static final class ForgetfulStore implements StoreCycleSimulation.Store {

		private final LongSupplier nanos;

		private boolean exists;

		private long lockUntil;

		private @Nullable String owner;

		ForgetfulStore(LongSupplier nanos, java.util.function.Supplier<java.time.Instant> wall) {
			this.nanos = nanos;
		}

		@Override
		public ClusterCoordinator coordinator(String instanceId) {
			return ShedLockCoordinator.builder(new StorageBasedLockProvider(new Accessor(instanceId)) {
			})
				.failoverPeriod(StoreCycleSimulation.FAILOVER)
				.nanoTime(this.nanos)
				.build();
		}

		@Override
		public @Nullable String fault(SplittableRandom random) {
			this.exists = false;
			this.owner = null;
			return "forgot the record";
		}

		@Override
		public boolean handsOutTokens() {
			return false;
		}

		private final class Accessor implements StorageAccessor {

			private final String owner;

			Accessor(String owner) {
				this.owner = owner;
			}

			@Override
			public boolean insertRecord(LockConfiguration configuration) {
				if (ForgetfulStore.this.exists) {
					return false;
				}
				take(configuration);
				return true;
			}

			@Override
			public boolean updateRecord(LockConfiguration configuration) {
				if (!ForgetfulStore.this.exists || ForgetfulStore.this.lockUntil > ForgetfulStore.this.nanos.getAsLong()) {
					return false;
				}
				take(configuration);
				return true;
			}

			@Override
			public boolean extend(LockConfiguration configuration) {
				long now = ForgetfulStore.this.nanos.getAsLong();
				if (!ForgetfulStore.this.exists || ForgetfulStore.this.lockUntil <= now || !this.owner.equals(ForgetfulStore.this.owner)) {
					return false;
				}
				ForgetfulStore.this.lockUntil = now + configuration.getLockAtMostFor().toNanos();
				return true;
			}

			@Override
			public void unlock(LockConfiguration configuration) {
				if (ForgetfulStore.this.exists && this.owner.equals(ForgetfulStore.this.owner)) {
					ForgetfulStore.this.lockUntil = Math.min(ForgetfulStore.this.lockUntil, ForgetfulStore.this.nanos.getAsLong());
				}
			}

			private void take(LockConfiguration configuration) {
				ForgetfulStore.this.exists = true;
				ForgetfulStore.this.lockUntil = ForgetfulStore.this.nanos.getAsLong() + configuration.getLockAtMostFor().toNanos();
				ForgetfulStore.this.owner = this.owner;
			}

		}

	}

}
