package dev.polling.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.polling.jdbc.delivery.DeliveryDestination;
import dev.polling.jdbc.delivery.DeliveryDispatcher;
import dev.polling.jdbc.delivery.DeliveryGuard;
import dev.polling.jdbc.jobs.JobDispatcher;
import dev.polling.jdbc.jobs.JobScheduler;
import dev.polling.jdbc.queue.NewMessage;
import dev.polling.jdbc.queue.QueueWorkers;
import dev.polling.jdbc.queue.WorkQueue;
import dev.polling.jdbc.test.LogCapture;
import dev.polling.jdbc.test.RestartableServer;
import dev.polling.jdbc.test.TestDatabase;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * The database goes away for about ten seconds while two application instances process a work
 * queue, deliver through the delivery guard and dispatch jobs, and comes back on the same port with
 * the same data: nothing is lost, nothing is done or sent twice, every worker carries on by itself,
 * each instance's {@link DatabaseStatus} reports the outage while it lasts, and the log says once
 * per instance that the database is gone and once that it is back. Run on a database server of the
 * test's own ({@link RestartableServer}) by {@code PostgresDatabaseOutageTest} and
 * {@code MariaDbDatabaseOutageTest}.
 */
abstract class DatabaseOutageContractTest {

	private static final int MESSAGES = 1500;

	private static final int JOBS = 120;

	private static final Duration OUTAGE = Duration.ofSeconds(10);

	/**
	 * How soon after the server is back every part must have reached the database again: HikariCP's
	 * longest wait between two connection attempts (5 s), then the part's next round (its retry
	 * interval, at most 200 ms here, and a coordination decision that may wait for the row lock of the
	 * other instance's first dispatch transaction), with room for a loaded machine. Measured in
	 * docs/operations.md.
	 */
	private static final Duration RESUME_BOUND = Duration.ofSeconds(15);

	private final Dialect dialect;

	private final Map<String, AtomicInteger> handlerCalls = new ConcurrentHashMap<>();

	private final Map<String, AtomicInteger> sends = new ConcurrentHashMap<>();

	/** When set, the next send waits for it: a send under way while the server goes down. */
	private final AtomicReference<CountDownLatch> holdNextSend = new AtomicReference<>();

	private final CountDownLatch sendHeld = new CountDownLatch(1);

	DatabaseOutageContractTest(Dialect dialect) {
		this.dialect = dialect;
	}

	@Test
	void twoInstancesLoseTheDatabaseForTenSecondsAndCarryOnWithoutLosingOrRepeatingWork() throws Exception {
		try (RestartableServer server = RestartableServer.create(this.dialect); LogCapture log = LogCapture.start()) {
			TestDatabase database = server.createDatabase("outage");
			HikariDataSource setup = pool(database, "setup");
			try (setup) {
				Schema.migrate(setup, this.dialect, TableNames.defaults());
				database.execute("CREATE TABLE outage_done (item VARCHAR(100) NOT NULL)");
				WorkQueue producer = WorkQueue.builder(setup).instanceId("producer").build();
				List<NewMessage> batch = new ArrayList<>();
				for (int i = 0; i < MESSAGES; i++) {
					batch.add(new NewMessage("customer-" + (i % 50), "order-" + i));
				}
				producer.enqueueAll("orders", batch);
				JobScheduler jobs = JobScheduler.create(setup);
				for (int i = 0; i < JOBS; i++) {
					// due from now to 24 s from now: before, during and after the outage
					jobs.schedule("jobs", "job-" + i, Duration.ofMillis(200L * i), "job-" + i);
				}
			}
			try (Instance a = new Instance("instance-a", database); Instance b = new Instance("instance-b", database)) {
				a.start();
				b.start();
				Awaitility.await("a fifth of the messages handled before the outage")
					.atMost(Duration.ofMinutes(2))
					.until(() -> this.handlerCalls.size() >= MESSAGES / 5);

				// one mail is being sent while the server goes down: its outcome is recorded once it is back
				CountDownLatch release = new CountDownLatch(1);
				this.holdNextSend.set(release);
				assertThat(this.sendHeld.await(2, TimeUnit.MINUTES)).as("a send under way").isTrue();
				server.stop();
				long stoppedAt = System.nanoTime();
				release.countDown();
				Awaitility.await("both instances report the database as unavailable")
					.atMost(OUTAGE)
					.until(() -> !a.status.isAvailable() && !b.status.isAvailable());
				assertThat(a.status.unavailableSince()).isPresent();
				assertThat(a.status.lastError()).isPresent();
				Thread.sleep(Math.max(0, OUTAGE.toMillis() - (System.nanoTime() - stoppedAt) / 1_000_000));
				assertThat(a.status.isAvailable()).as("still unavailable at the end of the outage").isFalse();
				assertThat(b.status.isAvailable()).as("still unavailable at the end of the outage").isFalse();
				server.start();
				Instant back = Instant.now();

				Awaitility.await("every message done, every job dispatched and done, every mail delivered")
					.atMost(Duration.ofMinutes(3))
					.pollInterval(Duration.ofMillis(500))
					.until(() -> (count(database, "SELECT COUNT(*) FROM polling_queue WHERE state = 'DONE'") == MESSAGES + JOBS
							&& count(database, "SELECT COUNT(*) FROM polling_delivery WHERE state = 'DELIVERED'") == MESSAGES)
							|| count(database, "SELECT COUNT(*) FROM polling_delivery WHERE state = 'IN_DOUBT'") > 0);
				assertThat(a.status.isAvailable()).isTrue();
				assertThat(b.status.isAvailable()).isTrue();
				assertThat(a.status.unavailableSince()).isEmpty();
				// every part of every instance carried on by itself, each within the bound after the server was
				// back (RESUME_BOUND). Which instance does the remaining work is not promised: the first pool
				// to reconnect may finish it alone.
				List<String> parts = List.of(DatabaseStatus.QUEUE_WORKERS, DatabaseStatus.DELIVERY_DISPATCHER,
						DatabaseStatus.coordinationOf(JobDispatcher.DEFAULT_ROLE));
				Awaitility.await("every part of both instances reached the database again")
					.atMost(Duration.ofSeconds(30))
					.until(() -> resumed(a).keySet().containsAll(parts) && resumed(b).keySet().containsAll(parts));
				Map<String, Duration> resumeTimes = new TreeMap<>();
				for (Instance instance : List.of(a, b)) {
					resumed(instance).forEach((part, at) -> resumeTimes.put(instance.name + " " + part,
							Duration.between(back, at)));
				}
				System.out.println("[outage] " + this.dialect + " parts resumed after the server was back: " + resumeTimes);
				assertThat(resumeTimes).allSatisfy((part, after) -> assertThat(after).as(part).isLessThanOrEqualTo(RESUME_BOUND));
				assertThat(resumed(a).containsKey(DatabaseStatus.JOB_DISPATCHER) || resumed(b).containsKey(DatabaseStatus.JOB_DISPATCHER))
					.as("one instance dispatched jobs after the outage").isTrue();
				assertThat(List.of(a.workers.isRunning(), b.workers.isRunning(), a.delivery.isRunning(),
						b.delivery.isRunning(), a.dispatcher.isRunning(), b.dispatcher.isRunning()))
					.containsOnly(true);
			}

			// 0 lost, 0 done twice: the handlers' committed work, once per message and job
			assertThat(count(database, "SELECT COUNT(*) FROM outage_done")).isEqualTo(MESSAGES + JOBS);
			assertThat(count(database, "SELECT COUNT(DISTINCT item) FROM outage_done")).isEqualTo(MESSAGES + JOBS);
			assertThat(count(database, "SELECT COUNT(*) FROM polling_job WHERE state <> 'DISPATCHED'")).isZero();
			// 0 sent twice: every mail reached the destination exactly once
			assertThat(this.sends).hasSize(MESSAGES);
			assertThat(this.sends.values()).allSatisfy((sent) -> assertThat(sent.get()).isOne());
			assertThat(count(database, "SELECT COUNT(*) FROM polling_delivery WHERE state <> 'DELIVERED'")).isZero();
			// a handler whose transaction the outage rolled back ran again; its work committed once
			assertThat(this.handlerCalls).hasSize(MESSAGES + JOBS);

			// the log: once per instance that the database is gone and once that it is back, nothing per retry
			for (String instance : List.of("instance-a", "instance-b")) {
				assertThat(log.lines("WARN", DatabaseStatus.class.getName(), "database of " + instance + " is unavailable"))
					.hasSize(1);
				assertThat(log.lines("INFO", DatabaseStatus.class.getName(), "database of " + instance + " is available again"))
					.hasSize(1);
			}
			// besides the two outage reports, at most one stray warning per instance (e.g. a statement the
			// server cancelled while shutting down, before the outage showed), none repeated per retry
			assertThat(log.lines("WARN", "dev.polling.jdbc", "")).as("warnings of the database parts")
				.hasSizeLessThanOrEqualTo(4);
		}
	}

	private static Map<String, Instant> resumed(Instance instance) {
		return instance.status.lastOutage().map(DatabaseStatus.Outage::resumed).orElse(Map.of());
	}

	private long count(TestDatabase database, String sql) {
		return database.queryForLong(sql);
	}

	private static HikariDataSource pool(TestDatabase database, String name) {
		HikariConfig config = new HikariConfig();
		config.setPoolName(name);
		config.setJdbcUrl(database.url());
		config.setUsername(database.username());
		config.setPassword(database.password());
		config.setMaximumPoolSize(10);
		// an application's pool that answers within seconds when the database is gone
		config.setConnectionTimeout(3000);
		config.setValidationTimeout(500);
		return new HikariDataSource(config);
	}

	/** One application instance: its own pool, queue workers, delivery dispatcher and job dispatcher. */
	private final class Instance implements AutoCloseable {

		final DatabaseStatus status;

		final HikariDataSource pool;

		final QueueWorkers workers;

		final DeliveryDispatcher delivery;

		final JobDispatcher dispatcher;

		final String name;

		Instance(String name, TestDatabase database) {
			this.name = name;
			this.status = new DatabaseStatus(name);
			this.pool = pool(database, name);
			JdbcTransactions transactions = JdbcTransactions.of(this.pool);
			DeliveryGuard guard = DeliveryGuard.builder(this.pool)
				.instanceId(name)
				.connections(transactions)
				.leaseTime(Duration.ofSeconds(30))
				.destination(DeliveryDestination.of("mail", (mail) -> {
					CountDownLatch gate = DatabaseOutageContractTest.this.holdNextSend.getAndSet(null);
					if (gate != null) {
						DatabaseOutageContractTest.this.sendHeld.countDown();
						gate.await();
					}
					DatabaseOutageContractTest.this.sends.computeIfAbsent(mail.idempotencyKey(), (k) -> new AtomicInteger())
						.incrementAndGet();
				}))
				.build();
			WorkQueue queue = WorkQueue.builder(this.pool)
				.instanceId(name)
				.connections(transactions)
				.leaseTime(Duration.ofSeconds(10))
				.build();
			this.workers = QueueWorkers.builder(queue)
				.transactions(transactions)
				.threads(2)
				.pollInterval(Duration.ofMillis(100))
				.status(this.status)
				.subscribe("orders", (message) -> {
					handled(message.payload());
					record(transactions, message.payload());
					guard.store("mail", "mail-" + message.payload(), message.payload());
					Thread.sleep(2);
				})
				.subscribe("jobs", (message) -> {
					handled(message.payload());
					record(transactions, message.payload());
				})
				.build();
			this.delivery = new DeliveryDispatcher(guard, 1, 20, Duration.ofMillis(100), Duration.ofSeconds(1),
					this.status);
			JobScheduler jobs = JobScheduler.create(this.pool);
			this.dispatcher = JobDispatcher.builder(jobs, queue).interval(Duration.ofMillis(200)).status(this.status).build();
		}

		void start() {
			this.workers.start();
			this.delivery.start();
			this.dispatcher.start();
		}

		private void handled(String item) {
			DatabaseOutageContractTest.this.handlerCalls.computeIfAbsent(item, (k) -> new AtomicInteger()).incrementAndGet();
		}

		private static void record(JdbcTransactions transactions, String item) throws SQLException {
			try (PreparedStatement insert = transactions.connection().prepareStatement("INSERT INTO outage_done (item) VALUES (?)")) {
				insert.setString(1, item);
				insert.executeUpdate();
			}
		}

		@Override
		public void close() {
			this.dispatcher.close();
			this.delivery.close();
			this.workers.close();
			this.pool.close();
		}

	}

}
