package dev.polling.jdbc.delivery;

import java.time.Instant;

/**
 * An outgoing message handed to a {@link DeliverySender}. Pass the idempotency key to the
 * destination when it can deduplicate (e.g. as a {@code Message-ID} or an {@code Idempotency-Key}
 * header): it is the same for every attempt of this message.
 *
 * @param id the id
 * @param destination the destination name
 * @param idempotencyKey the key, unique per destination
 * @param payload the payload
 * @param attempt this attempt's number, from 1
 * @param maxAttempts the attempts allowed for definite failures
 * @param fence the fencing number of this claim
 * @param createdAt when it was stored (database time)
 */
public record Delivery(long id, String destination, String idempotencyKey, String payload, int attempt,
		int maxAttempts, long fence, Instant createdAt) {
}
