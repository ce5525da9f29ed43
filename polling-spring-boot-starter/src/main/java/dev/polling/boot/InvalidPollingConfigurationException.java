package dev.polling.boot;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * A polling property has a value that cannot work with the rest of the application (an SSL bundle
 * that does not exist, database coordination without a DataSource, a port already in use); mistakes
 * in the values themselves are reported when the properties are bound. The message names the
 * property, the value (never a password) and the fix; Spring Boot's failure analysis shows it with
 * the origin (file and line) of the property.
 */
public class InvalidPollingConfigurationException extends InvalidConfigurationPropertyValueException {

	private final String value;

	private final String problem;

	private final String fix;

	/**
	 * Creates an exception.
	 * @param property the full property name, e.g. {@code polling.clusters.MAILABRUF_CLUSTER.wait-time}
	 * @param value the value as the user wrote it (or a description such as "not set"); never a secret
	 * @param problem what is wrong with it
	 * @param fix what to do
	 */
	public InvalidPollingConfigurationException(String property, String value, String problem, String fix) {
		super(property, value, problem + ". Fix: " + fix);
		this.value = value;
		this.problem = problem;
		this.fix = fix;
	}

	/**
	 * The property, as the user wrote it.
	 * @return the full name
	 */
	public String getProperty() {
		return getName();
	}

	@Override
	public String getValue() {
		return this.value;
	}

	public String getProblem() {
		return this.problem;
	}

	public String getFix() {
		return this.fix;
	}

}
