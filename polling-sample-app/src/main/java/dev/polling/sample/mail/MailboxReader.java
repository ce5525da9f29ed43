package dev.polling.sample.mail;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.mail.Address;
import jakarta.mail.Flags;
import jakarta.mail.FetchProfile;
import jakarta.mail.Folder;
import jakarta.mail.UIDFolder;
import org.eclipse.angus.mail.iap.Response;
import org.eclipse.angus.mail.imap.IMAPFolder;
import jakarta.mail.Message;
import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.Store;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

import dev.polling.core.PollingManager;
import dev.polling.jdbc.inbox.InboxKeys;
import dev.polling.jdbc.inbox.Receipt;
import dev.polling.sample.order.OrderService;

/**
 * Fetches the mails of one mailbox over IMAP and hands each to {@link OrderService#receive}.
 * <p>
 * What happens to a mail: its inbox receipt (key: the Message-ID) and a message in the work queue
 * are written in one database transaction (workers on every instance then create the order, see
 * {@link OrderService#process}); only after that transaction committed is the mail
 * flagged {@code \Deleted}, and the flagged mails are expunged when the cycle closes the folder.
 * So a mail leaves the server only once its order is safe in the database. If the instance dies
 * between the commit and the flag, the mail is still on the server and the next holder of the
 * cluster fetches it again: the inbox answers DUPLICATE, no second order is created, and the mail
 * is deleted then. A mail whose transaction fails stays on the server and is tried at the next tick.
 */
@Component
public class MailboxReader {

	private static final Logger logger = LoggerFactory.getLogger(MailboxReader.class);

	private final MailProperties properties;

	private final OrderService orders;

	private final PollingManager polling;

	private final Session session;

	/** The last failure per cluster, to log a failure once rather than at every tick. */
	private final Map<String, String> lastFailures = new ConcurrentHashMap<>();

	MailboxReader(MailProperties properties, OrderService orders, PollingManager polling) {
		this.properties = properties;
		this.orders = orders;
		this.polling = polling;
		Properties mail = new Properties();
		String timeout = Long.toString(properties.getTimeout().toMillis());
		mail.put("mail.imap.connectiontimeout", timeout);
		mail.put("mail.imap.timeout", timeout);
		mail.put("mail.imap.writetimeout", timeout);
		this.session = Session.getInstance(mail);
	}

	/**
	 * Processes up to the batch size of mails waiting in the mailbox that the cluster polls. Call it
	 * only while holding the cluster (in the sample: from a {@code @PollingCycle} method).
	 * @param clusterId the polling cluster, whose mailbox is {@code sample.mail.mailboxes.<clusterId>}
	 * @return how many mails were received (new or duplicate)
	 */
	public int poll(String clusterId) {
		MailProperties.Mailbox mailbox = this.properties.getMailboxes().get(clusterId);
		if (mailbox == null) {
			throw new IllegalStateException("No mailbox for polling cluster '" + clusterId
					+ "': set sample.mail.mailboxes." + clusterId + ".username and .password");
		}
		int received = 0;
		try {
			Store store = this.session.getStore("imap");
			store.connect(this.properties.getHost(), this.properties.getImapPort(), mailbox.getUsername(),
					mailbox.getPassword());
			try {
				Folder folder = store.getFolder("INBOX");
				folder.open(Folder.READ_WRITE);
				try {
					// UID, envelope and flags of every mail in one FETCH, so each UID is paired with the right
					// mail even if another session expunges meanwhile; everything after that goes by UID
					IMAPFolder imap = (IMAPFolder) folder;
					Message[] all = folder.getMessages();
					FetchProfile profile = new FetchProfile();
					profile.add(UIDFolder.FetchProfileItem.UID);
					profile.add(FetchProfile.Item.ENVELOPE);
					profile.add(FetchProfile.Item.FLAGS);
					folder.fetch(all, profile);
					for (Message message : all) {
						if (received >= this.properties.getBatchSize() || Thread.currentThread().isInterrupted()) {
							break;
						}
						if (message.isExpunged() || message.isSet(Flags.Flag.DELETED)) {
							continue;
						}
						if (!process(clusterId, mailbox.getUsername(), (MimeMessage) message, imap, imap.getUID(message))) {
							logger.warn("Mailbox {} ({}): this instance no longer holds the cluster; ending the cycle",
									mailbox.getUsername(), clusterId);
							break;
						}
						received++;
					}
				}
				finally {
					folder.close(true); // expunges the mails flagged \Deleted
				}
			}
			finally {
				store.close();
			}
			this.lastFailures.remove(clusterId);
		}
		catch (MessagingException | IOException ex) {
			String failure = ex.getClass().getSimpleName() + ": " + ex.getMessage();
			if (!failure.equals(this.lastFailures.put(clusterId, failure))) {
				logger.warn("Mailbox {} ({}): {}; trying again at the next tick ({} mails received in this cycle)",
						mailbox.getUsername(), clusterId, failure, received);
			}
		}
		if (received > 0) {
			logger.info("Mailbox {} ({}): {} mails received and queued", mailbox.getUsername(), clusterId, received);
		}
		return received;
	}

	/** Processes one mail; returns whether this instance still holds the cluster afterwards. */
	private boolean process(String clusterId, String source, MimeMessage mail, IMAPFolder folder, long uid)
			throws MessagingException, IOException {
		String key = key(mail);
		String subject = (mail.getSubject() != null) ? mail.getSubject() : "";
		Address[] from = mail.getFrom();
		String customer = (from != null && from.length > 0)
				? ((from[0] instanceof InternetAddress address) ? address.getAddress() : from[0].toString()) : "";
		Receipt receipt = this.orders.receive(source, key, subject, customer);
		// only after the commit: a crash before this line leaves the mail for the next holder,
		// whose receipt is then a DUPLICATE
		deleteByUid(folder, uid);
		if (receipt == Receipt.DUPLICATE) {
			logger.info("Mailbox {}: mail {} was received before (inbox DUPLICATE), deleting it", source, key);
		}
		// false when the hold was lost (e.g. this JVM was frozen and a peer may have taken over)
		return this.polling.recordActivity(clusterId);
	}

	/** Flags the mail with this UID as deleted: by UID, never by sequence number (those shift when others expunge). */
	private static void deleteByUid(IMAPFolder folder, long uid) throws MessagingException {
		folder.doCommand((protocol) -> {
			Response[] responses = protocol.command("UID STORE " + uid + " +FLAGS.SILENT (\\Deleted)", null);
			protocol.handleResult(responses[responses.length - 1]);
			return null;
		});
	}

	private static String key(MimeMessage mail) throws MessagingException, IOException {
		String messageId = mail.getMessageID();
		if (messageId != null && !messageId.isBlank()) {
			return InboxKeys.messageId(messageId);
		}
		ByteArrayOutputStream raw = new ByteArrayOutputStream();
		mail.writeTo(raw);
		return InboxKeys.sha256(raw.toByteArray());
	}

}
