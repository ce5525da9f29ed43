package dev.polling.jdbc.internal;

import org.slf4j.Logger;

/**
 * Tells a part's listener of something: what the listener throws is logged, never thrown, so that a
 * failing listener cannot fail the write it is told of.
 */
public final class Listeners {

	private Listeners() {
	}

	/**
	 * Runs a callback of a listener, logging (not throwing) what it throws.
	 * @param logger where a failure is logged
	 * @param kind the kind of listener, e.g. "Queue listener"
	 * @param listener the listener, named in the log
	 * @param callback the call of the listener
	 */
	public static void notify(Logger logger, String kind, Object listener, Runnable callback) {
		try {
			callback.run();
		}
		catch (RuntimeException ex) {
			logger.warn("{} {} failed", kind, listener, ex);
		}
	}

}
