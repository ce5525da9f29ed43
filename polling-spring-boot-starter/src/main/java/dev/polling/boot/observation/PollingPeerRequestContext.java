package dev.polling.boot.observation;

import dev.polling.core.PeerDefinition;
import dev.polling.core.PeerObservation;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * What an observation of one request to a peer during a decision carries: the cluster, the peer,
 * and, once it ended, what the decision learnt of it (answered, refused, timed out, a fault).
 */
public class PollingPeerRequestContext extends Observation.Context {

	private final String clusterId;

	private final PeerDefinition peer;

	private @Nullable PeerObservation observation;

	public PollingPeerRequestContext(String clusterId, PeerDefinition peer) {
		this.clusterId = clusterId;
		this.peer = peer;
	}

	public String getClusterId() {
		return this.clusterId;
	}

	public PeerDefinition getPeer() {
		return this.peer;
	}

	/**
	 * The peer's observation.
	 * @return it, or {@code null} while the request is under way
	 */
	public @Nullable PeerObservation getObservation() {
		return this.observation;
	}

	void setObservation(PeerObservation observation) {
		this.observation = observation;
	}

}
