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
public class DefaultPollingPeerRequestObservationConvention
		extends ClusterObservationConvention<PeerObservation, PollingPeerRequestContext> implements PollingPeerRequestObservationConvention {

	/** The observation's name. */
	public static final String NAME = "polling.peer.request";

	public DefaultPollingPeerRequestObservationConvention() {
		super(NAME, KeyValues.of("polling.peer.state", "UNKNOWN", "polling.peer.fault", "UNKNOWN"));
	}

	@Override
	public String getContextualName(PollingPeerRequestContext context) {
		return "polling ask " + context.getPeer().id();
	}

	@Override
	KeyValues ended(PeerObservation observation) {
		return KeyValues.of("polling.peer.state", observation.state().name(), "polling.peer.fault",
				observation.fault().name());
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
