package dev.polling.jdbc.jobs;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A job as an operator sees it (without the payload).
 *
 * @param id the id
 * @param queue the work queue it goes to
 * @param businessId what it is about; its ordering key in the queue
 * @param state the state
 * @param dueAt when it is due (database time)
 * @param createdAt when it was scheduled (database time)
 * @param attempts failed attempts at dispatching it so far
 * @param nextAttemptAt when a failed dispatch is tried again, or {@code null}
 * @param dispatchedAt when it was moved into the work queue, or {@code null}
 * @param messageId its queue message, or {@code null} before it is dispatched (or when requeued
 * after its message was discarded)
 * @param lastError the last failure (of a dispatch, or of its handler when FAILED), or {@code null}
 */
public record JobEntry(long id, String queue, String businessId, JobState state, Instant dueAt, Instant createdAt,
		int attempts, @Nullable Instant nextAttemptAt, @Nullable Instant dispatchedAt, @Nullable Long messageId,
		@Nullable String lastError) {
}
