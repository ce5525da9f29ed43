package de.bund.bva.isyfact.polling.common.exception;

import java.text.MessageFormat;
import java.util.Locale;
import java.util.MissingResourceException;
import java.util.ResourceBundle;

import de.bund.bva.isyfact.exception.FehlertextProvider;

/** Texts of the polling message ids, from {@code resources/isy-polling/nachrichten/fehler}. */
public class FehlertextProviderImpl implements FehlertextProvider {

	static final String BUNDLE = "resources/isy-polling/nachrichten/fehler";

	public String getMessage(String schluessel) {
		try {
			return ResourceBundle.getBundle(BUNDLE, Locale.GERMANY).getString(schluessel);
		}
		catch (MissingResourceException ex) {
			return schluessel;
		}
	}

	public String getMessage(String schluessel, String parameter) {
		return (parameter != null) ? getMessage(schluessel, new String[] { parameter }) : getMessage(schluessel);
	}

	@Override
	public String getMessage(String schluessel, String... parameter) {
		String text = getMessage(schluessel);
		return (parameter != null && parameter.length > 0) ? MessageFormat.format(text, (Object[]) parameter) : text;
	}

}
