package dev.polling.core.test;

import dev.polling.core.PollingClusterMXBean;

/**
 * A peer's cluster MBean in a test, answering as an idle peer does unless the test says otherwise: never
 * active, not holding, not paused, not a candidate, a 10 s wait time, no cluster id or name. The test gives
 * its instance id and coordination state.
 */
public abstract class IdlePeerMBean implements PollingClusterMXBean {

	@Override
	public String getClusterId() {
		return "";
	}

	@Override
	public String getClusterName() {
		return "";
	}

	@Override
	public long getElapsedMillis() {
		return Long.MAX_VALUE;
	}

	@Override
	public String getLastActivity() {
		return "never";
	}

	@Override
	public boolean isHolding() {
		return false;
	}

	@Override
	public boolean isPaused() {
		return false;
	}

	@Override
	public long getCandidateAgeMillis() {
		return -1;
	}

	@Override
	public long getWaitTimeMillis() {
		return 10_000;
	}

}
