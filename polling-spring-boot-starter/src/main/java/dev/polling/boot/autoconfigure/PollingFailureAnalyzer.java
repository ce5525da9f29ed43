package dev.polling.boot.autoconfigure;

import dev.polling.boot.InvalidPollingConfigurationException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns an {@link InvalidPollingConfigurationException} into the startup report: what is wrong
 * with which property, and the fix.
 */
public class PollingFailureAnalyzer extends AbstractFailureAnalyzer<InvalidPollingConfigurationException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, InvalidPollingConfigurationException cause) {
		String description = "Invalid polling configuration:\n\n    Property: " + cause.getProperty() + "\n    Value: "
				+ cause.getValue() + "\n    Reason: " + cause.getProblem();
		return new FailureAnalysis(description, "Fix: " + cause.getFix(), cause);
	}

}
