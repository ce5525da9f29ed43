package dev.polling.sample.order;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;

import dev.polling.core.PollingManager;
import dev.polling.jdbc.queue.QueueMessage;

/**
 * The follow-up check of an order (seed 002: "check the order after 30 minutes", here after
 * {@code sample.follow-up-delay}, default 30 s). {@link OrderService#process} schedules it as a
 * persistent job; when it is due, the job dispatcher (on the holder of the cluster
 * {@code FOLLOW_UPS}, coordinated through the database) moves it into the work queue
 * {@value OrderService#FOLLOW_UPS}, and a worker on any instance runs this check in the queue's
 * transaction. It records what it found in {@code follow_up_checks}, one row per execution (no
 * unique key, so the demo would see a check that ran twice).
 */
@Service
public class FollowUpService {

	private final JdbcClient jdbc;

	private final String instanceId;

	FollowUpService(JdbcClient jdbc, PollingManager polling) {
		this.jdbc = jdbc;
		this.instanceId = polling.settings().instanceId();
	}

	/**
	 * Checks the order of one mail: whether it exists, and records the check.
	 * @param message the follow-up job, moved into the work queue when it was due
	 */
	public void check(QueueMessage message) {
		OrderMail mail = OrderMail.fromJson(message.payload());
		int orders = this.jdbc.sql("SELECT COUNT(*) FROM orders WHERE message_id = ?")
			.param(mail.messageKey())
			.query(Integer.class)
			.single();
		this.jdbc.sql("INSERT INTO follow_up_checks (message_id, orders_found, checked_by) VALUES (?, ?, ?)")
			.params(mail.messageKey(), orders, this.instanceId)
			.update();
	}

}
