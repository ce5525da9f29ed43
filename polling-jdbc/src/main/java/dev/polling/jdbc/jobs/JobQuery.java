package dev.polling.jdbc.jobs;

import java.util.List;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

import dev.polling.jdbc.internal.Arguments;
import dev.polling.jdbc.queue.WorkQueue;

/**
 * One page of an operator's listing of jobs ({@link JobAdmin#entries(JobQuery)}): the jobs in a
 * state, optionally of one queue and one business id, with an id greater than {@code afterId}, by id ascending, at most {@code limit} of them. The next page starts after
 * the last id of this one ({@link #next(List)}), so a page never reads the pages before it (keyset
 * paging, no offset).
 *
 * <pre>{@code
 * JobQuery query = JobQuery.of(JobState.FAILED).withQueue("reminders").withLimit(50);
 * List<JobEntry> page = admin.entries(query);
 * List<JobEntry> second = admin.entries(query.next(page));
 * }</pre>
 *
 * @param state the state of the jobs
 * @param queue only jobs of this queue (exact name), or {@code null} for every queue
 * @param businessId only jobs of this business id (exact), or {@code null} for any
 * @param afterId only jobs with a greater id: 0 for the first page, else the last id of the
 * previous page
 * @param limit the most jobs of the page, 1 to {@value #MAX_LIMIT}
 */
public record JobQuery(JobState state, @Nullable String queue, @Nullable String businessId, long afterId,
		int limit) {

	/** The largest page. */
	public static final int MAX_LIMIT = 1000;

	/** The page size of {@link #of(JobState)}. */
	public static final int DEFAULT_LIMIT = 100;

	/**
	 * Validates the query.
	 * @throws NullPointerException if {@code state} is null
	 * @throws IllegalArgumentException if {@code queue} or {@code businessId} could not be a
	 * stored name (blank, too long, surrounding whitespace, control characters), {@code afterId} is
	 * negative or {@code limit} is not 1 to {@value #MAX_LIMIT}
	 */
	public JobQuery {
		Objects.requireNonNull(state, "state must not be null: pass the state to list, e.g. JobState.FAILED");
		if (queue != null) {
			Arguments.key("queue", queue, WorkQueue.MAX_QUEUE_LENGTH, "pass a queue name of at most "
					+ WorkQueue.MAX_QUEUE_LENGTH + " characters, or null for every queue");
		}
		if (businessId != null) {
			Arguments.key("businessId", businessId, JobScheduler.MAX_BUSINESS_ID_LENGTH, "pass a business id of at most "
					+ JobScheduler.MAX_BUSINESS_ID_LENGTH + " characters, or null for any");
		}
		Arguments.page(afterId, limit, MAX_LIMIT);
	}

	/**
	 * The first page of the jobs in a state, of every queue and business id,
	 * {@value #DEFAULT_LIMIT} at most.
	 * @param state the state
	 * @return the query
	 * @throws NullPointerException if {@code state} is null
	 */
	public static JobQuery of(JobState state) {
		return new JobQuery(state, null, null, 0, DEFAULT_LIMIT);
	}

	/**
	 * This query for one queue only.
	 * @param queue the queue name (exact), or {@code null} for every queue
	 * @return the new query
	 * @throws IllegalArgumentException if the name could not be a queue's (see the constructor)
	 */
	public JobQuery withQueue(@Nullable String queue) {
		return new JobQuery(this.state, queue, this.businessId, this.afterId, this.limit);
	}

	/**
	 * This query for one business id only.
	 * @param businessId the business id (exact), or {@code null} for any
	 * @return the new query
	 * @throws IllegalArgumentException if the id could not be stored (see the constructor)
	 */
	public JobQuery withBusinessId(@Nullable String businessId) {
		return new JobQuery(this.state, this.queue, businessId, this.afterId, this.limit);
	}

	/**
	 * This query starting after an id.
	 * @param afterId 0 for the first page, else the last id of the previous page
	 * @return the new query
	 * @throws IllegalArgumentException if {@code afterId} is negative
	 */
	public JobQuery withAfterId(long afterId) {
		return new JobQuery(this.state, this.queue, this.businessId, afterId, this.limit);
	}

	/**
	 * This query with another page size.
	 * @param limit the most jobs of a page, 1 to {@value #MAX_LIMIT}
	 * @return the new query
	 * @throws IllegalArgumentException if {@code limit} is out of range
	 */
	public JobQuery withLimit(int limit) {
		return new JobQuery(this.state, this.queue, this.businessId, this.afterId, limit);
	}

	/**
	 * The query of the page after the given one: the same filters, after its last id. A page shorter
	 * than the limit was the last one; the next page of it is empty (or holds jobs added since).
	 * @param page a page this query returned
	 * @return the query of the next page; this query if the page is empty
	 */
	public JobQuery next(List<JobEntry> page) {
		return page.isEmpty() ? this : withAfterId(page.get(page.size() - 1).id());
	}

}
