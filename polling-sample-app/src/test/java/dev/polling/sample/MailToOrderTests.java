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
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import com.icegreen.greenmail.junit5.GreenMailExtension;
import jakarta.mail.MessagingException;
import jakarta.mail.internet.MimeMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.polling.boot.autoconfigure.jdbc.DeliveryMetrics;
import dev.polling.boot.autoconfigure.jdbc.QueueMetrics;
import dev.polling.core.PollingManager;
import dev.polling.jdbc.delivery.DeliveryGuard;
import dev.polling.sample.mail.ConfirmationSender;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The whole sample in one JVM against a real mail server (GreenMail over SMTP and IMAP): the
 * {@code @Scheduled} pollers, gated by {@code @PollingCycle} (standalone: every poll is granted),
 * queue mails with inbox receipts and delete them from the server; the queue's workers turn them
 * into orders, the delivery guard sends one confirmation per order over SMTP, and the job
 * dispatcher runs one follow-up check per order; a mail fetched twice yields one order.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "spring.datasource.url=jdbc:h2:mem:mail-to-order;DB_CLOSE_DELAY=-1",
				"sample.poll-delay-millis=200", "polling.instance-id=test-instance", "sample.follow-up-delay=2s",
				"polling.jdbc.jobs.dispatch-interval=200ms", "polling.jdbc.delivery.workers.poll-interval=200ms",
				"polling.jdbc.queue.workers.poll-interval=100ms" })
class MailToOrderTests {

	@RegisterExtension
	static final GreenMailExtension mailServer = TestMails.mailServerWithTheSampleMailboxes();

	@Autowired
	private JdbcClient jdbc;

	@Autowired
	private PollingManager polling;

	@Autowired
	private DeliveryGuard delivery;

	@LocalServerPort
	private int port;

	@DynamicPropertySource
	static void mailServer(DynamicPropertyRegistry registry) {
		TestMails.registerPorts(registry, mailServer);
	}

	@Test
	void aMailBecomesAnOrderWithAReceiptAndLeavesTheMailbox() throws Exception {
		send("mailbox-2", "<first-order@shop.example>", "Order 1: 3 x widget");

		awaitMailboxEmptyAndOrders("first-order@shop.example", 1);
		assertThat(this.jdbc
			.sql("SELECT mailbox, subject, customer, fetched_by, processed_by FROM orders WHERE message_id = ?")
			.param("first-order@shop.example")
			.query((rs, row) -> rs.getString(1) + "|" + rs.getString(2) + "|" + rs.getString(3) + "|" + rs.getString(4)
					+ "|" + rs.getString(5))
			.single()).isEqualTo("mailbox-2|Order 1: 3 x widget|customer@shop.example|test-instance|test-instance");
		assertThat(receipts("mailbox-2", "first-order@shop.example")).isEqualTo(1);
		// awaited: on a starved machine a detected stop of this JVM lets go until the next tick
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(this.polling.isHolding("MAILBOX_2")).isTrue());
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
			assertThat(orders("twice@shop.example")).isEqualTo(1); // written by a queue worker, after the fetch
		});
		Thread.sleep(500); // a second order would be written by now
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
		// the dashboard asks for meters that exist (peer requests only exist with peers: not here; the
		// queue's and the delivery guard's event counters appear with their first event)
		Set<String> onFirstEvent = Stream
			.of(QueueMetrics.COMPLETED, QueueMetrics.RETRIES, QueueMetrics.DEAD_LETTERS, QueueMetrics.FENCING_REJECTIONS,
					QueueMetrics.CLAIMS_LOST, DeliveryMetrics.DELIVERED, DeliveryMetrics.RETRIES, DeliveryMetrics.DEAD_LETTERS,
					DeliveryMetrics.BECAME_IN_DOUBT, DeliveryMetrics.FENCING_REJECTIONS)
			.map((meter) -> meter.replace('.', '_') + "_total")
			.collect(Collectors.toSet());
		String dashboard = Files.readString(Path.of("grafana/polling-dashboard.json"));
		Matcher names = Pattern.compile("polling_[a-z_]+").matcher(dashboard);
		Set<String> asked = new TreeSet<>();
		List<String> missing = new ArrayList<>();
		while (names.find()) {
			String name = names.group();
			asked.add(name);
			if (!name.startsWith("polling_peer_requests_seconds_") && !onFirstEvent.contains(name)
					&& !response.body().contains("\n" + name + "{") && !response.body().contains("\n" + name + " ")) {
				missing.add(name);
			}
		}
		assertThat(missing).as("meters in grafana/polling-dashboard.json missing at /actuator/prometheus").isEmpty();
		assertThat(asked).as("the dashboard shows the work queue, the delivery guard and the jobs")
			.contains("polling_queue_backlog", "polling_queue_oldest_age_seconds", "polling_delivery_in_doubt", "polling_queue_dead",
					"polling_jobs_due", "polling_jobs_start_delay_seconds_max")
			.containsAll(onFirstEvent);
	}

	@Test
	void aProcessedMailGetsOneConfirmationMailAndOneFollowUpCheck() throws Exception {
		send("mailbox-3", "<confirm-me@shop.example>", "Order 6: 2 x widget");
		awaitMailboxEmptyAndOrders("confirm-me@shop.example", 1);

		await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
			assertThat(TestMails.confirmationsOf(mailServer, "confirm-me@shop.example")).hasSize(1);
			assertThat(followUps("confirm-me@shop.example")).isEqualTo(1);
		});
		MimeMessage confirmation = TestMails.confirmationsOf(mailServer, "confirm-me@shop.example").get(0);
		assertThat(confirmation.getSubject()).isEqualTo("Confirmation: Order 6: 2 x widget");
		assertThat(confirmation.getHeader(ConfirmationSender.IDEMPOTENCY_HEADER, null))
			.isEqualTo("confirmation:confirm-me@shop.example");
		assertThat(confirmation.getFrom()[0].toString()).isEqualTo("orders@demo.local");
		assertThat(this.delivery.admin().stats()).allSatisfy((stats) -> {
			assertThat(stats.inDoubt()).isZero();
			assertThat(stats.dead()).isZero();
		});
		// the follow-up ran after its delay (2 s here, 30 s by default) and found the order
		assertThat(this.jdbc.sql("SELECT f.orders_found, DATEDIFF('MILLISECOND', o.processed_at, f.checked_at) "
				+ "FROM follow_up_checks f JOIN orders o ON o.message_id = f.message_id WHERE f.message_id = ?")
			.param("confirm-me@shop.example")
			.query((rs, row) -> new long[] { rs.getLong(1), rs.getLong(2) })
			.single()).satisfies((row) -> {
				assertThat(row[0]).as("orders found").isEqualTo(1);
				assertThat(row[1]).as("milliseconds from the order to its check").isGreaterThanOrEqualTo(2000);
			});
		// still one of each a while later: nothing sent or checked twice
		Thread.sleep(1000);
		assertThat(TestMails.confirmationsOf(mailServer, "confirm-me@shop.example")).hasSize(1);
		assertThat(followUps("confirm-me@shop.example")).isEqualTo(1);
	}

	private void awaitMailboxEmptyAndOrders(String messageId, int orders) {
		await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
			assertThat(orders(messageId)).isEqualTo(orders);
			for (String mailbox : List.of("mailbox-1", "mailbox-2", "mailbox-3")) {
				assertThat(mailServer.getReceivedMessagesForDomain(mailbox + "@demo.local")).isEmpty();
			}
		});
	}

	private int followUps(String messageId) {
		return this.jdbc.sql("SELECT COUNT(*) FROM follow_up_checks WHERE message_id = ?")
			.param(messageId)
			.query(Integer.class)
			.single();
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
