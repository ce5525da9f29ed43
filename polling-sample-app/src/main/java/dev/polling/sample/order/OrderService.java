package dev.polling.sample.order;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionTemplate;

import dev.polling.core.PollingManager;
import dev.polling.jdbc.inbox.Inbox;
import dev.polling.jdbc.inbox.Receipt;

/**
 * Turns a mail into an order. The inbox receipt and the order row are written in one transaction:
 * a mail fetched twice (after a crash between commit and delete, or by a second holder) gets one
 * order, and a rolled-back order leaves no receipt behind, so the mail counts as new when fetched
 * again. The table {@code orders} has deliberately no unique key on {@code message_id}: the inbox
 * alone keeps duplicates out, and a duplicate business row would be visible to the demo.
 */
@Service
public class OrderService {

	private final Inbox inbox;

	private final JdbcClient jdbc;

	private final TransactionTemplate transaction;

	private final String instanceId;

	OrderService(Inbox inbox, JdbcClient jdbc, TransactionTemplate transaction, PollingManager polling) {
		this.inbox = inbox;
		this.jdbc = jdbc;
		this.transaction = transaction;
		this.instanceId = polling.settings().instanceId();
	}

	/**
	 * Records the mail in the inbox and, if it is new, creates its order, in one transaction. A
	 * duplicate is written to {@code duplicate_fetches} instead (the demo counts them).
	 * @param mailbox the mailbox (the inbox source)
	 * @param messageKey the inbox key of the mail
	 * @param subject the subject
	 * @param customer the sender
	 * @return NEW if an order was created, DUPLICATE if the mail had been processed before
	 */
	public Receipt receive(String mailbox, String messageKey, String subject, String customer) {
		Receipt receipt = this.transaction.execute((status) -> {
			Receipt answer = this.inbox.receive(mailbox, messageKey);
			if (answer.isNew()) {
				this.jdbc.sql("INSERT INTO orders (mailbox, message_id, subject, customer, processed_by) VALUES (?, ?, ?, ?, ?)")
					.params(mailbox, messageKey, abbreviate(subject, 500), abbreviate(customer, 320), this.instanceId)
					.update();
			}
			else {
				this.jdbc.sql("INSERT INTO duplicate_fetches (mailbox, message_id, fetched_by) VALUES (?, ?, ?)")
					.params(mailbox, messageKey, this.instanceId)
					.update();
			}
			return answer;
		});
		if (receipt == null) {
			throw new IllegalStateException("The order transaction returned no receipt");
		}
		return receipt;
	}

	private static String abbreviate(String value, int max) {
		return (value.length() <= max) ? value : value.substring(0, max);
	}

}
