package dev.polling.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.Schema;
import dev.polling.jdbc.TableNames;
import dev.polling.jdbc.delivery.DeliveryDestination;
import dev.polling.jdbc.delivery.DeliveryDispatcher;
import dev.polling.jdbc.delivery.DeliveryGuard;
import dev.polling.jdbc.delivery.DeliveryListener;
import dev.polling.jdbc.delivery.DeliverySender;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;

/**
 * Delivered messages per second of the {@link DeliveryGuard} with its {@link DeliveryDispatcher},
 * against a plain at-least-once outbox loop, in one JVM on one embedded PostgreSQL 17 (zonky
 * binaries, {@code fsync} and {@code synchronous_commit} set on and read back). The sender is
 * trivial (counts), so the figures are the cost of the bookkeeping per message.
 * <p>
 * Each scenario stores N messages in an emptied (truncated) table first, takes a {@code CHECKPOINT},
 * then starts the dispatchers and measures the time until the last one is recorded as delivered:
 * rate = N / time. Every scenario thus starts from the same state (before, the guard's table kept
 * every round's rows while the outbox's was emptied by a {@code DELETE} whose dead rows autovacuum
 * removed at times of its own). Scenarios:
 * <ol>
 * <li>{@code guard x1}: one instance (one dispatcher thread, as each instance of the starter has);</li>
 * <li>{@code guard x1 t4}: one instance with four dispatcher threads ({@code polling.jdbc.delivery.workers.threads=4});</li>
 * <li>{@code guard x2}: two instances, each its own pool and guard;</li>
 * <li>{@code guard x1 batch10}, {@code guard x2 batch10}: the same with an idempotent destination
 * with batched claims of 10 (a crash re-sends up to 10);</li>
 * <li>{@code guard x2 locked10}: the same destination with locked batches of 10
 * ({@code withLockedBatches(10)}: locked, sent and recorded in one transaction, the outbox's way);</li>
 * <li>{@code outbox x2}: the common outbox loop on a table of its own, two threads: in one
 * transaction lock up to 10 pending rows ({@code FOR UPDATE SKIP LOCKED}), send them, mark them
 * delivered, commit. Cheaper, but a crash after a send and before the commit sends those rows again,
 * and nothing ever says which: the guard pays a committed claim before each send to know.</li>
 * </ol>
 * A warm-up round with N/10 messages runs first. Arguments (optional): N (default 5000), rounds
 * (default 2), how long each send takes in ms (default 0; with a slow sender the outbox loop, which
 * sends while it holds its row locks, is left out). {@code -Dbench.delivery.only=guard x2 batch10,outbox}
 * runs only the scenarios whose names start with one of the given prefixes.
 */
public final class DeliveryBenchmark {

	private static final String DESTINATION = "bench";

	/**
	 * The scenarios to run ({@code -Dbench.delivery.only}, comma-separated prefixes of their names, e.g.
	 * {@code "guard x2 batch10,outbox"}); all when empty.
	 */
	private static final List<String> ONLY = java.util.Arrays.stream(System.getProperty("bench.delivery.only", "").split(","))
		.map(String::strip)
		.filter((name) -> !name.isEmpty())
		.toList();

	private DeliveryBenchmark() {
	}

	/**
	 * Runs the benchmark and prints one line per scenario and round.
	 * @param args N, rounds
	 * @throws Exception on failure
	 */
	public static void main(String[] args) throws Exception {
		int n = (args.length > 0) ? Integer.parseInt(args[0]) : 5_000;
		int rounds = (args.length > 1) ? Integer.parseInt(args[1]) : 2;
		int sendMillis = (args.length > 2) ? Integer.parseInt(args[2]) : 0;
		try (BenchDatabases.Postgres postgres = BenchDatabases.Postgres.start()) {
			DataSource admin = postgres.admin();
			Schema.migrate(admin, Dialect.POSTGRESQL, TableNames.defaults());
			try (Connection connection = admin.getConnection(); Statement statement = connection.createStatement()) {
				statement.execute("DROP TABLE IF EXISTS bench_outbox");
				statement.execute("CREATE TABLE bench_outbox (id BIGSERIAL PRIMARY KEY, payload TEXT NOT NULL, "
						+ "state VARCHAR(16) NOT NULL, delivered_at TIMESTAMPTZ)");
				statement.execute("CREATE INDEX bench_outbox_pending ON bench_outbox (id) WHERE state = 'PENDING'");
			}
			boolean profile = StatementProfile.available(admin);
			System.out.printf(Locale.ROOT, "Delivery benchmark: PostgreSQL %s (%s), %d messages per round, "
					+ "sender taking %d ms%s%n", postgres.description(), BenchDatabases.postgresSettings(admin), n, sendMillis,
					profile ? "; server time per statement from pg_stat_statements" : "");
			DataSource profiled = profile ? admin : null;
			java.util.Map<String, List<Double>> rates = new java.util.LinkedHashMap<>();
			List<HikariDataSource> pools = new ArrayList<>();
			for (int i = 0; i < 3; i++) {
				pools.add(BenchSql.pool(postgres.url(), 4));
			}
			try {
				for (int round = 0; round <= rounds; round++) {
					int size = (round == 0) ? Math.max(500, n / 10) : n;
					String label = (round == 0) ? "warm-up" : "round " + round;
					measure(rates, round, label, "guard x1", size, () -> guard(pools, size, 1, 1, sendMillis, 1), profiled);
					measure(rates, round, label, "guard x1 t4", size, () -> guard(pools, size, 1, 4, sendMillis, 1), profiled);
					measure(rates, round, label, "guard x2", size, () -> guard(pools, size, 2, 1, sendMillis, 1), profiled);
					measure(rates, round, label, "guard x1 batch10 (idempotent)", size, () -> guard(pools, size, 1, 1, sendMillis, 10), profiled);
					measure(rates, round, label, "guard x2 batch10 (idempotent)", size, () -> guard(pools, size, 2, 1, sendMillis, 10), profiled);
					measure(rates, round, label, "guard x2 locked10 (idempotent)", size, () -> guard(pools, size, 2, 1, sendMillis, -10), profiled);
					if (sendMillis == 0) {
						measure(rates, round, label, "outbox x2", size, () -> outbox(pools, size, 2), profiled);
					}
				}
			}
			finally {
				pools.forEach(HikariDataSource::close);
			}
			System.out.println("median (min - max) over " + rounds + " measured rounds, delivered per second:");
			rates.forEach((scenario, values) -> {
				List<Double> sorted = values.stream().sorted().toList();
				double median = (sorted.size() % 2 == 1) ? sorted.get(sorted.size() / 2)
						: (sorted.get(sorted.size() / 2 - 1) + sorted.get(sorted.size() / 2)) / 2;
				System.out.printf(Locale.ROOT, "  %-30s %,8.0f (%,.0f - %,.0f)%n", scenario, median, sorted.get(0),
						sorted.get(sorted.size() - 1));
			});
		}
	}

	private static void measure(java.util.Map<String, List<Double>> rates, int round, String label, String scenario, int n,
			java.util.concurrent.Callable<Duration> run, DataSource profiled) throws Exception {
		if (!ONLY.isEmpty() && ONLY.stream().noneMatch(scenario::startsWith)) {
			return;
		}
		if (profiled != null) {
			StatementProfile.reset(profiled);
		}
		Duration elapsed = run.call();
		report(label, scenario, n, elapsed);
		if (profiled != null) {
			StatementProfile.print(profiled, n);
		}
		if (round > 0) {
			rates.computeIfAbsent(scenario, (key) -> new ArrayList<>()).add(n / (elapsed.toNanos() / 1e9));
		}
	}

	/**
	 * One guard scenario.
	 * @param claimBatch 1: a claim per send; above 1: leased batches of that size; below 0: locked batches of
	 * {@code -claimBatch}
	 */
	private static Duration guard(List<HikariDataSource> pools, int n, int instances, int threads, int sendMillis,
			int claimBatch) throws Exception {
		String run = "r" + System.nanoTime();
		LongAdder sent = new LongAdder();
		DeliverySender sender = (delivery) -> {
			if (sendMillis > 0) {
				Thread.sleep(sendMillis);
			}
			sent.increment();
		};
		DeliveryGuard producer = DeliveryGuard.builder(pools.get(2)).instanceId("producer")
			.destination(DeliveryDestination.of(DESTINATION, sender))
			.build();
		BenchSql.execute(pools.get(2), "TRUNCATE polling_delivery"); // every scenario starts on an empty table
		try (Connection connection = pools.get(2).getConnection()) {
			connection.setAutoCommit(false);
			for (int i = 0; i < n; i++) {
				producer.store(connection, DESTINATION, run + ":" + i, "payload " + i);
				if (i % 1000 == 999 || i == n - 1) {
					connection.commit();
				}
			}
		}
		LongAdder delivered = new LongAdder();
		DeliveryListener recorded = new DeliveryListener() {

			@Override
			public void onDelivered(String destination) {
				delivered.increment(); // after the post-update committed
			}

		};
		analyzeIfAsked(pools.get(2), "polling_delivery");
		BenchSql.execute(pools.get(2), "CHECKPOINT"); // and its timed part right after a checkpoint
		List<DeliveryDispatcher> dispatchers = new ArrayList<>();
		for (int i = 0; i < instances; i++) {
			DeliveryGuard guard = DeliveryGuard.builder(pools.get(i)).instanceId("instance-" + i)
				.destination((claimBatch < 0) ? DeliveryDestination.idempotent(DESTINATION, sender).withLockedBatches(-claimBatch)
						: (claimBatch > 1) ? DeliveryDestination.idempotent(DESTINATION, sender).withBatchClaims(claimBatch)
						: DeliveryDestination.of(DESTINATION, sender))
				.listener(recorded)
				.build();
			dispatchers.add(new DeliveryDispatcher(guard, threads, 10, Duration.ofMillis(100), Duration.ofSeconds(30)));
		}
		CpuSpan cpu = CpuSpan.start();
		long start = System.nanoTime();
		dispatchers.forEach(DeliveryDispatcher::start);
		while (delivered.sum() < n) {
			Thread.sleep(5);
		}
		Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
		lastCpu = cpu.end(n);
		dispatchers.forEach((dispatcher) -> dispatcher.stop(Duration.ofSeconds(10)));
		if (sent.sum() != n) {
			throw new IllegalStateException("sent " + sent.sum() + " times for " + n + " messages");
		}
		BenchSql.awaitCount(pools.get(2), "SELECT COUNT(*) FROM polling_delivery WHERE idempotency_key LIKE '" + run
				+ ":%' AND state = 'DELIVERED'", n);
		return elapsed;
	}

	private static Duration outbox(List<HikariDataSource> pools, int n, int threads) throws Exception {
		BenchSql.execute(pools.get(2), "TRUNCATE bench_outbox");
		try (Connection connection = pools.get(2).getConnection();
				PreparedStatement insert = connection.prepareStatement("INSERT INTO bench_outbox (payload, state) VALUES (?, 'PENDING')")) {
			connection.setAutoCommit(false);
			for (int i = 0; i < n; i++) {
				insert.setString(1, "payload " + i);
				insert.addBatch();
				if (i % 1000 == 999 || i == n - 1) {
					insert.executeBatch();
					connection.commit();
				}
			}
		}
		analyzeIfAsked(pools.get(2), "bench_outbox");
		BenchSql.execute(pools.get(2), "CHECKPOINT");
		LongAdder sent = new LongAdder();
		List<Thread> workers = new ArrayList<>();
		List<Exception> failures = new CopyOnWriteArrayList<>();
		CpuSpan cpu = CpuSpan.start();
		long start = System.nanoTime();
		for (int t = 0; t < threads; t++) {
			DataSource pool = pools.get(t);
			Thread worker = new Thread(() -> {
				try {
					outboxLoop(pool, sent);
				}
				catch (Exception ex) {
					failures.add(ex);
				}
			}, "outbox-" + t);
			worker.start();
			workers.add(worker);
		}
		for (Thread worker : workers) {
			worker.join();
		}
		Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
		lastCpu = cpu.end(n);
		if (!failures.isEmpty()) {
			throw failures.get(0);
		}
		if (sent.sum() != n) {
			throw new IllegalStateException("sent " + sent.sum() + " times for " + n + " messages");
		}
		return elapsed;
	}

	/**
	 * With {@code -Danalyze=true}: refreshes the table's statistics after the messages were stored, as
	 * autovacuum does in a running system (a table filled a moment ago is planned from old figures).
	 */
	private static void analyzeIfAsked(DataSource dataSource, String table) throws Exception {
		if (Boolean.getBoolean("analyze")) {
			try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
				statement.execute("ANALYZE " + table);
			}
		}
	}

	/** Locks up to 10 pending rows, sends them, marks them delivered, commits; until none is left. */
	private static void outboxLoop(DataSource pool, LongAdder sent) throws Exception {
		try (Connection connection = pool.getConnection();
				PreparedStatement lock = connection.prepareStatement("SELECT id, payload FROM bench_outbox WHERE state = 'PENDING' "
						+ "ORDER BY id LIMIT 10 FOR UPDATE SKIP LOCKED");
				PreparedStatement done = connection.prepareStatement("UPDATE bench_outbox SET state = 'DELIVERED', "
						+ "delivered_at = now() WHERE id = ANY (?)")) {
			connection.setAutoCommit(false);
			while (true) {
				List<Long> ids = new ArrayList<>();
				try (ResultSet rows = lock.executeQuery()) {
					while (rows.next()) {
						ids.add(rows.getLong(1));
						rows.getString(2); // the payload goes to the (trivial) sender
						sent.increment();
					}
				}
				if (ids.isEmpty()) {
					connection.commit();
					return;
				}
				Array array = connection.createArrayOf("bigint", ids.toArray());
				done.setArray(1, array);
				done.executeUpdate();
				connection.commit();
			}
		}
	}

	/** CPU per message of the last timed part (client, server), see {@link CpuSpan}. */
	private static String lastCpu = "";

	private static void report(String round, String scenario, int n, Duration elapsed) {
		System.out.printf(Locale.ROOT, "%-8s %-11s %,7d messages in %6.2f s = %,7.0f delivered per second, CPU per message %s%n",
				round, scenario, n, elapsed.toNanos() / 1e9, n / (elapsed.toNanos() / 1e9), lastCpu);
	}

}
