package dev.polling.core.sim;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import dev.polling.core.UnreachablePeerPolicy;

/**
 * The harness can fail: the seed's check-then-act grant (not selectable by applications; the tests
 * reach it through {@link dev.polling.core.TestBuilders#checkThenAct}) lets two instances whose decisions overlap both grant, and the invariant checker must
 * catch that within the quick budget, on a network without loss (so no excusal applies).
 */
class SimBadConfigurationTest {

	@Test
	void checkThenActIsCaughtWithinTheQuickBudget() {
		SimResult failure = null;
		int seeds = 0;
		for (long seed = 0; seed < SimulationTest.SEEDS && failure == null; seed++) {
			seeds++;
			SimConfig config = SimConfig.forSeed(seed, SimulationTest.DECISIONS)
				.withCheckThenAct(true)
				.withPolicy(UnreachablePeerPolicy.PROCEED)
				.withFaults(FaultMix.LIFECYCLE);
			SimResult r = Simulation.run(config, seed);
			if (r.failed()) {
				failure = r;
			}
		}
		assertThat(failure).as("a violation of check-then-act within " + seeds + " seeds").isNotNull();
		assertThat(failure.violation()).startsWith("two holders");
		SimResult small = Shrinker.shrink(failure);
		assertThat(small.violation()).startsWith("two holders");
		assertThat(small.decisionsAtViolation()).isLessThanOrEqualTo(failure.decisionsAtViolation());
		System.out.println("check-then-act caught after " + seeds + " seeds; shrunk:\n" + small.report());
	}

	@Test
	void theSameSeedsWithTheAnnounceProtocolHaveNoViolation() {
		for (long seed = 0; seed < 20; seed++) {
			SimConfig config = SimConfig.forSeed(seed, SimulationTest.DECISIONS)
				.withPolicy(UnreachablePeerPolicy.PROCEED)
				.withFaults(FaultMix.LIFECYCLE);
			SimResult r = Simulation.run(config, seed);
			assertThat(r.violation()).as("seed %d", seed).isNull();
		}
	}

}
