package dev.polling.jdbc.delivery;

/**
 * Callbacks about what a {@link DeliveryGuard} did, for metrics and logging. Every method has a
 * no-op default; exceptions thrown by a listener are logged and never reach the guard's caller.
 */
public interface DeliveryListener {

	/** A listener that does nothing. */
	DeliveryListener NONE = new DeliveryListener() {
	};

	/**
	 * A message was delivered.
	 * @param destination the destination
	 */
	default void onDelivered(String destination) {
	}

	/**
	 * A definite failure was scheduled for a retry.
	 * @param destination the destination
	 */
	default void onRetryScheduled(String destination) {
	}

	/**
	 * A message went dead after its last attempt.
	 * @param destination the destination
	 */
	default void onDead(String destination) {
	}

	/**
	 * Messages became IN_DOUBT (unknown outcome, or lease expired during the send).
	 * @param destination the destination, or {@code "*"} for recoveries across destinations
	 * @param count how many
	 */
	default void onInDoubt(String destination, int count) {
	}

	/**
	 * A post-update carried a stale fence (the lease expired during the send) and was not applied.
	 * @param destination the destination
	 */
	default void onFenceRejected(String destination) {
	}

	/**
	 * Expired leases were recovered (IN_DOUBT, or scheduled for a re-send on idempotent
	 * destinations).
	 * @param count how many
	 */
	default void onLeasesExpired(int count) {
	}

}
