package dev.polling.jdbc.queue;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * Counts of one queue's open messages and the age of its oldest waiting one, in database time.
 *
 * @param queue the queue name
 * @param ready messages in state NEW
 * @param blocked messages in state BLOCKED (waiting behind an older message of their business key)
 * @param inProgress messages in state IN_PROGRESS
 * @param failed messages in state FAILED (waiting for a retry)
 * @param dead messages in state DEAD
 * @param oldestWaiting age of the oldest NEW, BLOCKED or FAILED message, or {@code null} if there is none
 */
public record QueueStats(String queue, long ready, long blocked, long inProgress, long failed, long dead,
		@Nullable Duration oldestWaiting) {

	/**
	 * Messages waiting to be processed: NEW, BLOCKED and FAILED.
	 * @return the backlog
	 */
	public long backlog() {
		return this.ready + this.blocked + this.failed;
	}

}
