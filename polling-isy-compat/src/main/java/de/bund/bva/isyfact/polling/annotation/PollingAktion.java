package de.bund.bva.isyfact.polling.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a method whose end is a polling activity of the named cluster: after the method returns or
 * throws, {@link de.bund.bva.isyfact.polling.PollingVerwalter#aktualisiereZeitpunktLetztePollingAktivitaet(String)}
 * is called. A cluster that is not configured is reported then, by that call, not at start.
 */
@Target({ ElementType.METHOD })
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface PollingAktion {

	/** The id of the polling cluster. */
	String pollingCluster();

}
