package dev.polling.sample;

import java.time.Duration;

import com.icegreen.greenmail.junit5.GreenMailExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.polling.core.Decision;
import dev.polling.core.PollingManager;
import dev.polling.test.PollingTest;
import dev.polling.test.ScriptedPeers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample as one instance of several, in one JVM: {@link PollingTest} scripts a peer that polls
 * {@code MAILBOX_1}. This instance leaves that mailbox alone while it polls the others, and takes
 * it over once the peer falls idle.
 */
@SpringBootTest(properties = { "spring.datasource.url=jdbc:h2:mem:held-by-a-peer;DB_CLOSE_DELAY=-1", "sample.poll-delay-millis=200",
		"polling.instance-id=test-instance", "polling.jmx.domain=dev.polling.sampletest.peers",
		"polling.jdbc.queue.workers.poll-interval=100ms" })
@PollingTest(peerHolding = "MAILBOX_1")
class MailboxHeldByAPeerTests {

	@RegisterExtension
	static final GreenMailExtension mailServer = TestMails.mailServerWithTheSampleMailboxes();

	@Autowired
	private PollingManager polling;

	@Autowired
	private ScriptedPeers peers;

	@Autowired
	private JdbcClient jdbc;

	@DynamicPropertySource
	static void mailServer(DynamicPropertyRegistry registry) {
		TestMails.registerPorts(registry, mailServer);
	}

	@Test
	void leavesAMailboxThatAPeerPollsAloneAndTakesItOverWhenThePeerFallsIdle() throws Exception {
		TestMails.send(mailServer, "mailbox-1", "<peer-polls-this@shop.example>", "Order 1: 1 x widget");
		TestMails.send(mailServer, "mailbox-2", "<this-instance-polls@shop.example>", "Order 2: 2 x widget");

		await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
			assertThat(orders("this-instance-polls@shop.example")).isEqualTo(1);
			assertThat(mailServer.getReceivedMessagesForDomain("mailbox-2@demo.local")).isEmpty();
		});
		// several ticks of MAILBOX_1 have been refused meanwhile: the mail waits for the peer. On a
		// starved machine the stop detector may refuse one tick with STOPPED in between (by design),
		// so the reason is awaited for the next ticks rather than read once.
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(this.polling.status("MAILBOX_1").lastDecision().reason()).isEqualTo(Decision.Reason.PEER_ACTIVE));
		assertThat(this.polling.isHolding("MAILBOX_1")).isFalse();
		assertThat(mailServer.getReceivedMessagesForDomain("mailbox-1@demo.local")).hasSize(1);
		assertThat(orders("peer-polls-this@shop.example")).isZero();

		this.peers.peersIdle("MAILBOX_1");

		await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
			assertThat(orders("peer-polls-this@shop.example")).isEqualTo(1);
			assertThat(mailServer.getReceivedMessagesForDomain("mailbox-1@demo.local")).isEmpty();
		});
		// awaited for the same reason: a stop detected right now lets go until the next tick takes it again
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(this.polling.isHolding("MAILBOX_1")).isTrue());
	}

	private int orders(String messageId) {
		return this.jdbc.sql("SELECT COUNT(*) FROM orders WHERE message_id = ?").param(messageId).query(Integer.class).single();
	}

}
