package dev.polling.jdbc.queue;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.JdbcTransactions;
import dev.polling.jdbc.Schema;
import dev.polling.jdbc.TableNames;
import dev.polling.jdbc.test.DatabaseTest;
import dev.polling.jdbc.test.TestDatabase;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * A rolling deployment: two instances work through a queue of 10,000 messages and each is restarted
 * once while they run, one gracefully (its workers stop, let running handlers finish and give their
 * prefetched messages back), the other abruptly (its pool aborts every connection mid-transaction,
 * as a killed process leaves them; its leases expire and the other instances recover them). Every
 * message is done exactly once: each handler writes a row in the transaction that completes its
 * message.
 * <p>
 * The first restart upgrades the schema while the other instance keeps working: the database
 * starts with only version 1 (the tables of 0.1.0) recorded, and the restarted instance runs
 * {@link Schema#migrate}, which applies the newest migration (its data migration of the queue's
 * keys included) under load. The code of 0.1.0 is not at hand to run on the old tables, so both
 * instances run the current code on tables that already have the newest shape; every statement of
 * the migrations is idempotent, so the upgrade runs in full on the live queue. Run by
 * {@link PostgresRollingRestartTest} and {@link MariaDbRollingRestartTest}.
 */
abstract class RollingRestartContractTest extends DatabaseTest {

	private static final int MESSAGES = 10_000;

	private static final String QUEUE = "rolling";

	private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();

	RollingRestartContractTest(Dialect dialect) {
		super(dialect);
	}

	@Override
	protected void prepare(TestDatabase database) {
		Schema.migrate(database.newDataSource(), database.dialect(), TableNames.defaults());
		// the newest migration is still to come: version 1 (0.1.0) is the last one recorded
		database.execute("DELETE FROM " + TableNames.defaults().schemaVersion() + " WHERE version > 1");
		database.execute("CREATE TABLE rolling_done (item VARCHAR(100) NOT NULL, instance VARCHAR(20) NOT NULL)");
	}

	@Test
	void twoInstancesRestartedOnceEachMidRunDoEveryMessageExactlyOnce() {
		WorkQueue producer = WorkQueue.builder(database().newDataSource()).instanceId("producer").build();
		List<NewMessage> batch = new ArrayList<>();
		for (int i = 0; i < MESSAGES; i++) {
			// most messages ordered per customer, every fourth without a key
			batch.add(new NewMessage((i % 4 == 0) ? null : "customer-" + (i % 300), "message-" + i));
			if (batch.size() == 1000) {
				producer.enqueueAll(QUEUE, batch);
				batch.clear();
			}
		}
		Instance a = new Instance("a-1");
		Instance b = new Instance("b-1");
		try {
			a.start();
			b.start();
			awaitDone(MESSAGES / 4);

			a.stopGracefully();
			// the new version of instance a upgrades the schema at its start, while b keeps working
			Schema.Outcome upgrade = Schema.migrate(database().newDataSource(), database().dialect(), TableNames.defaults());
			assertThat(upgrade.fromVersion()).isEqualTo(1);
			assertThat(upgrade.toVersion()).isEqualTo(Schema.latestVersion()).isGreaterThan(1);
			a = new Instance("a-2");
			a.start();
			awaitDone(MESSAGES * 6 / 10);

			b.kill();
			b = new Instance("b-2");
			b.start();
			awaitDone(MESSAGES);

			assertThat(done("a-2") + done("b-2")).as("messages done after the restarts").isPositive();
		}
		finally {
			a.stopGracefully();
			b.stopGracefully();
		}
		assertThat(database().queryForLong("SELECT COUNT(*) FROM rolling_done")).isEqualTo(MESSAGES);
		assertThat(database().queryForLong("SELECT COUNT(DISTINCT item) FROM rolling_done")).isEqualTo(MESSAGES);
		assertThat(database().queryForLong("SELECT COUNT(*) FROM polling_queue WHERE queue = '" + QUEUE
				+ "' AND state <> 'DONE'")).isZero();
		assertThat(this.calls).hasSize(MESSAGES);
		// each instance did part of the work
		for (String instance : List.of("a-1", "a-2", "b-1", "b-2")) {
			assertThat(done(instance)).as("messages done by " + instance).isPositive();
		}
	}

	private void awaitDone(long count) {
		Awaitility.await(count + " messages done")
			.atMost(Duration.ofMinutes(3))
			.pollInterval(Duration.ofMillis(100))
			.until(() -> database().queryForLong("SELECT COUNT(*) FROM polling_queue WHERE queue = '" + QUEUE
					+ "' AND state = 'DONE'") >= count);
	}

	private long done(String instance) {
		return database().queryForLong("SELECT COUNT(*) FROM rolling_done WHERE instance = '" + instance + "'");
	}

	/** One application instance: its own connection pool and queue workers. */
	private final class Instance {

		private final HikariDataSource pool;

		private final QueueWorkers workers;

		Instance(String name) {
			HikariConfig config = new HikariConfig();
			config.setPoolName(name);
			config.setJdbcUrl(database().url());
			config.setUsername(database().username());
			config.setPassword(database().password());
			config.setMaximumPoolSize(8);
			this.pool = new HikariDataSource(config);
			JdbcTransactions transactions = JdbcTransactions.of(this.pool);
			WorkQueue queue = WorkQueue.builder(this.pool)
				.instanceId(name)
				.connections(transactions)
				.leaseTime(Duration.ofSeconds(5))
				.build();
			this.workers = QueueWorkers.builder(queue)
				.transactions(transactions)
				.threads(4)
				.batchSize(20)
				.pollInterval(Duration.ofMillis(50))
				.subscribe(QUEUE, (message) -> {
					RollingRestartContractTest.this.calls.computeIfAbsent(message.payload(), (k) -> new AtomicInteger())
						.incrementAndGet();
					try (PreparedStatement insert = transactions.connection()
						.prepareStatement("INSERT INTO rolling_done (item, instance) VALUES (?, ?)")) {
						insert.setString(1, message.payload());
						insert.setString(2, name);
						insert.executeUpdate();
					}
				})
				.build();
		}

		void start() {
			this.workers.start();
		}

		/** A graceful shutdown: running handlers finish, prefetched messages are given back. */
		void stopGracefully() {
			this.workers.stop(Duration.ofSeconds(30));
			this.pool.close();
		}

		/**
		 * A killed process: every connection is aborted mid-transaction (nothing is released or
		 * completed any more), then the threads that are left are stopped without a word to the
		 * database.
		 */
		void kill() {
			this.pool.close();
			this.workers.stop(Duration.ZERO);
		}

	}

}
