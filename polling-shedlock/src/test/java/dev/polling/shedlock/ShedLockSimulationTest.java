package dev.polling.shedlock;

import static dev.polling.shedlock.SimulationRuns.quietly;
import static dev.polling.shedlock.SimulationRuns.seeds;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * Runs {@link ShedLockSimulation} over many seeds. A failure names its seed; replay one with
 * {@code -Dpolling.sim.seed=N} (and {@code -Dtest=ShedLockSimulationTest}).
 */
class ShedLockSimulationTest {

	private static final int SEEDS = 200;

	private static final int TICKS = 2_000;

	@Test
	void noTwoInstancesEverBelieveTheyHoldAtOnceAndTheStoreAgrees() {
		ShedLockSimulation.Stats total = new ShedLockSimulation.Stats();
		List<String> violations = new ArrayList<>();
		for (long seed : seeds(SEEDS)) {
			ShedLockSimulation simulation = new ShedLockSimulation(seed, true);
			String violation = quietly(() -> simulation.run(TICKS));
			if (violation != null) {
				violations.add(violation);
				System.err.println("[sim] FAILED " + violation + " (replay: -Dpolling.sim.seed=" + seed + ")");
			}
			total.add(simulation.stats);
		}
		System.err.println("[sim] " + seeds(SEEDS).length + " seeds x " + TICKS + " ticks: " + total);
		assertThat(violations).as("violations (replay one with -Dpolling.sim.seed=N)").isEmpty();
		// the faults happened: the invariant was put to the test
		assertThat(total.grants).isGreaterThan(1_000);
		assertThat(total.freezes).isGreaterThan(1_000);
		assertThat(total.releases).isGreaterThan(1_000);
		assertThat(total.lostAnswers).isGreaterThan(1_000);
		assertThat(total.failedRequests).isGreaterThan(1_000);
		assertThat(total.unavailable).isGreaterThan(1_000);
	}

	/** The invariants catch a coordinator without the local expiry guard: some seed fails. */
	@Test
	void withoutTheLocalExpiryGuardSomeSeedFails() {
		String first = null;
		int failed = 0;
		for (long seed : seeds(SEEDS)) {
			String violation = quietly(() -> new ShedLockSimulation(seed, false).run(TICKS));
			if (violation != null) {
				failed++;
				if (first == null) {
					first = violation;
				}
			}
		}
		System.err.println("[sim] without the guard " + failed + " of " + seeds(SEEDS).length + " seeds fail, first: " + first);
		assertThat(first).as("a violation without the guard").isNotNull();
	}

	@Test
	void aSeedReplaysTheSameRun() {
		ShedLockSimulation once = new ShedLockSimulation(42, false);
		ShedLockSimulation again = new ShedLockSimulation(42, false);
		assertThat(quietly(() -> again.run(TICKS))).isEqualTo(quietly(() -> once.run(TICKS)));
		assertThat(again.stats).hasToString(once.stats.toString());
	}

}
