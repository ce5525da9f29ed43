package dev.polling.benchmarks;

import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.Schema;
import dev.polling.jdbc.TableNames;
import dev.polling.jdbc.inbox.Inbox;
import dev.polling.jdbc.inbox.Receipt;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * Receipts per second of the {@link Inbox} on an embedded PostgreSQL 17 ({@code fsync} and
 * {@code synchronous_commit} set on and printed as read back: every commit waits for its flush),
 * with N threads (default 4), each holding one connection and running every receipt in a
 * transaction of its own that commits. Scenarios:
 * <ol>
 * <li>{@code raw-insert}: a plain {@code INSERT} of a business row per transaction, no inbox (the
 * ceiling);</li>
 * <li>{@code receipt-only}: {@code Inbox.receive} of a new key per transaction;</li>
 * <li>{@code receipt+business-row}: {@code Inbox.receive} plus the business row insert;</li>
 * <li>{@code duplicate}: {@code Inbox.receive} of an already recorded key (answer DUPLICATE).</li>
 * </ol>
 * Each scenario warms up, then counts completed transactions during the measured period.
 * Arguments (all optional): threads, warm-up seconds, measured seconds; e.g. {@code 4 5 15}.
 */
public final class InboxBenchmark {

	private InboxBenchmark() {
	}

	/**
	 * Runs the benchmark and prints one line per scenario.
	 * @param args threads, warm-up seconds, measured seconds
	 * @throws Exception on failure
	 */
	public static void main(String[] args) throws Exception {
		int threads = (args.length > 0) ? Integer.parseInt(args[0]) : 4;
		Duration warmUp = Duration.ofSeconds((args.length > 1) ? Long.parseLong(args[1]) : 5);
		Duration measured = Duration.ofSeconds((args.length > 2) ? Long.parseLong(args[2]) : 15);
		try (EmbeddedPostgres postgres = BenchDatabases.postgres(true)) {
			DataSource dataSource = postgres.getPostgresDatabase();
			System.out.println("PostgreSQL embedded: " + BenchDatabases.postgresSettings(dataSource));
			Schema.migrate(dataSource, Dialect.POSTGRESQL, TableNames.defaults());
			try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
				statement.execute("CREATE TABLE IF NOT EXISTS business_row (message_key VARCHAR(255) PRIMARY KEY, "
						+ "payload VARCHAR(100) NOT NULL)");
				statement.execute("SELECT version()");
			}
			Inbox inbox = Inbox.builder(dataSource).build();
			System.out.printf(Locale.ROOT, "Inbox benchmark: PostgreSQL embedded (zonky), %d threads, %ds warm-up, "
					+ "%ds measured, one transaction with commit per operation%n", threads, warmUp.toSeconds(),
					measured.toSeconds());
			List<Scenario> scenarios = List.of(new Scenario("raw-insert", (c, key) -> insertBusinessRow(c, key)),
					new Scenario("receipt-only", (c, key) -> inbox.receive(c, "bench", key)),
					new Scenario("receipt+business-row", (c, key) -> {
						if (inbox.receive(c, "bench", key) == Receipt.NEW) {
							insertBusinessRow(c, key);
						}
					}), new Scenario("duplicate", (c, key) -> {
						if (inbox.receive(c, "bench", "already-seen") != Receipt.DUPLICATE) {
							throw new IllegalStateException("expected DUPLICATE");
						}
					}));
			inbox.receive("bench", "already-seen");
			for (Scenario scenario : scenarios) {
				run(dataSource, scenario, threads, warmUp, measured);
			}
		}
	}

	private static void run(DataSource dataSource, Scenario scenario, int threads, Duration warmUp, Duration measured)
			throws Exception {
		AtomicLong sequence = new AtomicLong();
		AtomicLong completed = new AtomicLong();
		AtomicBoolean counting = new AtomicBoolean();
		AtomicBoolean running = new AtomicBoolean(true);
		List<Throwable> failures = new ArrayList<>();
		CountDownLatch done = new CountDownLatch(threads);
		for (int t = 0; t < threads; t++) {
			Thread worker = new Thread(() -> {
				try (Connection connection = dataSource.getConnection()) {
					connection.setAutoCommit(false);
					while (running.get()) {
						String key = scenario.name + "-" + sequence.incrementAndGet() + "@bench.example";
						scenario.operation.apply(connection, key);
						connection.commit();
						if (counting.get()) {
							completed.incrementAndGet();
						}
					}
				}
				catch (Throwable ex) {
					synchronized (failures) {
						failures.add(ex);
					}
				}
				finally {
					done.countDown();
				}
			}, "bench-" + t);
			worker.start();
		}
		Thread.sleep(warmUp.toMillis());
		counting.set(true);
		long start = System.nanoTime();
		Thread.sleep(measured.toMillis());
		counting.set(false);
		long elapsed = System.nanoTime() - start;
		running.set(false);
		done.await();
		if (!failures.isEmpty()) {
			throw new IllegalStateException(scenario.name + " failed", failures.get(0));
		}
		double perSecond = completed.get() / (elapsed / 1e9);
		System.out.printf(Locale.ROOT, "%-22s %,10.0f transactions/s (%,d in %.1fs)%n", scenario.name, perSecond,
				completed.get(), elapsed / 1e9);
	}

	private static void insertBusinessRow(Connection connection, String key) throws SQLException {
		try (PreparedStatement statement = connection
			.prepareStatement("INSERT INTO business_row (message_key, payload) VALUES (?, 'payload')")) {
			statement.setString(1, key);
			statement.executeUpdate();
		}
	}

	private record Scenario(String name, Operation operation) {
	}

	@FunctionalInterface
	private interface Operation {

		void apply(Connection connection, String key) throws SQLException;

	}

}
