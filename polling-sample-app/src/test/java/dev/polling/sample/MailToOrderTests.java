package dev.polling.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.icegreen.greenmail.junit5.GreenMailExtension;
import jakarta.mail.MessagingException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.polling.core.PollingManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The whole sample in one JVM against a real mail server (GreenMail over SMTP and IMAP): the
 * {@code @Scheduled} pollers, gated by {@code @PollingCycle} (standalone: every poll is granted),
 * turn mails into orders with inbox receipts, delete them from the server, and a mail fetched
 * twice yields one order.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "spring.datasource.url=jdbc:h2:mem:mail-to-order;DB_CLOSE_DELAY=-1",
				"sample.poll-delay-millis=200", "polling.instance-id=test-instance" })
class MailToOrderTests {

	@RegisterExtension
	static final GreenMailExtension mailServer = TestMails.mailServerWithTheSampleMailboxes();

	@Autowired
	private JdbcClient jdbc;

	@Autowired
	private PollingManager polling;

	@LocalServerPort
	private int port;

	@DynamicPropertySource
	static void mailServer(DynamicPropertyRegistry registry) {
		registry.add("sample.mail.imap-port", () -> mailServer.getImap().getPort());
	}

	@Test
	void aMailBecomesAnOrderWithAReceiptAndLeavesTheMailbox() throws Exception {
		send("mailbox-2", "<first-order@shop.example>", "Order 1: 3 x widget");

		awaitMailboxEmptyAndOrders("first-order@shop.example", 1);
		assertThat(this.jdbc.sql("SELECT mailbox, subject, customer, processed_by FROM orders WHERE message_id = ?")
			.param("first-order@shop.example")
			.query((rs, row) -> rs.getString(1) + "|" + rs.getString(2) + "|" + rs.getString(3) + "|" + rs.getString(4))
			.single()).isEqualTo("mailbox-2|Order 1: 3 x widget|customer@shop.example|test-instance");
		assertThat(receipts("mailbox-2", "first-order@shop.example")).isEqualTo(1);
		assertThat(this.polling.isHolding("MAILBOX_2")).isTrue();
	}

	@Test
	void aMailFetchedAgainAfterItWasProcessedYieldsOneOrder() throws Exception {
		send("mailbox-1", "<again@shop.example>", "Order 2: 1 x widget");
		awaitMailboxEmptyAndOrders("again@shop.example", 1);

		// the same mail on the server again, as after a crash between the commit and the delete
		send("mailbox-1", "<again@shop.example>", "Order 2: 1 x widget");

		await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
			assertThat(duplicateFetches("again@shop.example")).isEqualTo(1);
			assertThat(mailServer.getReceivedMessagesForDomain("mailbox-1@demo.local")).isEmpty();
		});
		assertThat(orders("again@shop.example")).isEqualTo(1);
		assertThat(receipts("mailbox-1", "again@shop.example")).isEqualTo(1);
	}

	@Test
	void twoCopiesOfAMailOnTheServerYieldOneOrder() throws Exception {
		this.polling.pause("MAILBOX_3"); // usually both copies arrive before a cycle fetches them
		try {
			send("mailbox-3", "<twice@shop.example>", "Order 3: 2 x widget");
			send("mailbox-3", "<twice@shop.example>", "Order 3: 2 x widget");
			assertThat(mailServer.getReceivedMessagesForDomain("mailbox-3@demo.local")).hasSize(2);
		}
		finally {
			this.polling.resume("MAILBOX_3");
		}

		await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
			assertThat(mailServer.getReceivedMessagesForDomain("mailbox-3@demo.local")).isEmpty();
			assertThat(duplicateFetches("twice@shop.example")).isEqualTo(1);
		});
		assertThat(orders("twice@shop.example")).isEqualTo(1);
	}

	@Test
	void prometheusShowsThePollingAndInboxMeters() throws Exception {
		send("mailbox-1", "<metered@shop.example>", "Order 4: 5 x widget");
		awaitMailboxEmptyAndOrders("metered@shop.example", 1);

		HttpResponse<String> response = HttpClient.newHttpClient()
			.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + "/actuator/prometheus")).build(),
					HttpResponse.BodyHandlers.ofString());

		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(response.body()).contains("polling_holding{cluster=\"MAILBOX_1\"", "polling_decisions_total{",
				"polling_decision_duration_seconds_count{", "polling_activity_age_seconds{",
				"polling_inbox_receipts_total{outcome=\"new\",source=\"mailbox-1\"");
		// the dashboard asks for meters that exist (peer requests only exist with peers: not here)
		String dashboard = Files.readString(Path.of("grafana/polling-dashboard.json"));
		Matcher names = Pattern.compile("polling_[a-z_]+").matcher(dashboard);
		List<String> missing = new ArrayList<>();
		while (names.find()) {
			String name = names.group();
			if (!name.startsWith("polling_peer_requests_seconds_") && !response.body().contains("\n" + name + "{")
					&& !response.body().contains("\n" + name + " ")) {
				missing.add(name);
			}
		}
		assertThat(missing).as("meters in grafana/polling-dashboard.json missing at /actuator/prometheus").isEmpty();
	}

	private void awaitMailboxEmptyAndOrders(String messageId, int orders) {
		await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
			assertThat(orders(messageId)).isEqualTo(orders);
			assertThat(mailServer.getReceivedMessages()).isEmpty();
		});
	}

	private int orders(String messageId) {
		return this.jdbc.sql("SELECT COUNT(*) FROM orders WHERE message_id = ?").param(messageId).query(Integer.class).single();
	}

	private int duplicateFetches(String messageId) {
		return this.jdbc.sql("SELECT COUNT(*) FROM duplicate_fetches WHERE message_id = ?")
			.param(messageId)
			.query(Integer.class)
			.single();
	}

	private int receipts(String source, String key) {
		return this.jdbc.sql("SELECT COUNT(*) FROM polling_inbox WHERE source = ? AND external_key = ?")
			.params(source, key)
			.query(Integer.class)
			.single();
	}

	private static void send(String mailbox, String messageId, String subject) throws MessagingException {
		TestMails.send(mailServer, mailbox, messageId, subject);
	}

}
