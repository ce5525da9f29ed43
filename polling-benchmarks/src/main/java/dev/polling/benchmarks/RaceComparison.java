package dev.polling.benchmarks;

import dev.polling.core.PollingSettings;
import dev.polling.core.TestBuilders;
import dev.polling.core.test.GrantRace;

/**
 * Runs the grant race (3 instances with real JMX servers, decisions released at the same instant)
 * with the announce protocol and with the seed's plain check-then-act (which applications cannot
 * select; polling-core's test-jar reaches it through {@link TestBuilders#checkThenAct}), and prints
 * the double grants of each.
 *
 * <p>Run: {@code polling-benchmarks/run.sh RaceComparison [iterations]}
 */
public final class RaceComparison {

	private RaceComparison() {
	}

	public static void main(String[] args) throws Exception {
		int iterations = (args.length > 0) ? Integer.parseInt(args[0]) : 1000;
		GrantRace.Result checkThenAct = GrantRace.run(3, iterations, (s) -> s.withPeerTimeout(PollingSettings.DEFAULT_PEER_TIMEOUT),
				TestBuilders::checkThenAct);
		System.out.println("check-then-act: " + checkThenAct);
		GrantRace.Result announce = GrantRace.run(3, iterations, (s) -> s.withPeerTimeout(PollingSettings.DEFAULT_PEER_TIMEOUT));
		System.out.println("announce:       " + announce);
	}

}
