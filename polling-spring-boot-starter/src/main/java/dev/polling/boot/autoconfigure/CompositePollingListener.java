package dev.polling.boot.autoconfigure;

import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.polling.core.Decision;
import dev.polling.core.PeerObservation;
import dev.polling.core.PollingListener;

/**
 * Passes every event to several {@link PollingListener}s in order; one that throws does not keep
 * the others from being called.
 */
public final class CompositePollingListener implements PollingListener {

	private static final Logger logger = LoggerFactory.getLogger(CompositePollingListener.class);

	private final List<PollingListener> listeners;

	public CompositePollingListener(List<? extends PollingListener> listeners) {
		this.listeners = List.copyOf(listeners);
	}

	/** The given listeners combined: none, the only one, or a composite. */
	public static PollingListener of(List<? extends PollingListener> listeners) {
		if (listeners.isEmpty()) {
			return PollingListener.NONE;
		}
		return (listeners.size() == 1) ? listeners.get(0) : new CompositePollingListener(listeners);
	}

	@Override
	public void onDecision(Decision decision) {
		for (PollingListener listener : this.listeners) {
			try {
				listener.onDecision(decision);
			}
			catch (RuntimeException ex) {
				logger.debug("Polling listener {} failed on a decision", listener, ex);
			}
		}
	}

	@Override
	public void onPeerObservation(String clusterId, PeerObservation observation) {
		for (PollingListener listener : this.listeners) {
			try {
				listener.onPeerObservation(clusterId, observation);
			}
			catch (RuntimeException ex) {
				logger.debug("Polling listener {} failed on a peer observation", listener, ex);
			}
		}
	}

	@Override
	public void onHoldChanged(String clusterId, boolean holding, boolean takeover) {
		for (PollingListener listener : this.listeners) {
			try {
				listener.onHoldChanged(clusterId, holding, takeover);
			}
			catch (RuntimeException ex) {
				logger.debug("Polling listener {} failed on a hold change", listener, ex);
			}
		}
	}

}
