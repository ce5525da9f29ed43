package dev.polling.core;

import java.time.Duration;

/**
 * Reaches the builder's test-only settings from the tests of other packages (the JMX transport's,
 * the shared fixtures in {@code dev.polling.core.test}).
 */
public final class TestBuilders {

	private TestBuilders() {
	}

	/**
	 * For tests whose subject is not stop detection: only a gap of ten minutes counts as a stop of the
	 * JVM, so that a test JVM starved on a loaded machine (gaps of 250-470 ms were seen with a 500 ms
	 * peer timeout at load average 4 on 2 cores) is not refused with STOPPED. Stops the test records
	 * itself ({@code stopDetector().recordStop}) still count.
	 * @param builder the builder
	 * @return the builder
	 */
	public static PollingManager.Builder ignoringStarvation(PollingManager.Builder builder) {
		return builder.stopThreshold(Duration.ofMinutes(10));
	}

	/**
	 * For the simulation that must catch it and the grant-race benchmark: a free cluster is acquired
	 * with the seed's check-then-act, which grants two instances whose decisions overlap. Applications
	 * cannot select it ({@code GrantProtocol} and the builder's setter are package-private).
	 * @param builder the builder
	 * @return the builder
	 */
	public static PollingManager.Builder checkThenAct(PollingManager.Builder builder) {
		return builder.grantProtocol(GrantProtocol.CHECK_THEN_ACT);
	}

}
