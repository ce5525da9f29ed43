package dev.polling.sample.mail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;

import dev.polling.jdbc.delivery.Delivery;
import dev.polling.jdbc.delivery.NotDeliveredException;
import dev.polling.sample.order.OrderMail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * How the confirmation sender tells the delivery guard what happened on the wire: definitely not
 * delivered (the guard retries) or unknown (the guard marks the confirmation IN_DOUBT and does not
 * send it again). Against real sockets: a closed port, and an SMTP server that takes the mail's
 * content and then drops the connection without answering.
 */
class ConfirmationSenderTests {

	private static final Delivery DELIVERY = new Delivery(7, "confirmations", "confirmation:order-7@shop.example",
			new OrderMail("mailbox-1", "order-7@shop.example", "Order 7", "customer@shop.example", "instance-1").toJson(), 1,
			3, 1, Instant.now());

	@Test
	void aRefusedConnectionIsDefinitelyNotDelivered() throws IOException {
		int closedPort;
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			closedPort = socket.getLocalPort();
		}
		ConfirmationSender sender = new ConfirmationSender(properties(closedPort));

		assertThatThrownBy(() -> sender.send(DELIVERY)).isInstanceOf(NotDeliveredException.class)
			.hasMessageContaining("127.0.0.1:" + closedPort + " not reachable");
	}

	@Test
	void aConnectionLostAfterTheContentWasSentIsAnUnknownOutcome() throws Exception {
		AtomicBoolean contentReceived = new AtomicBoolean();
		try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			Thread smtp = new Thread(() -> serve(server, "250 OK", contentReceived), "smtp-that-hangs-up");
			smtp.setDaemon(true);
			smtp.start();
			ConfirmationSender sender = new ConfirmationSender(properties(server.getLocalPort()));

			assertThatThrownBy(() -> sender.send(DELIVERY)).isNotInstanceOf(NotDeliveredException.class)
				.isInstanceOf(Exception.class);
			smtp.join(5000);
		}
		assertThat(contentReceived).as("the server got the whole mail before it hung up").isTrue();
	}

	@Test
	void aRejectedRecipientIsDefinitelyNotDelivered() throws Exception {
		AtomicBoolean contentReceived = new AtomicBoolean();
		try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			Thread smtp = new Thread(() -> serve(server, "550 no such user", contentReceived), "smtp-that-rejects");
			smtp.setDaemon(true);
			smtp.start();
			ConfirmationSender sender = new ConfirmationSender(properties(server.getLocalPort()));

			assertThatThrownBy(() -> sender.send(DELIVERY)).isInstanceOf(NotDeliveredException.class)
				.hasMessageContaining("rejected the recipient");
			smtp.join(5000);
		}
		assertThat(contentReceived).isFalse();
	}

	@Test
	void aBadPayloadIsDefinitelyNotDelivered() {
		ConfirmationSender sender = new ConfirmationSender(properties(1));
		Delivery broken = new Delivery(8, "confirmations", "confirmation:x", "not json", 1, 3, 1, Instant.now());

		assertThatThrownBy(() -> sender.send(broken)).isInstanceOf(NotDeliveredException.class)
			.hasMessageContaining("confirmation:x");
	}

	private static MailProperties properties(int smtpPort) {
		MailProperties properties = new MailProperties();
		properties.setSmtpPort(smtpPort);
		properties.setTimeout(Duration.ofSeconds(3));
		return properties;
	}

	/**
	 * Speaks just enough SMTP to receive one mail, answering RCPT with the given reply; after the
	 * content it closes the connection instead of answering "250".
	 */
	private static void serve(ServerSocket server, String rcptReply, AtomicBoolean contentReceived) {
		try (Socket client = server.accept()) {
			BufferedReader in = new BufferedReader(new InputStreamReader(client.getInputStream(), StandardCharsets.US_ASCII));
			OutputStream out = client.getOutputStream();
			reply(out, "220 test SMTP");
			String line;
			while ((line = in.readLine()) != null) {
				String command = line.toUpperCase(java.util.Locale.ROOT);
				if (command.startsWith("RCPT")) {
					reply(out, rcptReply);
				}
				else if (command.startsWith("QUIT")) {
					reply(out, "221 bye");
					return;
				}
				else if (command.startsWith("EHLO") || command.startsWith("HELO") || command.startsWith("MAIL")) {
					reply(out, "250 OK");
				}
				else if (command.startsWith("DATA")) {
					reply(out, "354 go ahead");
					while ((line = in.readLine()) != null && !line.equals(".")) {
						// the mail's content
					}
					contentReceived.set(line != null);
					return; // hang up without the final answer
				}
				else {
					reply(out, "250 OK");
				}
			}
		}
		catch (IOException ex) {
			// the test fails on contentReceived
		}
	}

	private static void reply(OutputStream out, String line) throws IOException {
		out.write((line + "\r\n").getBytes(StandardCharsets.US_ASCII));
		out.flush();
	}

}
