package dev.polling.jdbc.delivery;

/**
 * An operator's decision about an IN_DOUBT delivery, after checking the destination.
 */
public enum Resolution {

	/** The destination has the message: mark it DELIVERED. */
	DELIVERED,

	/** The destination does not have it: send it again (PENDING, fresh attempts, same key). */
	RESEND

}
