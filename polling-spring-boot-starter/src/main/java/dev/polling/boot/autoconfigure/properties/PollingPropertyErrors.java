package dev.polling.boot.autoconfigure.properties;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.validation.BindingResult;
import org.springframework.validation.Errors;
import org.springframework.validation.FieldError;

/**
 * Reports mistakes in polling properties to the {@link Errors} of bind-time validation, each as a
 * field error whose field is the key as the user wrote it (relative to the validated prefix, map
 * keys in their own spelling), whose rejected value is the value as written (never a password),
 * and whose message is the problem followed by {@code ". Fix: "} and the fix. Spring Boot's bind
 * validation failure report shows it as it is; {@link PollingFailureAnalyzer} adds the origin (file
 * and line) of every key.
 */
public final class PollingPropertyErrors {

	/** The error code of every polling property mistake. */
	public static final String CODE = "polling.invalid";

	/** What separates the problem from the fix in a message. */
	static final String FIX = ". Fix: ";

	private final Errors errors;

	/**
	 * Reports to the given errors.
	 * @param errors the errors of the validation under way
	 */
	public PollingPropertyErrors(Errors errors) {
		this.errors = errors;
	}

	/**
	 * Reports one mistake.
	 * @param key the key relative to the validated prefix, as written, e.g. {@code clusters.MAILBOX.wait-time}
	 * @param value the value as written, {@code null} when not set; never a secret
	 * @param problem what is wrong
	 * @param fix what to do
	 */
	public void reject(String key, @Nullable Object value, String problem, String fix) {
		String message = problem + FIX + fix;
		if (this.errors instanceof BindingResult result) {
			// not rejectValue: that reads the field back through the bean's properties, which a key
			// such as clusters.MAILBOX.wait-time is not
			result.addError(new FieldError(this.errors.getObjectName(), key, (value != null) ? value.toString() : null, false,
					new String[] { CODE }, null, message));
		}
		else {
			this.errors.reject(CODE, this.errors.getObjectName() + "." + key + " = " + value + ": " + message);
		}
	}

	/**
	 * A map key as the user writes it in a property key: plain, or in brackets when it has other
	 * characters than letters, digits, '-' and '_'.
	 * @param key the map key
	 * @return the key element, without a leading dot
	 */
	public static String mapKey(String key) {
		return PollingPropertyKeys.isPlainKey(key) ? key : "[" + key + "]";
	}

	/**
	 * A duration as a user would write it: {@code 500ms}, {@code 10s}, {@code 7d}.
	 * @param duration the duration, or {@code null}
	 * @return its display, {@code not set} for {@code null}
	 */
	public static String display(@Nullable Duration duration) {
		if (duration == null) {
			return "not set";
		}
		if (duration.toNanos() % 1_000_000 != 0) {
			return duration.toString();
		}
		long millis = duration.toMillis();
		if (millis != 0 && millis % 86_400_000 == 0) {
			return (millis / 86_400_000) + "d";
		}
		return (millis % 1000 == 0) ? (millis / 1000) + "s" : millis + "ms";
	}

}
