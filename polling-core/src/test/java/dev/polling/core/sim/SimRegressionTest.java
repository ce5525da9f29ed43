package dev.polling.core.sim;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Seeds that once found a violation in the product, replayed. */
class SimRegressionTest {

	/**
	 * Seed 942 (5 instances, presume-last-known, mix "stops"): c read its second round (nobody holding),
	 * then its timer thread was not scheduled for 1.8 s inside the grant, after the too-slow check had
	 * passed. Meanwhile b read c as a candidate 1723 and 1776 ms old, older than peers count a candidacy
	 * (1550 ms), ignored it and was granted; then c's grant went through: two holders that answered each
	 * other. Fixed by refusing the grant itself once the candidacy is older than that.
	 */
	@Test
	void aCandidateStalledInsideItsGrantIsNotGrantedAfterPeersCountedItStale() {
		SimConfig config = SimConfig.forSeed(942, 200);
		assertThat(config.faults()).isEqualTo(FaultMix.STOPS);
		SimResult r = Simulation.run(config, 942);
		assertThat(r.violation()).as(r.failed() ? r.report() : "").isNull();
		assertThat(r.decisions()).isGreaterThanOrEqualTo(200);
	}

}
