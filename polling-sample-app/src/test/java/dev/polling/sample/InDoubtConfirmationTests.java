package dev.polling.sample;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.icegreen.greenmail.junit5.GreenMailExtension;
import jakarta.mail.internet.MimeMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import dev.polling.jdbc.delivery.DeliveryEntry;
import dev.polling.jdbc.delivery.DeliveryGuard;
import dev.polling.jdbc.delivery.DeliveryState;
import dev.polling.sample.mail.ConfirmationSender;
import dev.polling.sample.mail.MailProperties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A confirmation whose send ended in an unknown outcome (the SMTP server took the content and hung
 * up without confirming) becomes IN_DOUBT and is not sent again by itself; the operator, through
 * {@code /actuator/pollingdelivery} (as polling-e2e's {@code InDoubtOperator} does in the demo),
 * finds it listed and resolves it: "resend" sends it once more with the same idempotency key,
 * "delivered" closes it without sending.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "spring.datasource.url=jdbc:h2:mem:in-doubt;DB_CLOSE_DELAY=-1", "sample.poll-delay-millis=200",
				"polling.instance-id=in-doubt-instance", "polling.jdbc.delivery.workers.poll-interval=200ms",
				"polling.jdbc.queue.workers.poll-interval=100ms", "management.endpoint.pollingdelivery.access=unrestricted" })
class InDoubtConfirmationTests {

	@RegisterExtension
	static final GreenMailExtension mailServer = TestMails.mailServerWithTheSampleMailboxes();

	@Autowired
	private MailProperties mail;

	@Autowired
	private DeliveryGuard delivery;

	@LocalServerPort
	private int port;

	private final HttpClient http = HttpClient.newHttpClient();

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
		assertThat(TestMails.confirmationsOf(mailServer, "resend-me@shop.example")).isEmpty();
		assertThat(inDoubtKeys()).hasSize(2);

		// the operator: both listed as in doubt; one did not arrive (resend), the other did (delivered)
		Map<String, Long> listed = inDoubtListedByTheEndpoint();
		assertThat(listed).containsOnlyKeys("confirmation:resend-me@shop.example", "confirmation:arrived@shop.example");
		assertThat(post("/actuator/pollingdelivery/" + listed.get("confirmation:resend-me@shop.example") + "/resend"))
			.as("POST .../resend").isEqualTo(200);
		assertThat(post("/actuator/pollingdelivery/" + listed.get("confirmation:arrived@shop.example") + "/delivered"))
			.as("POST .../delivered").isEqualTo(200);
		await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
			assertThat(TestMails.confirmationsOf(mailServer, "resend-me@shop.example")).hasSize(1);
			assertThat(state("confirmation:resend-me@shop.example")).isEqualTo(DeliveryState.DELIVERED);
		});
		MimeMessage resent = TestMails.confirmationsOf(mailServer, "resend-me@shop.example").get(0);
		assertThat(resent.getHeader(ConfirmationSender.IDEMPOTENCY_HEADER, null)).isEqualTo("confirmation:resend-me@shop.example");
		assertThat(state("confirmation:arrived@shop.example")).isEqualTo(DeliveryState.DELIVERED);
		assertThat(TestMails.confirmationsOf(mailServer, "arrived@shop.example")).as("resolved as delivered: not sent").isEmpty();
		assertThat(inDoubtKeys()).isEmpty();
	}

	/** {@code GET /actuator/pollingdelivery}: the in-doubt entries' ids by idempotency key. */
	private Map<String, Long> inDoubtListedByTheEndpoint() throws IOException, InterruptedException {
		HttpResponse<String> response = this.http.send(HttpRequest.newBuilder(URI.create(url("/actuator/pollingdelivery"))).build(),
				HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as("GET /actuator/pollingdelivery").isEqualTo(200);
		Map<String, Long> listed = new LinkedHashMap<>();
		for (JsonNode entry : JsonMapper.builder().build().readTree(response.body()).path("inDoubt")) {
			listed.put(entry.path("idempotencyKey").asString(), entry.path("id").asLong());
		}
		return listed;
	}

	private int post(String path) throws IOException, InterruptedException {
		return this.http.send(HttpRequest.newBuilder(URI.create(url(path))).POST(HttpRequest.BodyPublishers.noBody()).build(),
				HttpResponse.BodyHandlers.discarding()).statusCode();
	}

	private String url(String path) {
		return "http://127.0.0.1:" + this.port + path;
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

}
