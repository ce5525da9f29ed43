package dev.polling.boot.autoconfigure.properties;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.validation.BindValidationException;
import org.springframework.boot.context.properties.bind.validation.ValidationErrors;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.origin.Origin;
import org.springframework.core.Ordered;
import org.springframework.core.ResolvableType;
import org.springframework.core.env.Environment;
import org.springframework.validation.FieldError;
import org.springframework.validation.ObjectError;

import dev.polling.boot.InvalidPollingConfigurationException;

/**
 * The startup report of a {@code polling.*} property that cannot work, where Spring Boot's own
 * analysis says less: every key as the user wrote it (Boot lower-cases map keys such as cluster ids),
 * its value, its origin (file and line) and the fix. It answers for
 * <ul>
 * <li>mistakes found when the properties are bound ({@link PollingProperties} and
 * {@code PollingJdbcProperties} validate themselves), all of them at once;</li>
 * <li>an {@link InvalidPollingConfigurationException} (a value that does not fit the rest of the
 * application, e.g. an SSL bundle that does not exist);</li>
 * <li>a value that cannot be read at all (an unparsable duration, an unknown policy), with the
 * expected format.</li>
 * </ul>
 * Anything else, including other prefixes, is left to Spring Boot; it is ordered just before
 * Spring Boot's analyzers so that it sees polling's failures first.
 */
public class PollingFailureAnalyzer implements FailureAnalyzer, Ordered {

	private static final String TITLE = "Invalid polling configuration:\n";

	private final @Nullable Environment environment;

	/**
	 * Creates the analyzer; Spring Boot passes the application's environment.
	 * @param environment where origins of {@link InvalidPollingConfigurationException}s are looked up,
	 * {@code null} when the start failed before there was one
	 */
	public PollingFailureAnalyzer(@Nullable Environment environment) {
		this.environment = environment;
	}

	@Override
	public int getOrder() {
		return Ordered.LOWEST_PRECEDENCE - 1;
	}

	@Override
	public @Nullable FailureAnalysis analyze(Throwable failure) {
		BindValidationException validation = findCause(failure, BindValidationException.class);
		if (validation != null) {
			return analyzeValidation(validation, failure);
		}
		InvalidPollingConfigurationException invalid = findCause(failure, InvalidPollingConfigurationException.class);
		if (invalid != null) {
			String origin = originOf(invalid.getProperty());
			String description = TITLE + block(invalid.getProperty(), invalid.getValue(), origin, invalid.getProblem());
			return new FailureAnalysis(description, "Fix: " + invalid.getFix(), invalid);
		}
		BindException bind = findCause(failure, BindException.class);
		if (bind != null) {
			return analyzeUnreadable(bind);
		}
		return null;
	}

	private @Nullable FailureAnalysis analyzeValidation(BindValidationException validation, Throwable failure) {
		ValidationErrors errors = validation.getValidationErrors();
		List<String> blocks = new ArrayList<>();
		List<String> fixes = new ArrayList<>();
		for (ObjectError error : errors.getAllErrors()) {
			if (!(error instanceof FieldError field) || !PollingPropertyErrors.CODE.equals(error.getCode())) {
				// not one of ours (e.g. a validator of the application's own): Spring Boot reports it
				return null;
			}
			String property = field.getObjectName() + "." + field.getField();
			String message = (error.getDefaultMessage() != null) ? error.getDefaultMessage() : "";
			int split = message.indexOf(PollingPropertyErrors.FIX);
			String problem = (split >= 0) ? message.substring(0, split) : message;
			String fix = (split >= 0) ? message.substring(split + PollingPropertyErrors.FIX.length()) : "correct " + property;
			Object value = field.getRejectedValue();
			blocks.add(block(property, (value != null) ? value.toString() : "not set", boundOrigin(errors, property), problem));
			fixes.add(fix);
		}
		if (blocks.isEmpty()) {
			return null;
		}
		String action = (fixes.size() == 1) ? "Fix: " + fixes.get(0)
				: fixes.stream().map((fix) -> "Fix: " + fix).collect(Collectors.joining("\n"));
		return new FailureAnalysis(TITLE + String.join("", blocks), action, validation);
	}

	private @Nullable FailureAnalysis analyzeUnreadable(BindException cause) {
		ConfigurationProperty property = cause.getProperty();
		String name = PollingPropertyKeys.written((property != null) ? property.getName() : cause.getName(),
				((property != null) ? property.getName() : cause.getName()).getNumberOfElements() - 1);
		if (!name.startsWith("polling.")) {
			return null;
		}
		String value = (property == null) ? "not set" : name.endsWith("password") ? "******" : "'" + property.getValue() + "'";
		String origin = (property != null && property.getOrigin() != null) ? property.getOrigin().toString() : null;
		ResolvableType type = cause.getTarget().getType();
		String description = TITLE + block(name, value, origin, "the value cannot be read as " + describe(type));
		return new FailureAnalysis(description, "Fix: " + fix(name, type), cause);
	}

	private static String block(String property, String value, @Nullable String origin, String reason) {
		return "\n    Property: " + property + "\n    Value: " + value + ((origin != null) ? "\n    Origin: " + origin : "")
				+ "\n    Reason: " + reason + "\n";
	}

	/** Where a key of a failed validation was set, from the properties the binder read. */
	private static @Nullable String boundOrigin(ValidationErrors errors, String property) {
		for (ConfigurationProperty bound : errors.getBoundProperties()) {
			if (written(bound.getName()).equalsIgnoreCase(property)) {
				Origin origin = Origin.from(bound);
				return (origin != null) ? origin.toString() : null;
			}
		}
		return null;
	}

	/** Where a key was set, from the environment; the first source that has it wins, as in binding. */
	private @Nullable String originOf(String property) {
		if (this.environment == null) {
			return null;
		}
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(this.environment)) {
			if (source instanceof IterableConfigurationPropertySource iterable) {
				ConfigurationPropertyName name = iterable.stream()
					.filter((candidate) -> written(candidate).equalsIgnoreCase(property))
					.findFirst()
					.orElse(null);
				ConfigurationProperty found = (name != null) ? iterable.getConfigurationProperty(name) : null;
				if (found != null) {
					Origin origin = Origin.from(found);
					return (origin != null) ? origin.toString() : null;
				}
			}
		}
		return null;
	}

	private static String written(ConfigurationPropertyName name) {
		return PollingPropertyKeys.written(name, name.getNumberOfElements() - 1);
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

	private static <E extends Throwable> @Nullable E findCause(@Nullable Throwable failure, Class<E> type) {
		for (Throwable cause = failure; cause != null; cause = (cause.getCause() != cause) ? cause.getCause() : null) {
			if (type.isInstance(cause)) {
				return type.cast(cause);
			}
		}
		return null;
	}

}
