package dev.polling.jdbc.delivery;

/**
 * The states of an outgoing message in the {@link DeliveryGuard}.
 * <pre>
 * PENDING --claim (committed before the send)--&gt; SENDING --sent, post-update--&gt; DELIVERED
 *   ^                                              |--NotDeliveredException--&gt; FAILED --backoff--&gt; SENDING
 *   |                                              |                      \--last attempt--&gt; DEAD
 *   |                                              \--outcome unknown (error, crash, lease expiry)--&gt; IN_DOUBT
 *   \------------- operator: resend (IN_DOUBT), retry (DEAD) -----------------------------------/
 * </pre>
 * For a destination declared idempotent, an unknown outcome is retried like a definite failure
 * (with the same idempotency key) instead of becoming IN_DOUBT.
 */
public enum DeliveryState {

	/** Stored, not sent yet. */
	PENDING,

	/** Claimed for sending; the send may be under way. */
	SENDING,

	/** Sent and confirmed. */
	DELIVERED,

	/** Definitely not delivered; sent again after the backoff. */
	FAILED,

	/** The send may or may not have reached the destination; never sent again automatically. */
	IN_DOUBT,

	/** Every attempt failed definitely; waits for an operator. */
	DEAD

}
