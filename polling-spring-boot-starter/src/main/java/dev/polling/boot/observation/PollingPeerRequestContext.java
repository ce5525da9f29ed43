package dev.polling.boot.observation;

import dev.polling.core.PeerDefinition;
import dev.polling.core.PeerObservation;
import org.jspecify.annotations.Nullable;

/**
 * What an observation of one request to a peer during a decision carries: the cluster, the peer,
 * and, once it ended, what the decision learnt of it (answered, refused, timed out, a fault).
 */
public class PollingPeerRequestContext extends ClusterObservationContext<PeerDefinition, PeerObservation> {

	public PollingPeerRequestContext(String clusterId, PeerDefinition peer) {
		super(clusterId, peer);
	}

	public PeerDefinition getPeer() {
		return this.subject;
	}

	/**
	 * The peer's observation.
	 * @return it, or {@code null} while the request is under way
	 */
	public @Nullable PeerObservation getObservation() {
		return this.result;
	}

}
