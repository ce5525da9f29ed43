package de.bund.bva.isyfact.polling.common.exception;

/** The polling cluster is not configured (message id POLLI01005). */
public class PollingClusterUnbekanntException extends PollingTechnicalRuntimeException {

	private static final long serialVersionUID = 1L;

	public PollingClusterUnbekanntException(String ausnahmeID, String... parameter) {
		super(ausnahmeID, parameter);
	}

}
