package dev.polling.boot.observation;

import dev.polling.core.PeerObservation;
import io.micrometer.common.KeyValues;

/**
 * Observation {@code polling.peer.request}, contextual name {@code polling ask <peer>}.
 * Low-cardinality keys: {@code polling.cluster}, {@code polling.peer.state} (e.g. {@code ANSWERED},
 * {@code UNRESPONSIVE}, {@code GONE}, {@code ERROR}) and {@code polling.peer.fault} (e.g.
 * {@code NONE}, {@code TIMEOUT}, {@code AUTHENTICATION}). High-cardinality: {@code polling.peer}
 * (the peer entry's id), {@code polling.peer.address} and {@code polling.peer.instance} (the
 * instance that answered, when one did).
 */
public class DefaultPollingPeerRequestObservationConvention implements PollingPeerRequestObservationConvention {

	/** The observation's name. */
	public static final String NAME = "polling.peer.request";

	@Override
	public String getName() {
		return NAME;
	}

	@Override
	public String getContextualName(PollingPeerRequestContext context) {
		return "polling ask " + context.getPeer().id();
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(PollingPeerRequestContext context) {
		PeerObservation observation = context.getObservation();
		return KeyValues.of("polling.cluster", context.getClusterId(), "polling.peer.state",
				(observation != null) ? observation.state().name() : "UNKNOWN", "polling.peer.fault",
				(observation != null) ? observation.fault().name() : "UNKNOWN");
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(PollingPeerRequestContext context) {
		PeerObservation observation = context.getObservation();
		KeyValues values = KeyValues.of("polling.peer", context.getPeer().id(), "polling.peer.address",
				context.getPeer().address());
		if (observation != null && observation.instanceId() != null) {
			values = values.and("polling.peer.instance", observation.instanceId());
		}
		return values;
	}

}
