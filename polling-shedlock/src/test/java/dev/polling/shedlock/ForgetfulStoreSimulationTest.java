package dev.polling.shedlock;

import static dev.polling.shedlock.SimulationRuns.quietly;
import static dev.polling.shedlock.SimulationRuns.seeds;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * Runs {@link ForgetfulStoreSimulation} over many seeds: a quick budget by default, and with
 * {@code -Dpolling.sim.long=true} 1,000 seeds (over 10^6 decisions). A failure names
 * its seed; replay one with {@code -Dpolling.sim.seed=N}.
 */
class ForgetfulStoreSimulationTest {

	private static final boolean LONG = Boolean.getBoolean("polling.sim.long");

	private static final int SEEDS = LONG ? 1_000 : 60;

	/**
	 * Ticks each run counts: those at top level; ticks that fall inside another instance's request run
	 * nested and are not counted, so a run makes more decisions than this (the output says how many).
	 */
	private static final int TICKS = 1_000;

	@Test
	void overAStoreThatForgetsItsLockNoTwoHoldersBeyondTheForgetAndNoLockIsLost() {
		ForgetfulStoreSimulation.Stats total = new ForgetfulStoreSimulation.Stats();
		List<String> violations = new ArrayList<>();
		long[] seeds = seeds(SEEDS);
		for (long seed : seeds) {
			ForgetfulStoreSimulation simulation = new ForgetfulStoreSimulation(seed);
			String violation = quietly(() -> simulation.run(TICKS));
			if (violation != null) {
				violations.add(violation);
				System.err.println("[forgetful-sim] FAILED " + violation + " (replay: -Dpolling.sim.seed=" + seed + ")");
			}
			total.add(simulation.stats);
		}
		System.err.println("[forgetful-sim] " + seeds.length + " seeds x " + TICKS + " ticks: " + total);
		assertThat(violations).as("violations (replay one with -Dpolling.sim.seed=N)").isEmpty();
		if (seeds.length > 1) {
			// the faults happened: the properties were put to the test
			assertThat(total.decisions).isGreaterThanOrEqualTo((long) seeds.length * TICKS * 9 / 10);
			assertThat(total.forgets).isGreaterThan(seeds.length);
			assertThat(total.excusedOverlaps).isGreaterThan(0);
			assertThat(total.grants).isGreaterThan(total.forgets);
			assertThat(total.freezes).isGreaterThan(seeds.length);
			assertThat(total.lostAnswers).isGreaterThan(seeds.length);
			assertThat(total.failedRequests).isGreaterThan(seeds.length);
		}
		// an excused overlap ends by the former holder's next decision or local expiry
		assertThat(total.longestExcusedOverlap).isLessThanOrEqualTo(ForgetfulStoreSimulation.FAILOVER - ForgetfulStoreSimulation.MARGIN);
	}

	@Test
	void aSeedReplaysTheSameRun() {
		ForgetfulStoreSimulation once = new ForgetfulStoreSimulation(7);
		ForgetfulStoreSimulation again = new ForgetfulStoreSimulation(7);
		assertThat(quietly(() -> again.run(TICKS))).isEqualTo(quietly(() -> once.run(TICKS)));
		assertThat(again.stats).hasToString(once.stats.toString());
	}

}
