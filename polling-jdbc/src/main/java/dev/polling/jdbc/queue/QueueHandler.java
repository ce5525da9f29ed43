package dev.polling.jdbc.queue;

/**
 * Processes the messages of one queue, called by {@link QueueWorkers} on a worker thread. Returning
 * normally completes the message; throwing schedules a retry with backoff, or makes the message
 * dead on its last attempt (the exception's class and message become its last error, so keep
 * secrets out of exception messages).
 * <p>
 * A handler may run more than once for a message when an instance stops renewing its leases
 * (frozen, partitioned) and another instance takes the message over; only one completion is
 * accepted (the fence rejects the other). Make side effects idempotent, or run them in the
 * completing transaction (see {@link QueueWorkers.Builder#transactions}).
 */
@FunctionalInterface
public interface QueueHandler {

	/**
	 * Processes one message.
	 * @param message the claimed message
	 * @throws Exception if processing failed
	 */
	void handle(QueueMessage message) throws Exception;

}
