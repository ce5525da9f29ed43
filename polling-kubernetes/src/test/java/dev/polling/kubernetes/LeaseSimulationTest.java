package dev.polling.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import org.junit.jupiter.api.Test;

import dev.polling.kubernetes.LeaseCoordinator.Expiry;

/**
 * The decision logic under delays, lost answers, failed requests, frozen instances and clocks of
 * slightly different rates and skewed wall clocks (see {@link LeaseSimulation} for the model and the
 * invariant). A failure names its seed; rerun one with {@code new LeaseSimulation(seed, ...).run(STEPS)}.
 */
class LeaseSimulationTest {

	static final int SEEDS = 200;

	static final int STEPS = 10_000;

	@Test
	void noTwoInstancesHoldOverlappingGrantsAndEpochsGrowWithEachNewHolder() {
		int grants = 0;
		int holderChanges = 0;
		int conflicts = 0;
		int faults = 0;
		for (long seed = 1; seed <= SEEDS; seed++) {
			LeaseSimulation simulation = new LeaseSimulation(seed, Expiry.OBSERVED_CHANGE).run(STEPS);
			grants += simulation.grants;
			holderChanges += simulation.holderChanges;
			conflicts += simulation.conflicts;
			faults += simulation.faults;
		}
		System.out.printf("%d seeds x %d steps: %d grants, %d holder changes, %d conflicts, %d faults%n", SEEDS, STEPS, grants,
				holderChanges, conflicts, faults);
		// the simulation exercised what it is for: takeovers, conflicting writes, faults
		assertThat(grants).isGreaterThan(SEEDS * STEPS / 10);
		assertThat(holderChanges).isGreaterThan(SEEDS * 5);
		assertThat(conflicts).isGreaterThan(SEEDS);
		assertThat(faults).isGreaterThan(SEEDS * 10);
	}

	/**
	 * The same invariant with a store that forgets (the Lease deleted, or replaced by an older copy
	 * with fewer transitions and a gone holder) and instances with lease durations of 15 s and 30 s.
	 * Quick budget here; the long run and the replay of one seed:
	 * {@code ./mvnw -B -pl polling-kubernetes -am test -Dtest=LeaseSimulationTest#*Hostile* -Dsurefire.failIfNoSpecifiedTests=false
	 * -Dpolling.lease.seeds=1000 -Dpolling.lease.steps=10000} ({@code -Dpolling.lease.seed=N -Dpolling.lease.seeds=1} replays seed N).
	 */
	@Test
	void withLeasesDeletedOrRestoredAndMixedLeaseDurationsNoTwoInstancesHoldAndTokensOnlyGrow() {
		int seeds = Integer.getInteger("polling.lease.seeds", SEEDS);
		int steps = Integer.getInteger("polling.lease.steps", STEPS / 2);
		long first = Long.getLong("polling.lease.seed", 1);
		long started = System.nanoTime();
		long decisions = 0;
		long grants = 0;
		long holderChanges = 0;
		long deletes = 0;
		long restores = 0;
		long excused = 0;
		long mixedTakeovers = 0;
		long virtualMillis = 0;
		for (long seed = first; seed < first + seeds; seed++) {
			LeaseSimulation simulation = new LeaseSimulation(seed, Expiry.OBSERVED_CHANGE, true).run(steps);
			decisions += steps;
			grants += simulation.grants;
			holderChanges += simulation.holderChanges;
			deletes += simulation.deletes;
			restores += simulation.restores;
			excused += simulation.excused;
			mixedTakeovers += simulation.mixedTakeovers;
			virtualMillis += simulation.virtualMillis();
		}
		System.out.printf("lease simulation (hostile store): seeds=%d decisions=%d violations=0 grants=%d holderChanges=%d deletes=%d "
				+ "restores=%d mixedDurationTakeovers=%d excusedTokens=%d virtualHours=%d wallSeconds=%d%n", seeds, decisions, grants,
				holderChanges, deletes, restores, mixedTakeovers, excused, virtualMillis / 3_600_000L,
				(System.nanoTime() - started) / 1_000_000_000L);
		// the run exercised what it is for: deletes, restores, takeovers between different lease durations
		assertThat(deletes).isGreaterThan(seeds);
		assertThat(restores).isGreaterThan(seeds / 2);
		assertThat(mixedTakeovers).isGreaterThan(seeds);
		assertThat(holderChanges).isGreaterThan(seeds * 5L);
	}

	@Test
	void theInvariantCatchesExpiryJudgedByRenewTimeAgainstASkewedWallClock() {
		assertCaught(Expiry.WALL_CLOCK_RENEW_TIME);
	}

	@Test
	void theInvariantCatchesExpiryCountedFromWhenTheReadWasSent() {
		assertCaught(Expiry.CHANGE_FROM_READ_SENT);
	}

	private static void assertCaught(Expiry broken) {
		for (long seed = 1; seed <= SEEDS; seed++) {
			try {
				new LeaseSimulation(seed, broken).run(STEPS);
			}
			catch (AssertionError expected) {
				System.out.println("caught " + broken + ": " + expected.getMessage());
				assertThat(expected).hasMessageContaining("seed " + seed).hasMessageContaining("grants overlap");
				return;
			}
		}
		fail("no seed of %d showed overlapping grants with expiry %s", SEEDS, broken);
	}

}
