package dev.polling.core;

import java.time.Duration;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Passes events to the {@link PollingListener} and the {@link DecisionObserver}; a failing listener
 * or observer is logged and ignored.
 */
final class Events {

	private static final Logger logger = LoggerFactory.getLogger(Events.class);

	private final PollingListener listener;

	private final DecisionObserver observer;

	Events(PollingListener listener, DecisionObserver observer) {
		this.listener = listener;
		this.observer = observer;
	}

	DecisionObserver.DecisionSpan decisionStarting(String clusterId) {
		try {
			DecisionObserver.DecisionSpan span = this.observer.decisionStarting(clusterId);
			return (span != null) ? span : DecisionObserver.DecisionSpan.NONE;
		}
		catch (RuntimeException ex) {
			logger.debug("Decision observer failed on a decision's start", ex);
			return DecisionObserver.DecisionSpan.NONE;
		}
	}

	static void ended(DecisionObserver.DecisionSpan span, Decision decision) {
		try {
			span.ended(decision);
		}
		catch (RuntimeException ex) {
			logger.debug("Decision observer failed on a decision's end", ex);
		}
	}

	static void failed(DecisionObserver.DecisionSpan span, RuntimeException failure) {
		try {
			span.failed(failure);
		}
		catch (RuntimeException ex) {
			logger.debug("Decision observer failed on a decision's failure", ex);
		}
	}

	static DecisionObserver.PeerRequestSpan requestStarting(DecisionObserver.DecisionSpan span, PeerDefinition peer) {
		try {
			DecisionObserver.PeerRequestSpan request = span.peerRequestStarting(peer);
			return (request != null) ? request : DecisionObserver.PeerRequestSpan.NONE;
		}
		catch (RuntimeException ex) {
			logger.debug("Decision observer failed on a peer request's start", ex);
			return DecisionObserver.PeerRequestSpan.NONE;
		}
	}

	static void requestEnded(DecisionObserver.PeerRequestSpan request, PeerObservation observation) {
		try {
			request.ended(observation);
		}
		catch (RuntimeException ex) {
			logger.debug("Decision observer failed on a peer request's end", ex);
		}
	}

	void decided(Decision decision, List<PeerObservation> observations) {
		for (PeerObservation o : observations) {
			try {
				this.listener.onPeerObservation(decision.clusterId(), o);
			}
			catch (RuntimeException ex) {
				logger.debug("Polling listener failed on peer observation", ex);
			}
		}
		try {
			this.listener.onDecision(decision);
		}
		catch (RuntimeException ex) {
			logger.debug("Polling listener failed on decision", ex);
		}
	}

	void holdChanged(String clusterId, boolean holding, boolean takeover) {
		try {
			this.listener.onHoldChanged(clusterId, holding, takeover);
		}
		catch (RuntimeException ex) {
			logger.debug("Polling listener failed on hold change", ex);
		}
	}

	void cycleOverrun(String clusterId, Duration running) {
		try {
			this.listener.onCycleOverrun(clusterId, running);
		}
		catch (RuntimeException ex) {
			logger.debug("Polling listener failed on cycle overrun", ex);
		}
	}

}
