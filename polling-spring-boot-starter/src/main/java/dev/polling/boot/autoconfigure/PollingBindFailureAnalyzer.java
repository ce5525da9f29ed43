package dev.polling.boot.autoconfigure;

import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.Order;

/**
 * Explains a {@code polling.*} value that could not be bound (an unparsable duration, an unknown
 * policy, a port that is not a number) with the expected format, or one that a properties setter
 * refused as out of range, with the range. Runs before Spring Boot's own
 * bind failure analysis; other properties are left to it.
 */
@Order(Ordered.HIGHEST_PRECEDENCE)
public class PollingBindFailureAnalyzer extends AbstractFailureAnalyzer<BindException> {

	@Override
	protected @Nullable FailureAnalysis analyze(Throwable rootFailure, BindException cause) {
		ConfigurationProperty property = cause.getProperty();
		String name = asWritten((property != null) ? property.getName() : cause.getName());
		if (!name.startsWith("polling.")) {
			return null;
		}
		String value = (property == null) ? "not set"
				: name.endsWith("password") ? "******" : "'" + property.getValue() + "'";
		String origin = (property != null && property.getOrigin() != null) ? "\n    Origin: " + property.getOrigin() : "";
		String rejected = rejectedBySetter(cause);
		if (rejected != null) {
			// read, but out of range: the setter's message names the range and an example
			int example = rejected.lastIndexOf(": ");
			boolean hasFix = example > 0 && rejected.substring(example + 2).matches("(e\\.g\\.|set) .*");
			String description = "Invalid polling configuration:\n\n    Property: " + name + "\n    Value: " + value + "\n    Reason: "
					+ (hasFix ? rejected.substring(0, example) : rejected) + origin;
			String suggestion = hasFix ? rejected.substring(example + 2) : "";
			String fix = !hasFix ? "correct " + name : suggestion.startsWith("set ") ? "set " + name + " to " + suggestion.substring(4)
					: "set " + name + " to a value in range, " + suggestion;
			return new FailureAnalysis(description, "Fix: " + fix, cause);
		}
		String description = "Invalid polling configuration:\n\n    Property: " + name + "\n    Value: " + value
				+ "\n    Reason: the value cannot be read as " + describe(cause.getTarget().getType()) + origin;
		return new FailureAnalysis(description, "Fix: " + fix(name, cause.getTarget().getType()), cause);
	}

	/**
	 * The name with the map keys as the user wrote them ({@code polling.clusters.MAILBOX.wait-time});
	 * {@link ConfigurationPropertyName#toString()} lower-cases them.
	 */
	static String asWritten(ConfigurationPropertyName name) {
		return PollingPropertyKeys.written(name, name.getNumberOfElements() - 1);
	}

	/** Whether a map key survives without brackets: letters, digits, '-' and '_'. */
	static boolean isPlainKey(String key) {
		return key.chars().allMatch((ch) -> (ch < 128 && Character.isLetterOrDigit(ch)) || ch == '-' || ch == '_');
	}

	/** The message of a properties setter that refused the value (they start with the property name), or null. */
	private static @Nullable String rejectedBySetter(BindException cause) {
		for (Throwable t = cause.getCause(); t != null && t != t.getCause(); t = t.getCause()) {
			if (t instanceof IllegalArgumentException && t.getMessage() != null && t.getMessage().startsWith("polling.")) {
				return t.getMessage();
			}
		}
		return null;
	}

	private static String describe(ResolvableType type) {
		Class<?> resolved = type.resolve(Object.class);
		if (Duration.class.equals(resolved)) {
			return "a duration";
		}
		if (resolved.isEnum()) {
			return "one of " + values(resolved);
		}
		if (Integer.class.equals(resolved) || int.class.equals(resolved)) {
			return "a whole number";
		}
		if (Boolean.class.equals(resolved) || boolean.class.equals(resolved)) {
			return "true or false";
		}
		return "a " + resolved.getSimpleName();
	}

	private static String fix(String name, ResolvableType type) {
		Class<?> resolved = type.resolve(Object.class);
		if (Duration.class.equals(resolved)) {
			return "write a number with a unit such as 500ms, 2s or 10m (a plain number means seconds), "
					+ "or an ISO-8601 duration such as PT10S";
		}
		if (resolved.isEnum()) {
			return "use one of " + values(resolved);
		}
		return "correct the value of " + name;
	}

	private static String values(Class<?> enumType) {
		return Arrays.stream(enumType.getEnumConstants())
			.map((constant) -> ((Enum<?>) constant).name().toLowerCase(Locale.ROOT).replace('_', '-'))
			.collect(Collectors.joining(", "));
	}

}
