package dev.polling.shedlock;

import java.util.SplittableRandom;
import java.util.function.LongPredicate;
import java.util.function.LongSupplier;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import dev.polling.core.ClusterCoordinator;
import dev.polling.core.sim.StoreCycleSimulation;
import net.javacrumbs.shedlock.support.StorageBasedLockProvider;


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
		StoreCycleSimulation.checkSeeds("shedlock", ForgetfulStore::new, 20);
	}

	/** One lock record on the virtual clock: inserted when missing, updated when lapsed, extended and unlocked by its owner. */
	static final class ForgetfulStore implements StoreCycleSimulation.Store {

		private final LongSupplier nanos;

		private final LockRecord record = new LockRecord();

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
			this.record.forget();
			return "forgot the record";
		}

		@Override
		public boolean handsOutTokens() {
			return false;
		}

		/** The record as one process reaches it: each request applied at once. */
		private final class Accessor extends LockRecord.Accessor {

			Accessor(String owner) {
				super(ForgetfulStore.this.record, owner);
			}

			@Override
			boolean request(String what, LongPredicate atRecord) {
				return atRecord.test(ForgetfulStore.this.nanos.getAsLong());
			}

		}

	}

}
