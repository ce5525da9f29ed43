package dev.polling.jdbc.delivery;

import dev.polling.jdbc.internal.Arguments;
import java.util.Objects;

/**
 * A named destination with its sender. {@code idempotent} declares that the destination
 * deduplicates by the idempotency key, so a send with an unknown outcome may be repeated.
 * {@code claimBatch} above 1 (only for idempotent destinations, see {@link #withBatchClaims}) claims
 * that many messages in one commit and records their outcomes in one; {@code lockedBatches} (see
 * {@link #withLockedBatches}) holds each batch by row locks in one transaction instead of a lease.
 *
 * @param name the destination name used in {@link DeliveryGuard#store}
 * @param sender the sender
 * @param idempotent whether the destination deduplicates by idempotency key
 * @param claimBatch how many messages one claim takes, 1 (the default) to 1000
 * @param lockedBatches whether a batch is held by row locks for the duration of its sends, in one
 * transaction with its outcomes, instead of being claimed with a lease (idempotent destinations only)
 */
public record DeliveryDestination(String name, DeliverySender sender, boolean idempotent, int claimBatch,
		boolean lockedBatches) {

	/** The most messages one batched claim takes. */
	public static final int MAX_CLAIM_BATCH = 1000;

	/**
	 * Validates the destination.
	 * @param name the name
	 * @param sender the sender
	 * @param idempotent whether the destination deduplicates
	 * @param claimBatch how many messages one claim takes
	 * @param lockedBatches whether batches are held by row locks instead of leases
	 */
	public DeliveryDestination {
		Arguments.key("destination name", name, DeliveryGuard.MAX_DESTINATION_LENGTH, "e.g. \"smtp\"");
		Objects.requireNonNull(sender, "sender must not be null");
		if (claimBatch < 1 || claimBatch > MAX_CLAIM_BATCH) {
			throw new IllegalArgumentException("claimBatch of destination '" + name + "' must be between 1 and "
					+ MAX_CLAIM_BATCH + " but was " + claimBatch);
		}
		if (lockedBatches && !idempotent) {
			throw new IllegalArgumentException("Destination '" + name + "' is not idempotent, so it cannot use locked "
					+ "batches: a lost connection during the sends rolls the batch back and sends it all again. Use "
					+ "DeliveryDestination.idempotent(...) for a destination that deduplicates by the idempotency key");
		}
		if (claimBatch > 1 && !idempotent) {
			throw new IllegalArgumentException("Destination '" + name + "' is not idempotent, so it cannot claim "
					+ claimBatch + " messages at once: after a crash every claimed message would be IN_DOUBT, sent or "
					+ "not. Use DeliveryDestination.idempotent(...) for a destination that deduplicates by the "
					+ "idempotency key, or keep one claim per send");
		}
	}

	/**
	 * A destination with leased claims of {@code claimBatch} messages.
	 * @param name the name
	 * @param sender the sender
	 * @param idempotent whether the destination deduplicates
	 * @param claimBatch how many messages one claim takes
	 */
	public DeliveryDestination(String name, DeliverySender sender, boolean idempotent, int claimBatch) {
		this(name, sender, idempotent, claimBatch, false);
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
	 * This idempotent destination with locked batches, the outbox loop's way: in one transaction, up
	 * to {@code batch} due messages are locked ({@code FOR UPDATE SKIP LOCKED}; they stay PENDING or
	 * FAILED, other instances skip them), sent one after the other, and their outcomes written; one
	 * commit per batch and no claim write per message, so the database spends about 40 % less CPU per
	 * message than with {@link #withBatchClaims} (docs/benchmarks.md). The
	 * price: the transaction and the batch's row locks stay open while its messages are sent, so a
	 * slow or hung sender holds them (and a pooled connection) that long; no message is ever SENDING,
	 * so the stats show none in flight; and anything that ends the transaction before its commit (a
	 * crash, a lost connection, a failed outcome write) leaves the whole batch due again, to be sent
	 * again, the ones already sent a second time with the same idempotency key.
	 * @param batch messages per transaction, 1 to 1000
	 * @return the destination with locked batches
	 * @throws IllegalArgumentException if the destination is not idempotent or the batch is out of range
	 */
	public DeliveryDestination withLockedBatches(int batch) {
		return new DeliveryDestination(this.name, this.sender, this.idempotent, batch, true);
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
