package dev.polling.sample.order;

import java.time.Duration;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionTemplate;

import dev.polling.core.PollingManager;
import dev.polling.jdbc.delivery.DeliveryGuard;
import dev.polling.jdbc.inbox.Inbox;
import dev.polling.jdbc.inbox.Receipt;
import dev.polling.jdbc.jobs.JobScheduler;
import dev.polling.jdbc.queue.QueueMessage;
import dev.polling.jdbc.queue.WorkQueue;

/**
 * The order process in two steps.
 * <ol>
 * <li>{@link #receive}: in the poll cycle of the instance that holds the mailbox, the mail's inbox
 * receipt and, if it is new, a message in the work queue {@value #QUEUE}, in one transaction. The
 * mailbox holder only fetches; the work is spread over every instance.</li>
 * <li>{@link #process}: a worker thread on any instance creates the order, stores the
 * confirmation mail in the delivery guard and schedules the follow-up check, in the transaction in
 * which the queue marks the message DONE. If this worker lost the message meanwhile (its lease
 * expired while it was frozen, another worker has it), the fenced completion is rejected and all of
 * it rolls back: one order, one confirmation, one follow-up per mail.</li>
 * </ol>
 * The table {@code orders} has deliberately no unique key on {@code message_id}: the inbox and the
 * queue's fence alone keep duplicates out, and a duplicate business row would be visible to the demo.
 */
@Service
public class OrderService {

	/** The work queue of fetched mails. */
	public static final String QUEUE = "orders";

	/** The delivery destination of the confirmation mails. */
	public static final String CONFIRMATIONS = "confirmations";

	/** The job queue of the follow-up checks. */
	public static final String FOLLOW_UPS = "follow-ups";

	private final Inbox inbox;

	private final WorkQueue queue;

	private final DeliveryGuard delivery;

	private final JobScheduler jobs;

	private final JdbcClient jdbc;

	private final TransactionTemplate transaction;

	private final String instanceId;

	private final Duration processingTime;

	private final Duration followUpDelay;

	OrderService(Inbox inbox, WorkQueue queue, DeliveryGuard delivery, JobScheduler jobs, JdbcClient jdbc,
			TransactionTemplate transaction, PollingManager polling,
			@Value("${sample.mail.processing-time:0ms}") Duration processingTime,
			@Value("${sample.follow-up-delay:30s}") Duration followUpDelay) {
		if (followUpDelay.isNegative()) {
			throw new IllegalArgumentException("sample.follow-up-delay must not be negative, not " + followUpDelay
					+ "; set it to a duration such as 30s");
		}
		this.inbox = inbox;
		this.queue = queue;
		this.delivery = delivery;
		this.jobs = jobs;
		this.jdbc = jdbc;
		this.transaction = transaction;
		this.instanceId = polling.settings().instanceId();
		this.processingTime = processingTime;
		this.followUpDelay = followUpDelay;
	}

	/**
	 * Records the fetched mail in the inbox and, if it is new, puts it into the work queue, in one
	 * transaction; the customer is the queue's business key, so the orders of one customer are
	 * processed one at a time, in the order they were fetched. A duplicate is written to
	 * {@code duplicate_fetches} instead (the demo counts them).
	 * @param mailbox the mailbox (the inbox source)
	 * @param messageKey the inbox key of the mail
	 * @param subject the subject
	 * @param customer the sender
	 * @return NEW if the mail was queued, DUPLICATE if it had been received before
	 */
	public Receipt receive(String mailbox, String messageKey, String subject, String customer) {
		Receipt receipt = this.transaction.execute((status) -> {
			Receipt answer = this.inbox.receive(mailbox, messageKey);
			if (answer.isNew()) {
				OrderMail mail = new OrderMail(mailbox, messageKey, abbreviate(subject, 500), abbreviate(customer, 320),
						this.instanceId);
				String businessKey = customer.isBlank() ? null : abbreviate(customer.strip(), 255).strip();
				this.queue.enqueue(QUEUE, businessKey, mail.toJson());
			}
			else {
				this.jdbc.sql("INSERT INTO duplicate_fetches (mailbox, message_id, fetched_by) VALUES (?, ?, ?)")
					.params(mailbox, messageKey, this.instanceId)
					.update();
			}
			return answer;
		});
		if (receipt == null) {
			throw new IllegalStateException("The receiving transaction returned no receipt");
		}
		return receipt;
	}

	/**
	 * Works off one queued mail (a worker thread, in the queue's transaction): creates the order,
	 * stores its confirmation mail and schedules its follow-up check.
	 * @param message the queue message
	 */
	public void process(QueueMessage message) {
		OrderMail mail = OrderMail.fromJson(message.payload());
		simulateWork();
		this.jdbc
			.sql("INSERT INTO orders (mailbox, message_id, subject, customer, fetched_by, processed_by) VALUES (?, ?, ?, ?, ?, ?)")
			.params(mail.mailbox(), mail.messageKey(), mail.subject(), mail.customer(), mail.fetchedBy(), this.instanceId)
			.update();
		this.delivery.store(CONFIRMATIONS, "confirmation:" + mail.messageKey(), mail.toJson());
		this.jobs.scheduleOnce(FOLLOW_UPS, mail.messageKey(), this.followUpDelay, mail.toJson());
	}

	private void simulateWork() {
		long millis = this.processingTime.toMillis();
		if (millis > 0) {
			try {
				Thread.sleep(millis);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private static String abbreviate(String value, int max) {
		return (value.length() <= max) ? value : value.substring(0, max);
	}

}
