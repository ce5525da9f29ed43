package dev.polling.jdbc.queue;

/**
 * Callbacks about what a {@link WorkQueue} did, for metrics and logging. Every method has a no-op
 * default; exceptions thrown by a listener are logged and never reach the queue's caller.
 */
public interface QueueListener {

	/** A listener that does nothing. */
	QueueListener NONE = new QueueListener() {
	};

	/**
	 * Messages were enqueued (the caller's transaction may still roll back).
	 * @param queue the queue
	 * @param count how many
	 */
	default void onEnqueued(String queue, int count) {
	}

	/**
	 * Messages were claimed by this instance.
	 * @param queue the queue
	 * @param count how many
	 */
	default void onClaimed(String queue, int count) {
	}

	/**
	 * A message was completed.
	 * @param queue the queue
	 */
	default void onCompleted(String queue) {
	}

	/**
	 * A failed attempt was scheduled for a retry.
	 * @param queue the queue
	 */
	default void onRetryScheduled(String queue) {
	}

	/**
	 * A message went dead after its last attempt failed.
	 * @param queue the queue
	 */
	default void onDead(String queue) {
	}

	/**
	 * A completion, failure or release carried a stale fence and was not applied.
	 * @param queue the queue
	 */
	default void onFenceRejected(String queue) {
	}

	/**
	 * Lease renewal found that this instance no longer holds claimed messages (their leases expired
	 * and they were recovered or reclaimed).
	 * @param queue the queue
	 * @param count how many
	 */
	default void onClaimsLost(String queue, int count) {
	}

	/**
	 * Expired leases were recovered by this instance (the messages became FAILED or DEAD).
	 * @param count how many
	 */
	default void onLeasesExpired(int count) {
	}

}
