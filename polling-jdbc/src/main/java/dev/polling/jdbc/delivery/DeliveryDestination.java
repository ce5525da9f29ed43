package dev.polling.jdbc.delivery;

import dev.polling.jdbc.internal.Arguments;
import java.util.Objects;

/**
 * A named destination with its sender. {@code idempotent} declares that the destination
 * deduplicates by the idempotency key, so a send with an unknown outcome may be repeated.
 *
 * @param name the destination name used in {@link DeliveryGuard#store}
 * @param sender the sender
 * @param idempotent whether the destination deduplicates by idempotency key
 */
public record DeliveryDestination(String name, DeliverySender sender, boolean idempotent) {

	/**
	 * Validates the destination.
	 * @param name the name
	 * @param sender the sender
	 * @param idempotent whether the destination deduplicates
	 */
	public DeliveryDestination {
		Arguments.key("destination name", name, DeliveryGuard.MAX_DESTINATION_LENGTH, "e.g. \"smtp\"");
		Objects.requireNonNull(sender, "sender must not be null");
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
