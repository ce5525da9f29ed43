package dev.polling.boot.aop;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Reports a misused polling annotation at startup. */
public class PollingAnnotationFailureAnalyzer extends AbstractFailureAnalyzer<PollingAnnotationException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, PollingAnnotationException cause) {
		String message = cause.getMessage();
		int fix = message.lastIndexOf(". Fix: ");
		String description = (fix >= 0) ? message.substring(0, fix) : message;
		return new FailureAnalysis("Invalid polling annotation: " + description, "Fix: " + cause.getFix(), cause);
	}

}
