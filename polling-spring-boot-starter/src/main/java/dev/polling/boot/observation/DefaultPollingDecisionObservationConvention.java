package dev.polling.boot.observation;

import dev.polling.core.Decision;
import io.micrometer.common.KeyValues;

/**
 * Observation {@code polling.decision}, contextual name {@code polling decide <cluster>}.
 * Low-cardinality keys: {@code polling.cluster}, {@code polling.outcome} ({@code GRANTED},
 * {@code REFUSED}, or {@code ERROR} when the decision threw), {@code polling.reason} (the
 * {@link Decision.Reason}, {@code NONE} on error). High-cardinality: {@code polling.instance} (the
 * instance deciding) and {@code polling.detail} (the decision's detail, when it has one).
 */
public class DefaultPollingDecisionObservationConvention
		extends ClusterObservationConvention<Decision, PollingDecisionContext>
		implements PollingDecisionObservationConvention {

	/** The observation's name, also the timer's name when a meter registry handles observations. */
	public static final String NAME = "polling.decision";

	public DefaultPollingDecisionObservationConvention() {
		super(NAME, KeyValues.of("polling.outcome", "ERROR", "polling.reason", "NONE"));
	}

	@Override
	public String getContextualName(PollingDecisionContext context) {
		return "polling decide " + context.getClusterId();
	}

	@Override
	KeyValues ended(Decision decision) {
		return KeyValues.of("polling.outcome", decision.outcome().name(), "polling.reason", decision.reason().name());
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(PollingDecisionContext context) {
		Decision decision = context.getDecision();
		KeyValues values = KeyValues.of("polling.instance", context.getInstanceId());
		if (decision != null && decision.detail() != null) {
			values = values.and("polling.detail", decision.detail());
		}
		return values;
	}

}
