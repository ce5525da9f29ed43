package dev.polling.core;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import dev.polling.core.test.GrantRace;

class GrantRaceTest {

	@Test
	void grantsAtMostOneOfThreeInstancesWhoseDecisionsStartAtTheSameInstantAThousandTimes() throws Exception {
		GrantRace.Result result = GrantRace.run(3, Integer.getInteger("race.iterations", 300),
				(settings) -> settings.withPeerTimeout(PollingSettings.DEFAULT_PEER_TIMEOUT));
		System.out.println("announce protocol: " + result);
		// The guarantee: no double grant among peers that answer.
		assertThat(result.doubleGrantsAllAnswering()).isZero();
		// A peer that does not answer within the peer timeout counts as idle (policy PROCEED); on this
		// loopback setup with a 2 s timeout that should be rare.
		assertThat(result.doubleGrants()).isLessThanOrEqualTo(result.roundsWithUnknownPeer());
		// most rounds had every peer answering, so the first assertion is about something (a starved CI
		// machine may let a peer miss the 2 s timeout now and then)
		assertThat(result.roundsWithUnknownPeer()).isLessThan(result.iterations() / 10);
		assertThat(result.iterations()).isEqualTo(Integer.getInteger("race.iterations", 300));
		// Liveness: simultaneous candidates agree by instance id, so most rounds have a winner (on a quiet
		// machine over 95%; at load average 4-8 on 2 cores 884-887 of 1000, rounds without a winner being
		// decisions that outran their deadline).
		assertThat(result.singleGrant()).isGreaterThan(result.iterations() / 2);
	}

}
