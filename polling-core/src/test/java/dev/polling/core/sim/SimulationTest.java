package dev.polling.core.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * The simulation over many seeds: no two holders and no two cycles (cycle bodies as the user sees
 * them) among instances that reach each other, also while a rolling configuration change puts
 * instances with different wait times side by side, and a takeover in time once the holder is gone. Quick budget by default (runs in {@code ./mvnw verify});
 * the long run:
 *
 * <pre>
 * ./mvnw -B -o -pl polling-core test -Dtest=SimulationTest -Dpolling.sim.seeds=1000 -Dpolling.sim.decisions=1000
 * </pre>
 *
 * {@code -Dpolling.sim.seed=N} starts at seed N (with {@code -Dpolling.sim.seeds=1} it replays one seed).
 * A failure is shrunk ({@link Shrinker}) and reported with its seed, set-up and trace.
 */
class SimulationTest {

	static final int SEEDS = Integer.getInteger("polling.sim.seeds", 200);

	static final int DECISIONS = Integer.getInteger("polling.sim.decisions", 200);

	static final long FIRST_SEED = Long.getLong("polling.sim.seed", 0L);

	@Test
	void atMostOneHolderAndTakeoverInTime() {
		long decisions = 0;
		long excused = 0;
		long grants = 0;
		long stops = 0;
		long takeovers = 0;
		long maxTakeover = 0;
		long virtual = 0;
		CycleStats cycles = new CycleStats();
		List<String> failures = new ArrayList<>();
		long began = System.nanoTime();
		for (long seed = FIRST_SEED; seed < FIRST_SEED + SEEDS; seed++) {
			SimResult r = Simulation.run(SimConfig.forSeed(seed, DECISIONS), seed);
			decisions += r.decisions();
			excused += r.excused();
			grants += r.grants();
			stops += r.stopsDetected();
			virtual += r.virtualNanos();
			cycles.add(r.cycles());
			if (r.takeoverNanos() >= 0) {
				takeovers++;
				maxTakeover = Math.max(maxTakeover, r.takeoverNanos());
			}
			if (r.failed()) {
				SimResult small = Shrinker.shrink(r);
				failures.add(r.report() + "\nshrunk to:\n" + small.report());
				break;
			}
		}
		System.out.println("simulation: seeds=" + SEEDS + " decisions=" + decisions + " violations=" + failures.size() + " excused="
				+ excused + " acquisitions=" + grants + " stopsDetected=" + stops + " takeovers=" + takeovers + " maxTakeoverMs="
				+ maxTakeover / 1_000_000L + " " + cycles + " virtualHours=" + virtual / 3_600_000_000_000L + " wallSeconds="
				+ (System.nanoTime() - began) / 1_000_000_000L);
		assertThat(failures).as("violations").isEmpty();
		assertThat(decisions).isGreaterThanOrEqualTo((long) SEEDS * DECISIONS);
		assertThat(takeovers).as("runs whose liveness phase measured a takeover").isEqualTo(SEEDS);
		assertThat(maxTakeover).isLessThanOrEqualTo(SimConfig.TAKEOVER_BOUND.toNanos());
		assertThat(grants).as("acquisitions").isGreaterThan(SEEDS);
		assertThat(cycles.cycles()).as("cycle bodies run").isGreaterThan((long) SEEDS * DECISIONS / 10);
		if (SEEDS >= 20) {
			assertThat(stops).as("stops detected").isPositive();
			// rolling configuration changes (a quarter of the seeds) put instances with other settings side by side
			assertThat(cycles.mismatchRefusals).as("refusals for other settings").isPositive();
			assertThat(cycles.mismatchRenewals).as("holders that kept the cluster beside other settings").isPositive();
		}
	}

}
