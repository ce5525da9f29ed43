package dev.polling.core;

/**
 * Brackets each decision and each peer request it makes, for tracing and timing (the starter maps
 * them to Micrometer observations). Unlike a {@link PollingListener}, which hears of a decision
 * when it is made, an observer is called when it starts, so that what it measures covers the
 * decision's whole duration and the peer requests fall inside it.
 * <p>
 * Threads: {@link #decisionStarting} and the decision span's methods run on the deciding thread,
 * one decision of a cluster at a time; {@link PeerRequestSpan#ended} runs on the thread
 * that completed the request (a peer client's worker, or the deciding thread when the request
 * timed out), exactly once per request. Implementations must be fast and must not throw
 * (exceptions are logged at debug level and ignored).
 */
public interface DecisionObserver {

	/** An observer that does nothing. */
	DecisionObserver NONE = (clusterId) -> DecisionSpan.NONE;

	/**
	 * A decision of the cluster starts.
	 * @param clusterId the cluster
	 * @return its span, ended when the decision is made or failed
	 */
	DecisionSpan decisionStarting(String clusterId);

	/** One decision, from its start to its outcome. */
	interface DecisionSpan {

		/** A span that does nothing. */
		DecisionSpan NONE = new DecisionSpan() {

			@Override
			public void ended(Decision decision) {
			}

			@Override
			public void failed(RuntimeException failure) {
			}

		};

		/**
		 * The decision asks a peer (each round asks again).
		 * @param peer the peer asked
		 * @return the request's span, ended once with the peer's observation
		 */
		default PeerRequestSpan peerRequestStarting(PeerDefinition peer) {
			return PeerRequestSpan.NONE;
		}

		/**
		 * The decision was made.
		 * @param decision the decision
		 */
		void ended(Decision decision);

		/**
		 * The decision failed with an exception instead (a coordinator's or the peer client's fault).
		 * @param failure what it threw
		 */
		void failed(RuntimeException failure);

	}

	/** One request to a peer. */
	interface PeerRequestSpan {

		/** A span that does nothing. */
		PeerRequestSpan NONE = (observation) -> {
		};

		/**
		 * The peer answered, failed, or did not answer within the peer timeout.
		 * @param observation what the decision learnt of the peer
		 */
		void ended(PeerObservation observation);

	}

}
