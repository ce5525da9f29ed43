package dev.polling.boot.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and tags the observation of a request to a peer during a decision; declare a bean to
 * replace {@link DefaultPollingPeerRequestObservationConvention}.
 */
public interface PollingPeerRequestObservationConvention extends ObservationConvention<PollingPeerRequestContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof PollingPeerRequestContext;
	}

}
