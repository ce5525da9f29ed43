package de.bund.bva.isyfact.polling.common.exception;

/** Reading a peer instance's last polling activity failed. */
public class PollingUeberpruefungTechnicalException extends PollingTechnicalRuntimeException {

	private static final long serialVersionUID = 1L;

	public PollingUeberpruefungTechnicalException(String ausnahmeID, Throwable throwable, String... parameter) {
		super(ausnahmeID, throwable, parameter);
	}

}
