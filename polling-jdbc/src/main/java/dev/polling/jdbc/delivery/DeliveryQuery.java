package dev.polling.jdbc.delivery;

import java.util.List;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

import dev.polling.jdbc.internal.Arguments;

/**
 * One page of an operator's listing of outgoing messages ({@link DeliveryAdmin#entries(DeliveryQuery)}):
 * the messages in a state, optionally of one destination and one idempotency key, with an id greater
 * than {@code afterId}, by id ascending, at most {@code limit} of them. The next page starts after
 * the last id of this one ({@link #next(List)}), so a page never reads the pages before it (keyset
 * paging, no offset).
 *
 * <pre>{@code
 * DeliveryQuery query = DeliveryQuery.of(DeliveryState.IN_DOUBT).withDestination("payments").withLimit(50);
 * List<DeliveryEntry> page = admin.entries(query);
 * List<DeliveryEntry> second = admin.entries(query.next(page));
 * }</pre>
 *
 * @param state the state of the messages
 * @param destination only messages to this destination (exact name), or {@code null} for every
 * destination
 * @param idempotencyKey only messages with this idempotency key (exact), or {@code null} for any key
 * @param afterId only messages with a greater id: 0 for the first page, else the last id of the
 * previous page
 * @param limit the most messages of the page, 1 to {@value #MAX_LIMIT}
 */
public record DeliveryQuery(DeliveryState state, @Nullable String destination, @Nullable String idempotencyKey,
		long afterId, int limit) {

	/** The largest page. */
	public static final int MAX_LIMIT = 1000;

	/** The page size of {@link #of(DeliveryState)}. */
	public static final int DEFAULT_LIMIT = 100;

	/**
	 * Validates the query.
	 * @throws NullPointerException if {@code state} is null
	 * @throws IllegalArgumentException if {@code destination} or {@code idempotencyKey} could not be a
	 * stored name (blank, too long, surrounding whitespace, control characters), {@code afterId} is
	 * negative or {@code limit} is not 1 to {@value #MAX_LIMIT}
	 */
	public DeliveryQuery {
		Objects.requireNonNull(state, "state must not be null: pass the state to list, e.g. DeliveryState.IN_DOUBT");
		if (destination != null) {
			Arguments.key("destination", destination, DeliveryGuard.MAX_DESTINATION_LENGTH, "pass a destination of at "
					+ "most " + DeliveryGuard.MAX_DESTINATION_LENGTH + " characters, or null for every destination");
		}
		if (idempotencyKey != null) {
			Arguments.key("idempotencyKey", idempotencyKey, DeliveryGuard.MAX_KEY_LENGTH, "pass an idempotency key of "
					+ "at most " + DeliveryGuard.MAX_KEY_LENGTH + " characters, or null for any key");
		}
		Arguments.page(afterId, limit, MAX_LIMIT);
	}

	/**
	 * The first page of the messages in a state, of every destination and key,
	 * {@value #DEFAULT_LIMIT} at most.
	 * @param state the state
	 * @return the query
	 * @throws NullPointerException if {@code state} is null
	 */
	public static DeliveryQuery of(DeliveryState state) {
		return new DeliveryQuery(state, null, null, 0, DEFAULT_LIMIT);
	}

	/**
	 * This query for one destination only.
	 * @param destination the destination (exact), or {@code null} for every destination
	 * @return the new query
	 * @throws IllegalArgumentException if the name could not be a destination's (see the constructor)
	 */
	public DeliveryQuery withDestination(@Nullable String destination) {
		return new DeliveryQuery(this.state, destination, this.idempotencyKey, this.afterId, this.limit);
	}

	/**
	 * This query for one idempotency key only.
	 * @param idempotencyKey the key (exact), or {@code null} for any key
	 * @return the new query
	 * @throws IllegalArgumentException if the key could not be stored (see the constructor)
	 */
	public DeliveryQuery withIdempotencyKey(@Nullable String idempotencyKey) {
		return new DeliveryQuery(this.state, this.destination, idempotencyKey, this.afterId, this.limit);
	}

	/**
	 * This query starting after an id.
	 * @param afterId 0 for the first page, else the last id of the previous page
	 * @return the new query
	 * @throws IllegalArgumentException if {@code afterId} is negative
	 */
	public DeliveryQuery withAfterId(long afterId) {
		return new DeliveryQuery(this.state, this.destination, this.idempotencyKey, afterId, this.limit);
	}

	/**
	 * This query with another page size.
	 * @param limit the most messages of a page, 1 to {@value #MAX_LIMIT}
	 * @return the new query
	 * @throws IllegalArgumentException if {@code limit} is out of range
	 */
	public DeliveryQuery withLimit(int limit) {
		return new DeliveryQuery(this.state, this.destination, this.idempotencyKey, this.afterId, limit);
	}

	/**
	 * The query of the page after the given one: the same filters, after its last id. A page shorter
	 * than the limit was the last one; the next page of it is empty (or holds messages added since).
	 * @param page a page this query returned
	 * @return the query of the next page; this query if the page is empty
	 */
	public DeliveryQuery next(List<DeliveryEntry> page) {
		return page.isEmpty() ? this : withAfterId(page.get(page.size() - 1).id());
	}

}
