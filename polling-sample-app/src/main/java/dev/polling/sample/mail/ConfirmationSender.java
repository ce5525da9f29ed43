package dev.polling.sample.mail;

import java.nio.charset.StandardCharsets;
import java.util.Properties;

import jakarta.mail.Address;
import jakarta.mail.Message;
import jakarta.mail.MessagingException;
import jakarta.mail.SendFailedException;
import jakarta.mail.Session;
import jakarta.mail.Transport;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import org.springframework.stereotype.Component;

import dev.polling.jdbc.delivery.Delivery;
import dev.polling.jdbc.delivery.DeliverySender;
import dev.polling.jdbc.delivery.NotDeliveredException;
import dev.polling.jdbc.inbox.InboxKeys;
import dev.polling.sample.order.OrderMail;

/**
 * Sends the confirmation of an order to the customer over SMTP. The delivery guard calls it after it
 * has committed the message as SENDING; what it throws tells the guard what happened:
 * <ul>
 * <li>the server refused the connection, or rejected every recipient before the mail's content was
 * sent: {@link NotDeliveredException} (definitely not delivered; retried after a backoff);</li>
 * <li>anything later (the connection broke during or after DATA, a timeout waiting for the
 * server's answer): rethrown as it is: the mail may have been delivered, so the guard marks it
 * IN_DOUBT and does not send it again by itself.</li>
 * </ul>
 * Each confirmation carries its idempotency key twice: as header {@code X-Idempotency-Key} and in a
 * Message-ID derived from it (the same for every attempt), so a receiver or an operator can tell a
 * repeated delivery from a new one. The demo counts the confirmations in the customers' mailboxes
 * by that header.
 */
@Component
public class ConfirmationSender implements DeliverySender {

	/** The header with the delivery's idempotency key. */
	public static final String IDEMPOTENCY_HEADER = "X-Idempotency-Key";

	/** The header with the inbox key of the order mail being confirmed. */
	public static final String CONFIRMS_HEADER = "X-Confirms";

	private final MailProperties properties;

	private final Session session;

	public ConfirmationSender(MailProperties properties) {
		this.properties = properties;
		Properties mail = new Properties();
		String timeout = Long.toString(properties.getTimeout().toMillis());
		mail.put("mail.smtp.connectiontimeout", timeout);
		mail.put("mail.smtp.timeout", timeout);
		mail.put("mail.smtp.writetimeout", timeout);
		this.session = Session.getInstance(mail);
	}

	@Override
	public void send(Delivery delivery) throws Exception {
		MimeMessage mail;
		try {
			mail = confirmation(delivery, OrderMail.fromJson(delivery.payload()));
		}
		catch (MessagingException | IllegalArgumentException ex) {
			// nothing was sent yet
			throw new NotDeliveredException("Could not write the confirmation " + delivery.idempotencyKey() + ": "
					+ describe(ex), ex);
		}
		try (Transport transport = this.session.getTransport("smtp")) {
			try {
				transport.connect(this.properties.getHost(), this.properties.getSmtpPort(), null, null);
			}
			catch (MessagingException ex) {
				// no connection, so nothing was sent
				throw new NotDeliveredException("SMTP server " + this.properties.getHost() + ":"
						+ this.properties.getSmtpPort() + " not reachable: " + describe(ex), ex);
			}
			try {
				transport.sendMessage(mail, mail.getAllRecipients());
			}
			catch (SendFailedException ex) {
				// definite only when the server rejected every recipient (RCPT, before DATA); the same
				// exception type also reports a connection lost after the content was sent ("[EOF]"), whose
				// addresses are valid but not confirmed as sent: that outcome is unknown
				if (isEmpty(ex.getValidSentAddresses()) && isEmpty(ex.getValidUnsentAddresses())
						&& !isEmpty(ex.getInvalidAddresses())) {
					throw new NotDeliveredException("SMTP server rejected the recipient: " + describe(ex), ex);
				}
				throw ex;
			}
		}
	}

	private MimeMessage confirmation(Delivery delivery, OrderMail order) throws MessagingException {
		String messageId = "<confirmation." + InboxKeys.sha256(delivery.idempotencyKey().getBytes(StandardCharsets.UTF_8))
			.substring(0, 32) + "@" + domainOf(this.properties.getConfirmationsFrom()) + ">";
		MimeMessage mail = new MimeMessage(this.session) {
			@Override
			protected void updateMessageID() throws MessagingException {
				setHeader("Message-ID", messageId);
			}
		};
		mail.setFrom(new InternetAddress(this.properties.getConfirmationsFrom()));
		mail.setRecipient(Message.RecipientType.TO, new InternetAddress(order.customer(), true));
		mail.setSubject("Confirmation: " + order.subject());
		mail.setHeader(IDEMPOTENCY_HEADER, delivery.idempotencyKey());
		mail.setHeader(CONFIRMS_HEADER, order.messageKey());
		mail.setHeader("In-Reply-To", "<" + order.messageKey() + ">");
		mail.setText("We received your order \"" + order.subject() + "\" and are processing it.\n",
				StandardCharsets.UTF_8.name());
		mail.saveChanges();
		return mail;
	}

	private static boolean isEmpty(Address[] addresses) {
		return addresses == null || addresses.length == 0;
	}

	private static String domainOf(String address) {
		int at = address.lastIndexOf('@');
		return (at >= 0) ? address.substring(at + 1).replace(">", "").strip() : "localhost";
	}

	private static String describe(Exception ex) {
		return (ex.getMessage() != null) ? ex.getMessage() : ex.getClass().getSimpleName();
	}

}
