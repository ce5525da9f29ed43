package dev.polling.jdbc.delivery;

/**
 * Thrown by a {@link DeliverySender} when the destination definitely did not accept the message
 * (so sending it again cannot produce a duplicate): the guard retries it after a backoff.
 */
public class NotDeliveredException extends Exception {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates the exception.
	 * @param message why the destination did not accept the message (no secrets: it is stored as
	 * the last error)
	 */
	public NotDeliveredException(String message) {
		super(message);
	}

	/**
	 * Creates the exception with a cause.
	 * @param message why the destination did not accept the message
	 * @param cause the cause
	 */
	public NotDeliveredException(String message, Throwable cause) {
		super(message, cause);
	}

}
