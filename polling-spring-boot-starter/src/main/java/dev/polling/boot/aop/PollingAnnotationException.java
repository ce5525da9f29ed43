package dev.polling.boot.aop;

import dev.polling.boot.annotation.PollingAction;
import dev.polling.boot.annotation.PollingCycle;

/**
 * A {@link PollingCycle} or {@link PollingAction} cannot work: it names an unknown cluster, no
 * clusters are configured, or the method cannot be gated. Thrown at startup.
 */
public class PollingAnnotationException extends IllegalStateException {

	private final String fix;

	public PollingAnnotationException(String problem, String fix) {
		super(problem + ". Fix: " + fix);
		this.fix = fix;
	}

	/** What to do about it. */
	public String getFix() {
		return this.fix;
	}

}
