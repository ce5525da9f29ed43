package dev.polling.core.sim;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A seed replays to the identical trace. */
class SimReplayTest {

	@Test
	void aSeedReplaysToTheIdenticalTrace() {
		for (long seed : new long[] { 4, 17, 9_001 }) {
			SimConfig config = SimConfig.forSeed(seed, 300);
			SimResult first = Simulation.run(config, seed);
			SimResult second = Simulation.run(config, seed);
			assertThat(first.trace().lines()).as("seed %d", seed).isGreaterThan(1_000);
			assertThat(second.trace().lines()).isEqualTo(first.trace().lines());
			assertThat(second.trace().digest()).isEqualTo(first.trace().digest());
			assertThat(second.trace().tail()).isEqualTo(first.trace().tail());
			assertThat(second.decisions()).isEqualTo(first.decisions());
			assertThat(second.virtualNanos()).isEqualTo(first.virtualNanos());
		}
	}

	@Test
	void anotherSeedGivesAnotherTrace() {
		SimConfig config = SimConfig.forSeed(4, 300);
		assertThat(Simulation.run(config, 4).trace().digest()).isNotEqualTo(Simulation.run(config, 4 + 5).trace().digest());
	}

}
