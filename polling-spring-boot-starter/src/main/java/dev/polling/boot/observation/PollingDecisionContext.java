package dev.polling.boot.observation;

import dev.polling.core.Decision;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * What an observation of one polling decision carries: the cluster, the instance deciding, and,
 * once made, the decision (or the failure, through {@link #getError()}).
 */
public class PollingDecisionContext extends Observation.Context {

	private final String clusterId;

	private final String instanceId;

	private @Nullable Decision decision;

	public PollingDecisionContext(String clusterId, String instanceId) {
		this.clusterId = clusterId;
		this.instanceId = instanceId;
	}

	public String getClusterId() {
		return this.clusterId;
	}

	public String getInstanceId() {
		return this.instanceId;
	}

	/**
	 * The decision.
	 * @return it, or {@code null} while it is being made or when it failed
	 */
	public @Nullable Decision getDecision() {
		return this.decision;
	}

	void setDecision(Decision decision) {
		this.decision = decision;
	}

}
