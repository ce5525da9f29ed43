package dev.polling.boot;

/**
 * A polling property has a value that cannot work. The message names the property, the value
 * (never a password) and the fix; {@link PollingFailureAnalyzer} shows it at startup.
 */
public class InvalidPollingConfigurationException extends IllegalStateException {

	private final String property;

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
		super("Invalid polling configuration: " + property + " = " + value + ": " + problem + ". Fix: " + fix);
		this.property = property;
		this.value = value;
		this.problem = problem;
		this.fix = fix;
	}

	public String getProperty() {
		return this.property;
	}

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
