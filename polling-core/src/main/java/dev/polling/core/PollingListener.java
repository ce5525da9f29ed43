package dev.polling.core;

/**
 * Receives events from a {@link PollingManager}, for metrics and logs. Every method has a no-op
 * default; implementations must be fast and must not throw (exceptions are logged and ignored).
 */
public interface PollingListener {

	/** A listener that does nothing. */
	PollingListener NONE = new PollingListener() {
	};

	/** A decision was made. */
	default void onDecision(Decision decision) {
	}

	/** A peer was observed during a decision of the given cluster. */
	default void onPeerObservation(String clusterId, PeerObservation observation) {
	}

	/**
	 * This instance started or stopped holding a cluster.
	 * @param clusterId the cluster
	 * @param holding whether it holds now
	 * @param takeover true when it acquired a cluster that a peer was last seen holding (false for a
	 *        first acquisition nobody held before, and whenever {@code holding} is false)
	 */
	default void onHoldChanged(String clusterId, boolean holding, boolean takeover) {
	}

	/**
	 * A cycle of the cluster has run longer than the wait time and still runs (reported once per
	 * wait time while it does). The hold stays alive while the cycle runs, unless the cluster has a
	 * maximum cycle time.
	 * @param clusterId the cluster
	 * @param running how long the cycle has run
	 */
	default void onCycleOverrun(String clusterId, java.time.Duration running) {
	}

}
