package dev.polling.core;

import java.time.Duration;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Passes events to the {@link PollingListener}; a failing listener is logged and ignored. */
final class Events {

	private static final Logger logger = LoggerFactory.getLogger(Events.class);

	private final PollingListener listener;

	Events(PollingListener listener) {
		this.listener = listener;
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
