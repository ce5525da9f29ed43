package dev.polling.sample;

import java.io.IOException;
import java.time.Duration;

import com.icegreen.greenmail.junit5.GreenMailExtension;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.inbox.Inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code postgres} profile on a real PostgreSQL (embedded binaries): the sample's tables and
 * polling's are created, a mail becomes one order, and the same mail fetched again stays one order
 * (the inbox's {@code ON CONFLICT DO NOTHING} keeps the transaction alive).
 */
@ExtendWith(PostgresProfileTests.StopPostgresAfterTheApplication.class)
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.NONE,
		properties = { "sample.poll-delay-millis=200", "polling.instance-id=postgres-instance" })
@ActiveProfiles("postgres")
@DirtiesContext
class PostgresProfileTests {

	@RegisterExtension
	static final GreenMailExtension mailServer = TestMails.mailServerWithTheSampleMailboxes();

	private static @Nullable EmbeddedPostgres postgres;

	@Autowired
	private JdbcClient jdbc;

	@Autowired
	private Inbox inbox;

	@DynamicPropertySource
	static void servers(DynamicPropertyRegistry registry) {
		TestMails.registerPorts(registry, mailServer);
		// the variables application-postgres.yml reads
		registry.add("POSTGRES_URL", () -> "jdbc:postgresql://localhost:" + postgres().getPort() + "/postgres");
		registry.add("POSTGRES_USER", () -> "postgres");
		registry.add("POSTGRES_PASSWORD", () -> "");
	}

	private static synchronized EmbeddedPostgres postgres() {
		if (postgres == null) {
			try {
				postgres = EmbeddedPostgres.builder().setServerConfig("fsync", "off").start();
			}
			catch (IOException ex) {
				throw new IllegalStateException("Embedded PostgreSQL did not start", ex);
			}
		}
		return postgres;
	}

	/**
	 * Stops the database after the application: registered before the SpringExtension (it comes
	 * first on the class), so its after-all callback runs after Spring has closed the context
	 * ({@code @DirtiesContext}); the queue workers and dispatchers stop while the database answers.
	 */
	static final class StopPostgresAfterTheApplication implements AfterAllCallback {

		@Override
		public void afterAll(ExtensionContext extension) throws IOException {
			if (postgres != null) {
				postgres.close();
				postgres = null;
			}
		}

	}

	@Test
	void aMailFetchedTwiceIsOneOrderOnPostgres() throws Exception {
		assertThat(this.inbox.dialect()).isEqualTo(Dialect.POSTGRESQL);

		TestMails.send(mailServer, "mailbox-3", "<pg-order@shop.example>", "Order 5: 4 x widget");
		await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
			assertThat(count("SELECT COUNT(*) FROM orders WHERE message_id = 'pg-order@shop.example'")).isEqualTo(1);
			assertThat(mailServer.getReceivedMessagesForDomain("mailbox-3@demo.local")).isEmpty();
		});
		TestMails.send(mailServer, "mailbox-3", "<pg-order@shop.example>", "Order 5: 4 x widget");
		await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
			assertThat(count("SELECT COUNT(*) FROM duplicate_fetches WHERE message_id = 'pg-order@shop.example'"))
				.isEqualTo(1);
			assertThat(mailServer.getReceivedMessagesForDomain("mailbox-3@demo.local")).isEmpty();
		});

		assertThat(count("SELECT COUNT(*) FROM orders WHERE message_id = 'pg-order@shop.example'")).isEqualTo(1);
		assertThat(count("SELECT COUNT(*) FROM polling_inbox WHERE external_key = 'pg-order@shop.example'")).isEqualTo(1);
	}

	private int count(String sql) {
		return this.jdbc.sql(sql).query(Integer.class).single();
	}

}
