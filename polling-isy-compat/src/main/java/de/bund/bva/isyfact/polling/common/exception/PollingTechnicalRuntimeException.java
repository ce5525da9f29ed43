package de.bund.bva.isyfact.polling.common.exception;

import de.bund.bva.isyfact.exception.FehlertextProvider;
import de.bund.bva.isyfact.exception.TechnicalRuntimeException;

/** Base of the polling exceptions: a technical exception with a message id ({@link #getAusnahmeId()}). */
public abstract class PollingTechnicalRuntimeException extends TechnicalRuntimeException {

	private static final long serialVersionUID = 1L;

	private static final FehlertextProvider TEXTE = new FehlertextProviderImpl();

	public PollingTechnicalRuntimeException(String ausnahmeID) {
		super(ausnahmeID, TEXTE);
	}

	public PollingTechnicalRuntimeException(String ausnahmeID, String... parameter) {
		super(ausnahmeID, TEXTE, parameter);
	}

	public PollingTechnicalRuntimeException(String ausnahmeID, Throwable throwable) {
		super(ausnahmeID, throwable, TEXTE);
	}

	public PollingTechnicalRuntimeException(String ausnahmeID, Throwable throwable, String... parameter) {
		super(ausnahmeID, throwable, TEXTE, parameter);
	}

}
