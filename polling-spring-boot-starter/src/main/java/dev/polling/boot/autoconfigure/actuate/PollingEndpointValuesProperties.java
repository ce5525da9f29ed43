package dev.polling.boot.autoconfigure.actuate;

import java.util.HashSet;
import java.util.Set;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.Sanitizer;
import org.springframework.boot.actuate.endpoint.SanitizingFunction;
import org.springframework.boot.actuate.endpoint.Show;

import dev.polling.boot.actuate.PollingValueSanitizer;

/**
 * What a polling endpoint shows of values that may be sensitive (user names, error texts), as
 * Spring Boot's {@code env} and {@code configprops} endpoints are configured.
 */
public abstract class PollingEndpointValuesProperties {

	/**
	 * When to show user names and error texts unmasked: never, when-authorized or always.
	 */
	private Show showValues = Show.NEVER;

	/**
	 * Roles that see the values unmasked when show-values is when-authorized. When empty, every
	 * authenticated user does.
	 */
	private Set<String> roles = new HashSet<>();

	public Show getShowValues() {
		return this.showValues;
	}

	public void setShowValues(Show showValues) {
		this.showValues = showValues;
	}

	public Set<String> getRoles() {
		return this.roles;
	}

	public void setRoles(Set<String> roles) {
		this.roles = roles;
	}

	PollingValueSanitizer sanitizer(ObjectProvider<SanitizingFunction> functions) {
		return new PollingValueSanitizer(new Sanitizer(functions.orderedStream().toList()), this.showValues, this.roles);
	}

	/** {@code management.endpoint.polling}: peer user names and error texts of decisions. */
	@org.springframework.boot.context.properties.ConfigurationProperties("management.endpoint.polling")
	public static class Polling extends PollingEndpointValuesProperties {

	}

	/** {@code management.endpoint.pollingqueue}: error texts of messages. */
	@org.springframework.boot.context.properties.ConfigurationProperties("management.endpoint.pollingqueue")
	public static class Queue extends PollingEndpointValuesProperties {

	}

	/** {@code management.endpoint.pollingdelivery}: error texts of messages. */
	@org.springframework.boot.context.properties.ConfigurationProperties("management.endpoint.pollingdelivery")
	public static class Delivery extends PollingEndpointValuesProperties {

	}

}
