package dev.polling.jdbc.delivery;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * Counts of one destination's undelivered messages, in database time.
 *
 * @param destination the destination
 * @param pending PENDING messages
 * @param sending SENDING messages
 * @param failed FAILED messages (waiting for a retry)
 * @param inDoubt IN_DOUBT messages (waiting for an operator)
 * @param dead DEAD messages (waiting for an operator)
 * @param oldestPending age of the oldest PENDING or FAILED message, or {@code null}
 */
public record DeliveryStats(String destination, long pending, long sending, long failed, long inDoubt, long dead,
		@Nullable Duration oldestPending) {

	/**
	 * Messages waiting to be sent: PENDING and FAILED.
	 * @return the backlog
	 */
	public long backlog() {
		return this.pending + this.failed;
	}

}
