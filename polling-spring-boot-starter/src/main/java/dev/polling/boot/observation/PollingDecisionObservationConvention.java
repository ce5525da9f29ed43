package dev.polling.boot.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and tags the observation of a polling decision; declare a bean to replace
 * {@link DefaultPollingDecisionObservationConvention}.
 */
public interface PollingDecisionObservationConvention extends ObservationConvention<PollingDecisionContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof PollingDecisionContext;
	}

}
