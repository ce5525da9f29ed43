package dev.polling.jdbc.queue;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * A message as an operator sees it (without the payload).
 *
 * @param id the id
 * @param queue the queue name
 * @param businessKey the ordering key, or {@code null}
 * @param state the state
 * @param attempts attempts made so far
 * @param maxAttempts attempts allowed
 * @param owner the claim holding it (IN_PROGRESS): the {@link WorkQueue#owner() owner} of the instance's queue, {@code #}
 * and the claim's number; otherwise {@code null}
 * @param enqueuedAt when it was enqueued (database time)
 * @param lastError the last failure (exception class and message, cut to 1000 characters), or
 * {@code null}
 */
public record QueueEntry(long id, String queue, @Nullable String businessKey, MessageState state, int attempts,
		int maxAttempts, @Nullable String owner, Instant enqueuedAt, @Nullable String lastError) {
}
