package dev.polling.boot.observation;

import dev.polling.core.Decision;
import org.jspecify.annotations.Nullable;

/**
 * What an observation of one polling decision carries: the cluster, the instance deciding, and,
 * once made, the decision (or the failure, through {@link #getError()}).
 */
public class PollingDecisionContext extends ClusterObservationContext<String, Decision> {

	public PollingDecisionContext(String clusterId, String instanceId) {
		super(clusterId, instanceId);
	}

	public String getInstanceId() {
		return this.subject;
	}

	/**
	 * The decision.
	 * @return it, or {@code null} while it is being made or when it failed
	 */
	public @Nullable Decision getDecision() {
		return this.result;
	}

}
