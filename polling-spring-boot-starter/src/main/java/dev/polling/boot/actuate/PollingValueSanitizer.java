package dev.polling.boot.actuate;

import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.SanitizableData;
import org.springframework.boot.actuate.endpoint.Sanitizer;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.Show;

/**
 * What the polling endpoints show of values that may be sensitive (peer user names, error texts):
 * each goes through Spring Boot's {@link Sanitizer}, so the application's
 * {@code SanitizingFunction} beans apply, and is shown unmasked only as the endpoint's
 * {@code show-values} setting allows ({@code never} by default, as for Spring Boot's {@code env}
 * and {@code configprops} endpoints).
 */
public final class PollingValueSanitizer {

	private final Sanitizer sanitizer;

	private final Show show;

	private final Set<String> roles;

	/**
	 * Creates a sanitizer.
	 * @param sanitizer Spring Boot's sanitizer with the application's sanitizing functions
	 * @param show when values are shown unmasked
	 * @param roles the roles that see them under {@link Show#WHEN_AUTHORIZED} (empty: any authenticated user)
	 */
	public PollingValueSanitizer(Sanitizer sanitizer, Show show, Set<String> roles) {
		this.sanitizer = sanitizer;
		this.show = show;
		this.roles = Set.copyOf(roles);
	}

	/**
	 * Values masked unless a sanitizing function decides otherwise: the default.
	 * @return a sanitizer that never shows values unmasked
	 */
	public static PollingValueSanitizer masked() {
		return new PollingValueSanitizer(new Sanitizer(), Show.NEVER, Set.of());
	}

	/**
	 * Whether values are shown unmasked to the caller of an operation.
	 * @param context the caller
	 * @return {@code true} if shown
	 */
	public boolean isShown(SecurityContext context) {
		return this.show.isShown(context, this.roles);
	}

	/**
	 * One value as the caller may see it.
	 * @param key what it is, e.g. {@code username} or {@code detail}; sanitizing functions see it
	 * @param value the value, or {@code null}
	 * @param shown {@link #isShown(SecurityContext)} of the caller
	 * @return the value, masked as configured, or {@code null}
	 */
	public @Nullable String sanitize(String key, @Nullable String value, boolean shown) {
		if (value == null) {
			return null;
		}
		Object sanitized = this.sanitizer.sanitize(new SanitizableData(null, key, value), shown);
		return (sanitized != null) ? sanitized.toString() : null;
	}

}
