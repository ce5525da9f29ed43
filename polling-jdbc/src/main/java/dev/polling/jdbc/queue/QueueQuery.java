package dev.polling.jdbc.queue;

import java.util.List;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

import dev.polling.jdbc.internal.Arguments;

/**
 * One page of an operator's listing of messages ({@link QueueAdmin#entries(QueueQuery)}): the
 * messages in a state, optionally of one queue and one business key, with an id greater than
 * {@code afterId}, by id ascending, at most {@code limit} of them. The next page starts after the
 * last id of this one ({@link #next(List)}), so a page never reads the pages before it (keyset
 * paging, no offset).
 *
 * <pre>{@code
 * QueueQuery query = QueueQuery.of(MessageState.DEAD).withQueue("invoices").withLimit(50);
 * List<QueueEntry> page = admin.entries(query);
 * List<QueueEntry> second = admin.entries(query.next(page));
 * }</pre>
 *
 * @param state the state of the messages
 * @param queue only messages of this queue (exact name), or {@code null} for every queue
 * @param businessKey only messages of this business key (exact), or {@code null} for any key
 * @param afterId only messages with a greater id: 0 for the first page, else the last id of the
 * previous page
 * @param limit the most messages of the page, 1 to {@value #MAX_LIMIT}
 */
public record QueueQuery(MessageState state, @Nullable String queue, @Nullable String businessKey, long afterId,
		int limit) {

	/** The largest page. */
	public static final int MAX_LIMIT = 1000;

	/** The page size of {@link #of(MessageState)}. */
	public static final int DEFAULT_LIMIT = 100;

	/**
	 * Validates the query.
	 * @throws NullPointerException if {@code state} is null
	 * @throws IllegalArgumentException if {@code queue} or {@code businessKey} could not be a stored
	 * name (blank, too long, surrounding whitespace, control characters), {@code afterId} is negative
	 * or {@code limit} is not 1 to {@value #MAX_LIMIT}
	 */
	public QueueQuery {
		Objects.requireNonNull(state, "state must not be null: pass the state to list, e.g. MessageState.DEAD");
		if (queue != null) {
			Arguments.key("queue", queue, WorkQueue.MAX_QUEUE_LENGTH,
					"pass a queue name of at most " + WorkQueue.MAX_QUEUE_LENGTH + " characters, or null for every queue");
		}
		if (businessKey != null) {
			Arguments.key("businessKey", businessKey, WorkQueue.MAX_KEY_LENGTH,
					"pass a business key of at most " + WorkQueue.MAX_KEY_LENGTH + " characters, or null for any key");
		}
		Arguments.page(afterId, limit, MAX_LIMIT);
	}

	/**
	 * The first page of the messages in a state, of every queue and key, {@value #DEFAULT_LIMIT} at
	 * most.
	 * @param state the state
	 * @return the query
	 * @throws NullPointerException if {@code state} is null
	 */
	public static QueueQuery of(MessageState state) {
		return new QueueQuery(state, null, null, 0, DEFAULT_LIMIT);
	}

	/**
	 * This query for one queue only.
	 * @param queue the queue name (exact), or {@code null} for every queue
	 * @return the new query
	 * @throws IllegalArgumentException if the name could not be a queue's (see the constructor)
	 */
	public QueueQuery withQueue(@Nullable String queue) {
		return new QueueQuery(this.state, queue, this.businessKey, this.afterId, this.limit);
	}

	/**
	 * This query for one business key only.
	 * @param businessKey the key (exact), or {@code null} for any key
	 * @return the new query
	 * @throws IllegalArgumentException if the key could not be stored (see the constructor)
	 */
	public QueueQuery withBusinessKey(@Nullable String businessKey) {
		return new QueueQuery(this.state, this.queue, businessKey, this.afterId, this.limit);
	}

	/**
	 * This query starting after an id.
	 * @param afterId 0 for the first page, else the last id of the previous page
	 * @return the new query
	 * @throws IllegalArgumentException if {@code afterId} is negative
	 */
	public QueueQuery withAfterId(long afterId) {
		return new QueueQuery(this.state, this.queue, this.businessKey, afterId, this.limit);
	}

	/**
	 * This query with another page size.
	 * @param limit the most messages of a page, 1 to {@value #MAX_LIMIT}
	 * @return the new query
	 * @throws IllegalArgumentException if {@code limit} is out of range
	 */
	public QueueQuery withLimit(int limit) {
		return new QueueQuery(this.state, this.queue, this.businessKey, this.afterId, limit);
	}

	/**
	 * The query of the page after the given one: the same filters, after its last id. A page shorter
	 * than the limit was the last one; the next page of it is empty (or holds messages added since).
	 * @param page a page this query returned
	 * @return the query of the next page; this query if the page is empty
	 */
	public QueueQuery next(List<QueueEntry> page) {
		return page.isEmpty() ? this : withAfterId(page.get(page.size() - 1).id());
	}

}
