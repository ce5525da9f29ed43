package dev.polling.benchmarks;

import dev.polling.core.GrantProtocol;
import dev.polling.core.PollingSettings;
import dev.polling.core.test.GrantRace;

/**
 * Runs the grant race (3 instances with real JMX servers, decisions released at the same instant)
 * with the announce protocol and with the seed's plain check-then-act, and prints the double grants
 * of each.
 *
 * <p>Run: {@code polling-benchmarks/run.sh RaceComparison [iterations]}
 */
public final class RaceComparison {

	private RaceComparison() {
	}

	public static void main(String[] args) throws Exception {
		int iterations = (args.length > 0) ? Integer.parseInt(args[0]) : 1000;
		GrantRace.Result checkThenAct = GrantRace.run(3, iterations, (s) -> s.withGrantProtocol(GrantProtocol.CHECK_THEN_ACT)
			.withPeerTimeout(PollingSettings.DEFAULT_PEER_TIMEOUT));
		System.out.println("check-then-act: " + checkThenAct);
		GrantRace.Result announce = GrantRace.run(3, iterations, (s) -> s.withPeerTimeout(PollingSettings.DEFAULT_PEER_TIMEOUT));
		System.out.println("announce:       " + announce);
	}

}
