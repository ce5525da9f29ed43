package dev.polling.sample;

import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import com.icegreen.greenmail.configuration.GreenMailConfiguration;
import com.icegreen.greenmail.junit5.GreenMailExtension;
import org.springframework.test.context.DynamicPropertyRegistry;
import com.icegreen.greenmail.util.ServerSetup;
import com.icegreen.greenmail.util.ServerSetupTest;
import jakarta.mail.Message;
import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.Transport;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;

import dev.polling.sample.mail.ConfirmationSender;

/**
 * Sends test mails over SMTP to the embedded mail server, with a Message-ID of the test's choice.
 */
final class TestMails {

	private TestMails() {
	}

	/** GreenMail on free ports with the sample's three mailboxes (password {@code secret}), one per test class. */
	static GreenMailExtension mailServerWithTheSampleMailboxes() {
		return new GreenMailExtension(ServerSetup.dynamicPort(ServerSetupTest.SMTP_IMAP))
			.withConfiguration(GreenMailConfiguration.aConfig()
				.withUser("mailbox-1@demo.local", "mailbox-1", "secret")
				.withUser("mailbox-2@demo.local", "mailbox-2", "secret")
				.withUser("mailbox-3@demo.local", "mailbox-3", "secret"))
			.withPerMethodLifecycle(false);
	}

	/** The sample's mail server ports pointing at the test's GreenMail. */
	static void registerPorts(DynamicPropertyRegistry registry, GreenMailExtension server) {
		registry.add("sample.mail.imap-port", () -> server.getImap().getPort());
		registry.add("sample.mail.smtp-port", () -> server.getSmtp().getPort());
	}

	static void send(GreenMailExtension server, String mailbox, String messageId, String subject)
			throws MessagingException {
		Properties properties = new Properties();
		properties.put("mail.smtp.host", "127.0.0.1");
		properties.put("mail.smtp.port", Integer.toString(server.getSmtp().getPort()));
		Session session = Session.getInstance(properties);
		MimeMessage mail = new MimeMessage(session) {
			@Override
			protected void updateMessageID() throws MessagingException {
				setHeader("Message-ID", messageId);
			}
		};
		mail.setFrom(new InternetAddress("customer@shop.example"));
		mail.setRecipient(Message.RecipientType.TO, new InternetAddress(mailbox + "@demo.local"));
		mail.setSubject(subject);
		mail.setText("Please send the widgets.\n");
		Transport.send(mail);
	}

	/** The confirmations the sample sent the customer for the message. */
	static List<MimeMessage> confirmationsOf(GreenMailExtension server, String messageKey) throws MessagingException {
		List<MimeMessage> found = new ArrayList<>();
		for (MimeMessage mail : server.getReceivedMessagesForDomain("customer@shop.example")) {
			if (messageKey.equals(mail.getHeader(ConfirmationSender.CONFIRMS_HEADER, null))) {
				found.add(mail);
			}
		}
		return found;
	}

}
