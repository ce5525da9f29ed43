package dev.polling.sample;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import com.icegreen.greenmail.junit5.GreenMailExtension;
import jakarta.mail.MessagingException;
import jakarta.mail.internet.MimeMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.polling.jdbc.delivery.DeliveryEntry;
import dev.polling.jdbc.delivery.DeliveryGuard;
import dev.polling.jdbc.delivery.DeliveryState;
import dev.polling.sample.demo.InDoubtOperator;
import dev.polling.sample.mail.ConfirmationSender;
import dev.polling.sample.mail.MailProperties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A confirmation whose send ended in an unknown outcome (the SMTP server took the content and hung
 * up without confirming) becomes IN_DOUBT and is not sent again by itself; the operator (the demo's
 * {@link InDoubtOperator}, through {@code /actuator/pollingdelivery}) resolves it: "resend" sends
 * it once more with the same idempotency key, "delivered" closes it without sending.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "spring.datasource.url=jdbc:h2:mem:in-doubt;DB_CLOSE_DELAY=-1", "sample.poll-delay-millis=200",
				"polling.instance-id=in-doubt-instance", "polling.jdbc.delivery.poll-interval=200ms",
				"polling.jdbc.queue.poll-interval=100ms", "management.endpoint.pollingdelivery.access=unrestricted" })
class InDoubtConfirmationTests {

	@RegisterExtension
	static final GreenMailExtension mailServer = TestMails.mailServerWithTheSampleMailboxes();

	@Autowired
	private MailProperties mail;

	@Autowired
	private DeliveryGuard delivery;

	@LocalServerPort
	private int port;

	@DynamicPropertySource
	static void mailServer(DynamicPropertyRegistry registry) {
		TestMails.registerPorts(registry, mailServer);
	}

	@Test
	void aConfirmationInDoubtIsNotSentAgainUntilTheOperatorResolvesIt() throws Exception {
		int greenMailPort = this.mail.getSmtpPort();
		try (FakeSmtpServer hangingUp = FakeSmtpServer.hangingUpAfterContent()) {
			this.mail.setSmtpPort(hangingUp.port()); // the sender reads the port at every send
			TestMails.send(mailServer, "mailbox-1", "<resend-me@shop.example>", "Order 8: 1 x widget");
			TestMails.send(mailServer, "mailbox-2", "<arrived@shop.example>", "Order 9: 2 x widget");
			await().atMost(Duration.ofSeconds(30))
				.untilAsserted(() -> assertThat(inDoubtKeys()).containsExactlyInAnyOrder("confirmation:resend-me@shop.example",
						"confirmation:arrived@shop.example"));
			assertThat(hangingUp.contentsReceived()).isEqualTo(2);
		}
		finally {
			this.mail.setSmtpPort(greenMailPort);
		}
		// not sent again by itself
		Thread.sleep(1500);
		assertThat(confirmationsOf("resend-me@shop.example")).isEmpty();
		assertThat(inDoubtKeys()).hasSize(2);

		// the operator: one did not arrive (resend), the other did (delivered)
		List<String> lines = new InDoubtOperator(HttpClient.newHttpClient(), "http://127.0.0.1:" + this.port)
			.resolveAll((key) -> key.equals("confirmation:arrived@shop.example"));

		assertThat(lines).hasSize(2)
			.anyMatch((line) -> line.contains("confirmation:resend-me@shop.example") && line.contains("not found")
					&& line.contains("/resend -> 200"))
			.anyMatch((line) -> line.contains("confirmation:arrived@shop.example") && line.contains("found")
					&& line.contains("/delivered -> 200"));
		await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
			assertThat(confirmationsOf("resend-me@shop.example")).hasSize(1);
			assertThat(state("confirmation:resend-me@shop.example")).isEqualTo(DeliveryState.DELIVERED);
		});
		MimeMessage resent = confirmationsOf("resend-me@shop.example").get(0);
		assertThat(resent.getHeader(ConfirmationSender.IDEMPOTENCY_HEADER, null)).isEqualTo("confirmation:resend-me@shop.example");
		assertThat(state("confirmation:arrived@shop.example")).isEqualTo(DeliveryState.DELIVERED);
		assertThat(confirmationsOf("arrived@shop.example")).as("resolved as delivered: not sent").isEmpty();
		assertThat(inDoubtKeys()).isEmpty();
	}

	private List<String> inDoubtKeys() {
		return this.delivery.admin().entries(DeliveryState.IN_DOUBT, 100).stream().map(DeliveryEntry::idempotencyKey).toList();
	}

	private DeliveryState state(String idempotencyKey) {
		for (DeliveryState state : DeliveryState.values()) {
			if (this.delivery.admin().entries(state, 1000).stream().anyMatch((e) -> e.idempotencyKey().equals(idempotencyKey))) {
				return state;
			}
		}
		throw new AssertionError("no delivery " + idempotencyKey);
	}

	private static List<MimeMessage> confirmationsOf(String messageKey) throws MessagingException {
		List<MimeMessage> found = new ArrayList<>();
		for (MimeMessage mail : mailServer.getReceivedMessagesForDomain("customer@shop.example")) {
			if (messageKey.equals(mail.getHeader(ConfirmationSender.CONFIRMS_HEADER, null))) {
				found.add(mail);
			}
		}
		return found;
	}

}
