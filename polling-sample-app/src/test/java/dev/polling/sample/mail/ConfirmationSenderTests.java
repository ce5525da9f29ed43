package dev.polling.sample.mail;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;

import dev.polling.jdbc.delivery.Delivery;
import dev.polling.jdbc.delivery.NotDeliveredException;
import dev.polling.sample.FakeSmtpServer;
import dev.polling.sample.order.OrderMail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * How the confirmation sender tells the delivery guard what happened on the wire: definitely not
 * delivered (the guard retries) or unknown (the guard marks the confirmation IN_DOUBT and does not
 * send it again). Against real sockets: a closed port, an SMTP server that rejects the recipient,
 * and one that takes the mail's content and then drops the connection without answering.
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
	void aRejectedRecipientIsDefinitelyNotDelivered() throws Exception {
		try (FakeSmtpServer server = FakeSmtpServer.rejectingRecipients("550 no such user")) {
			ConfirmationSender sender = new ConfirmationSender(properties(server.port()));

			assertThatThrownBy(() -> sender.send(DELIVERY)).isInstanceOf(NotDeliveredException.class)
				.hasMessageContaining("rejected the recipient");
			assertThat(server.contentsReceived()).isZero();
		}
	}

	@Test
	void aConnectionLostAfterTheContentWasSentIsAnUnknownOutcome() throws Exception {
		try (FakeSmtpServer server = FakeSmtpServer.hangingUpAfterContent()) {
			ConfirmationSender sender = new ConfirmationSender(properties(server.port()));

			assertThatThrownBy(() -> sender.send(DELIVERY)).isNotInstanceOf(NotDeliveredException.class)
				.isInstanceOf(Exception.class);
			assertThat(server.contentsReceived()).as("the server got the whole mail before it hung up").isEqualTo(1);
		}
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

}
