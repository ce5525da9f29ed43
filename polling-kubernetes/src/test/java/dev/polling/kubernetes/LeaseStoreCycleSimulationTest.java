package dev.polling.kubernetes;

import java.lang.reflect.Proxy;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.polling.core.ClusterCoordinator;
import dev.polling.core.sim.StoreCycleSimulation;
import dev.polling.kubernetes.LeaseCoordinator.Expiry;
import dev.polling.kubernetes.LeaseStore.LeaseRecord;
import dev.polling.kubernetes.LeaseStore.Observed;
import dev.polling.kubernetes.LeaseStore.Write;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cycle invariant and the fencing property of {@link StoreCycleSimulation} for
 * {@link LeaseCoordinator} over the simulated Lease API of {@link SimulatedLeases} (the store of
 * {@link LeaseSimulation}), each request atomic on the virtual clock. The store's faults: the Lease
 * is deleted under its holder, or replaced by an older copy of itself (a namespace restored from a
 * backup: fewer transitions, the holder it named then). Each process is configured with a lease
 * duration of 40 s or 60 s (a rolling change of {@code lease-duration}) and a renew deadline of
 * 50-90 % of it.
 *
 * <p>The coordinator claims to survive these faults, so they excuse nothing by themselves: an
 * overlap is excused only as the documented gap of a restored or deleted Lease taken by a process that
 * never saw a token as high as the ones written before ({@code unseenRestore}). A fresh process (one
 * that has looked at the Lease for less than a lease duration) takes nothing before it has seen it
 * unchanged for that long, so a Lease deleted under a running holder excuses nothing (before, the
 * coordinator created a missing Lease at once when it had never seen it, and such overlaps were
 * excused as {@code freshInstance}). A token not above one granted before is
 * excused only after an instance logged at WARN that the store lost history ({@code tokenResets}),
 * or, counted apart as {@code tokenResetsUnlogged}, after a delete or restore by a process that never
 * saw the higher token (a process that finds a restored copy cannot know of it and logs nothing).
 * {@code -Dpolling.storesim.seeds=N -Dpolling.storesim.decisions=N -Dpolling.storesim.seed=FIRST}.
 */
class LeaseStoreCycleSimulationTest {

	/** Thousands of simulated resets: logged under the simulations' own name, off in the tests' logging configuration. */
	private static final Logger LOGGER = LoggerFactory.getLogger("dev.polling.kubernetes.simulation");

	private static final String PREFIX = "polling-";

	/**
	 * A Lease deleted or restored from an older copy (one its holder had released) taken by a process that
	 * never saw a token as high as the ones written before the fault: it cannot tell the copy from a release.
	 */
	static final String UNSEEN_RESTORE = "unseenRestore";

	@Test
	void cyclesNeverOverlapAndTokensRiseUnlessAResetWasLogged() {
		StoreCycleSimulation.Stats stats = StoreCycleSimulation.checkSeeds("lease", LeaseStoreSim::new, 30);
		assertThat(stats.tokens).isPositive();
	}

	/** The simulated Lease API shared by every process of one seed. */
	static final class LeaseStoreSim implements StoreCycleSimulation.Store {

		private final SimulatedLeases leases = new SimulatedLeases();

		private final LongSupplier nanos;

		private final Supplier<Instant> wall;

		/** Every record written, oldest first: the copies a restore may put back. */
		private final List<LeaseRecord> written = new ArrayList<>();

		/** When an instance logged that the store lost history. */
		private final List<Long> resets = new ArrayList<>();

		/** Each fault: when (simulation nanos) and the highest leaseTransitions written before it. */
		private final List<long[]> faults = new ArrayList<>();

		/** Each instance's current process's way to the API. */
		private final Map<String, Api> processes = new HashMap<>();

		LeaseStoreSim(LongSupplier nanos, Supplier<Instant> wall) {
			this.nanos = nanos;
			this.wall = wall;
		}

		@Override
		public ClusterCoordinator coordinator(String instanceId) {
			throw new UnsupportedOperationException("each process draws its lease duration from the seed");
		}

		@Override
		public ClusterCoordinator coordinator(String instanceId, SplittableRandom random) {
			Duration lease = random.nextBoolean() ? StoreCycleSimulation.FAILOVER : StoreCycleSimulation.FAILOVER.multipliedBy(3).dividedBy(2);
			Duration renew = Duration.ofNanos((long) (lease.toNanos() * (0.5 + 0.4 * random.nextDouble())));
			Clock clock = SimulatedLeases.wallClock(this.wall);
			Api api = new Api();
			this.processes.put(instanceId, api);
			return new LeaseCoordinator(api, lease, renew, PREFIX, this.nanos, clock, Expiry.OBSERVED_CHANGE, noting(instanceId));
		}

		@Override
		public @Nullable String fault(SplittableRandom random) {
			String name = LeaseCoordinator.leaseName(PREFIX, StoreCycleSimulation.CLUSTER);
			Observed current = this.leases.get(name);
			if (current == null) {
				return null;
			}
			this.faults.add(new long[] { this.nanos.getAsLong(), this.written.stream().mapToLong(LeaseRecord::transitions).max().orElse(-1) });
			List<LeaseRecord> older = this.written.stream().filter((r) -> r.transitions() < current.record().transitions()).toList();
			if (!older.isEmpty() && random.nextInt(10) < 3) {
				LeaseRecord copy = older.get(random.nextInt(older.size()));
				this.leases.restore(name, copy);
				return "restored an older copy (transitions " + copy.transitions() + ", holder " + copy.holder() + ")";
			}
			this.leases.delete(name);
			return "deleted the Lease";
		}

		/**
		 * One delete or restore every 2 minutes on average, not every 35 s: after a delete the coordinator
		 * grants nothing new until a reservation has stood for a lease duration (40 or 60 s here), so at the
		 * default rate a cluster without a holder would rarely get one, and the cycles checked would be few.
		 */
		@Override
		public Duration faultSpread() {
			return Duration.ofSeconds(240);
		}

		@Override
		public boolean handsOutTokens() {
			return true;
		}

		@Override
		public boolean faultsExcuse() {
			return false;
		}

		@Override
		public List<String> gapNames() {
			return List.of(UNSEEN_RESTORE);
		}

		@Override
		public @Nullable String gap(String earlierInstanceId, String instanceId, long from, long to) {
			Api process = this.processes.get(instanceId);
			boolean unseen = process != null
					&& this.faults.stream().anyMatch((f) -> f[0] >= from && f[0] <= to && process.seenBeforeGrant < f[1]);
			return unseen ? UNSEEN_RESTORE : null;
		}

		@Override
		public boolean neverSaw(String instanceId, long token) {
			Api process = this.processes.get(instanceId);
			return process != null && process.seenBeforeGrant < token;
		}

		@Override
		public boolean resetLogged(long from, long to) {
			return this.resets.stream().anyMatch((at) -> at >= from && at <= to);
		}

		/** The simulations' logger, noting the warnings that the store lost history. */
		private Logger noting(String instanceId) {
			return (Logger) Proxy.newProxyInstance(Logger.class.getClassLoader(), new Class<?>[] { Logger.class }, (proxy, method, args) -> {
				if (method.getName().equals("warn") && args != null && args[0] instanceof String format) {
					long now = this.nanos.getAsLong();
					if (format.contains("went back") || format.contains("is not known here") || format.contains("knows no earlier fencing token")) {
						this.resets.add(now);
					}
				}
				return method.invoke(LOGGER, args);
			});
		}

		/** One process's way to the API: each request applied and answered at once (the harness adds failures and lost answers). */
		private final class Api implements LeaseStore {

			/** The highest leaseTransitions this process has read or written. */
			long highest = -1;

			/** {@link #highest} before its last grant (a write with other transitions than its write before; its own write does not count). */
			long seenBeforeGrant = -1;

			long lastWritten = -1;

			@Override
			public @Nullable Observed get(String name) {
				Observed observed = LeaseStoreSim.this.leases.get(name);
				if (observed != null) {
					this.highest = Math.max(this.highest, observed.record().transitions());
				}
				return observed;
			}

			@Override
			public Write create(String name, LeaseRecord record) {
				return written(LeaseStoreSim.this.leases.create(name, record));
			}

			@Override
			public Write update(String name, String resourceVersion, LeaseRecord record) {
				return written(LeaseStoreSim.this.leases.update(name, resourceVersion, record));
			}

			private Write written(@Nullable Observed observed) {
				if (observed == null) {
					return Write.CONFLICT;
				}
				if (observed.record().transitions() != this.lastWritten) {
					this.seenBeforeGrant = this.highest;
					this.lastWritten = observed.record().transitions();
				}
				this.highest = Math.max(this.highest, observed.record().transitions());
				LeaseStoreSim.this.written.add(observed.record());
				if (LeaseStoreSim.this.written.size() > 200) {
					LeaseStoreSim.this.written.remove(0);
				}
				return new Write(observed);
			}

			@Override
			public String describe() {
				return "simulated Lease API";
			}

		}

	}

}
