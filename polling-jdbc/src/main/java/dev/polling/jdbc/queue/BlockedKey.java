package dev.polling.jdbc.queue;

import org.jspecify.annotations.Nullable;

/**
 * A business key whose oldest open message failed: younger messages of the key wait behind it
 * until it is retried successfully, or (when DEAD) an operator retries or discards it.
 *
 * @param queue the queue name
 * @param businessKey the key
 * @param headId the id of the failed message
 * @param headState FAILED (a retry is scheduled) or DEAD (waits for an operator)
 * @param attempts attempts made on the failed message
 * @param lastError its last error, or {@code null}
 * @param waiting younger messages of the key waiting behind it
 */
public record BlockedKey(String queue, String businessKey, long headId, MessageState headState, int attempts,
		@Nullable String lastError, long waiting) {
}
