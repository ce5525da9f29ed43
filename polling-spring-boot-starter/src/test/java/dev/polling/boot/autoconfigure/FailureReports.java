package dev.polling.boot.autoconfigure;

import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import dev.polling.boot.autoconfigure.properties.PollingFailureAnalyzer;

/** The startup report a user sees for a failed test context. */
public final class FailureReports {

	private FailureReports() {
	}

	/**
	 * The polling failure analysis of a context that failed to start.
	 * @param context the failed context
	 * @return its description and action
	 */
	public static String report(AssertableApplicationContext context) {
		FailureAnalysis analysis = new PollingFailureAnalyzer(null).analyze(context.getStartupFailure());
		assertThat(analysis).as("failure analysis of %s", context.getStartupFailure()).isNotNull();
		return analysis.getDescription() + "\n" + analysis.getAction();
	}

	/**
	 * Asserts that a context with one property set fails to start with a report naming the property
	 * and its value.
	 * @param runner the runner of the context
	 * @param property the property
	 * @param value its value
	 * @param problem what the report says besides, e.g. its reason
	 */
	public static void assertRefused(ApplicationContextRunner runner, String property, String value, String problem) {
		runner.withPropertyValues(property + "=" + value).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(report(context)).contains("Property: " + property + "\n    Value: " + value + "\n").contains(problem);
		});
	}

}
