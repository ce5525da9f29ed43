package dev.polling.jdbc.delivery;

import dev.polling.jdbc.internal.Arguments;
import java.util.Objects;

/**
 * A named destination with its sender. {@code idempotent} declares that the destination
 * deduplicates by the idempotency key, so a send with an unknown outcome may be repeated.
 * {@code claimBatch} above 1 (only for idempotent destinations, see {@link #withBatchClaims}) claims
 * that many messages in one commit and records their outcomes in one.
 *
 * @param name the destination name used in {@link DeliveryGuard#store}
 * @param sender the sender
 * @param idempotent whether the destination deduplicates by idempotency key
 * @param claimBatch how many messages one claim takes, 1 (the default) to 1000
 */
public record DeliveryDestination(String name, DeliverySender sender, boolean idempotent, int claimBatch) {

	/** The most messages one batched claim takes. */
	public static final int MAX_CLAIM_BATCH = 1000;

	/**
	 * Validates the destination.
	 * @param name the name
	 * @param sender the sender
	 * @param idempotent whether the destination deduplicates
	 * @param claimBatch how many messages one claim takes
	 */
	public DeliveryDestination {
		Arguments.key("destination name", name, DeliveryGuard.MAX_DESTINATION_LENGTH, "e.g. \"smtp\"");
		Objects.requireNonNull(sender, "sender must not be null");
		if (claimBatch < 1 || claimBatch > MAX_CLAIM_BATCH) {
			throw new IllegalArgumentException("claimBatch of destination '" + name + "' must be between 1 and "
					+ MAX_CLAIM_BATCH + " but was " + claimBatch);
		}
		if (claimBatch > 1 && !idempotent) {
			throw new IllegalArgumentException("Destination '" + name + "' is not idempotent, so it cannot claim "
					+ claimBatch + " messages at once: after a crash every claimed message would be IN_DOUBT, sent or "
					+ "not. Use DeliveryDestination.idempotent(...) for a destination that deduplicates by the "
					+ "idempotency key, or keep one claim per send");
		}
	}

	/**
	 * A destination with one claim per send.
	 * @param name the name
	 * @param sender the sender
	 * @param idempotent whether the destination deduplicates
	 */
	public DeliveryDestination(String name, DeliverySender sender, boolean idempotent) {
		this(name, sender, idempotent, 1);
	}

	/**
	 * This idempotent destination with batched claims: up to {@code batch} messages claimed in one
	 * commit, sent one after the other, and the successful ones recorded in the commit that claims the
	 * next batch: about one commit per batch instead of one per message (a dispatcher round covers at
	 * least ten batches of such a destination for that). The price: a crash leaves every claimed message
	 * of the batch with an unknown outcome, and since the destination deduplicates they are all sent
	 * again after their lease (the ones already sent arrive twice, with the same idempotency key).
	 * @param batch messages per claim, 2 to 1000 (1 turns batching off)
	 * @return the destination with batched claims
	 * @throws IllegalArgumentException if the destination is not idempotent or the batch is out of range
	 */
	public DeliveryDestination withBatchClaims(int batch) {
		return new DeliveryDestination(this.name, this.sender, this.idempotent, batch);
	}

	/**
	 * A destination that does not deduplicate: unknown outcomes become IN_DOUBT.
	 * @param name the name
	 * @param sender the sender
	 * @return the destination
	 */
	public static DeliveryDestination of(String name, DeliverySender sender) {
		return new DeliveryDestination(name, sender, false);
	}

	/**
	 * A destination that deduplicates by idempotency key: unknown outcomes are sent again.
	 * @param name the name
	 * @param sender the sender
	 * @return the destination
	 */
	public static DeliveryDestination idempotent(String name, DeliverySender sender) {
		return new DeliveryDestination(name, sender, true);
	}

}
