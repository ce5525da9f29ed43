package dev.polling.jdbc.queue;

/**
 * The states of a message in the {@link WorkQueue}.
 * <pre>
 * NEW --claim--&gt; IN_PROGRESS --complete--&gt; DONE
 *                    |  ^    \--fail / lease expiry--&gt; FAILED --backoff, claim--&gt; IN_PROGRESS
 *                    |  |     \--last attempt fails--&gt; DEAD --operator retry--&gt; NEW
 * </pre>
 */
public enum MessageState {

	/** Enqueued, never claimed. */
	NEW,

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
