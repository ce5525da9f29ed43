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
