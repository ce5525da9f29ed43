package dev.polling.jdbc.jobs;

/**
 * The states of a job of the {@link JobScheduler}.
 * <pre>
 * SCHEDULED --due, dispatched--&gt; DISPATCHED --its message DEAD--&gt; FAILED --operator requeue--&gt; DISPATCHED or SCHEDULED
 *     \--cancel--&gt; CANCELLED
 * </pre>
 */
public enum JobState {

	/** Waiting for its due time (or for another attempt at dispatching it, after a backoff). */
	SCHEDULED,

	/** Moved into the work queue as a message; kept until the retention purge. */
	DISPATCHED,

	/** Cancelled before it was dispatched; kept until the retention purge. */
	CANCELLED,

	/** Its handler failed for good (its queue message is DEAD); waits for an operator. */
	FAILED

}
