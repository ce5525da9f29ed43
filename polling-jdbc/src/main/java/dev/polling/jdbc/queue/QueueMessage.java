package dev.polling.jdbc.queue;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * A claimed message, as handed to a {@link QueueHandler}. The pair {@code (id, fence)} is the
 * claim: the {@link QueueWorkers}' completion, failure and lease renewals of the message are applied
 * only while the row still carries this fence.
 *
 * @param id the message id (ascending in insertion order)
 * @param queue the queue name
 * @param businessKey the ordering key, or {@code null} for an unordered message
 * @param payload the payload
 * @param attempt this attempt's number, from 1
 * @param maxAttempts the attempts allowed before the message goes dead
 * @param fence the fencing number of this claim
 * @param enqueuedAt when it was enqueued (database time)
 */
public record QueueMessage(long id, String queue, @Nullable String businessKey, String payload, int attempt,
		int maxAttempts, long fence, Instant enqueuedAt) {

	/**
	 * Whether a failure of this attempt makes the message dead.
	 * @return {@code true} on the last attempt
	 */
	public boolean isLastAttempt() {
		return this.attempt >= this.maxAttempts;
	}

}
