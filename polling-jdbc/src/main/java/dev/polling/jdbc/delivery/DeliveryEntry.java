package dev.polling.jdbc.delivery;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * An outgoing message as an operator sees it (without the payload).
 *
 * @param id the id
 * @param destination the destination
 * @param idempotencyKey the idempotency key
 * @param state the state
 * @param attempts attempts so far
 * @param maxAttempts attempts allowed
 * @param createdAt when it was stored (database time)
 * @param lastError the last error, or {@code null}
 */
public record DeliveryEntry(long id, String destination, String idempotencyKey, DeliveryState state, int attempts,
		int maxAttempts, Instant createdAt, @Nullable String lastError) {
}
