package de.bund.bva.isyfact.polling.common.exception;

/** A polling cluster or JMX connection is misconfigured. */
public class PollingClusterKonfigurationException extends PollingTechnicalRuntimeException {

	private static final long serialVersionUID = 1L;

	public PollingClusterKonfigurationException(String ausnahmeID, String... parameter) {
		super(ausnahmeID, parameter);
	}

	public PollingClusterKonfigurationException(String ausnahmeID, Throwable throwable, String... parameter) {
		super(ausnahmeID, throwable, parameter);
	}

}
