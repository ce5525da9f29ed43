package dev.polling.jdbc.queue;

/**
 * The states of a message in the {@link WorkQueue}.
 * <pre>
 * BLOCKED --its key's head DONE or discarded--&gt; NEW
 * NEW --claim--&gt; IN_PROGRESS --complete--&gt; DONE
 *                    |  ^    \--fail / lease expiry--&gt; FAILED --backoff, claim--&gt; IN_PROGRESS
 *                    |  |     \--last attempt fails--&gt; DEAD --operator retry--&gt; NEW
 * </pre>
 */
public enum MessageState {

	/** Enqueued, never claimed; the oldest open message of its business key, or without one. */
	NEW,

	/**
	 * Waiting behind an older open message of its business key; becomes NEW when that one is DONE
	 * (or DEAD and discarded). Never read by a claim.
	 */
	BLOCKED,

	/** Claimed by a worker whose lease has not expired. */
	IN_PROGRESS,

	/** Processed; kept until the retention purge. */
	DONE,

	/** An attempt failed (or its lease expired); claimable again once its backoff has passed. */
	FAILED,

	/**
	 * Every attempt failed; waits for an operator (retry or discard). Blocks younger messages of the
	 * same business key.
	 */
	DEAD

}
