package dev.polling.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.Schema;
import dev.polling.jdbc.TableNames;
import dev.polling.jdbc.queue.ClaimProbe;
import dev.polling.jdbc.queue.NewMessage;
import dev.polling.jdbc.queue.QueueMessage;
import dev.polling.jdbc.queue.WorkQueue;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import javax.sql.DataSource;

/**
 * The cost of one claim of the {@link WorkQueue} with 0 and with 100,000 messages blocked behind
 * their business keys (issue 16, defects 1 and 2), on PostgreSQL and MariaDB.
 * <p>
 * Per scenario, in a fresh queue: the heads of K keys are claimed and kept in progress (so every
 * younger message of those keys must wait), B messages are enqueued behind them (B/K per key), then
 * 2,000 messages without a key; the table is analyzed (as autovacuum would have done), and 200
 * claims of 10 take those 2,000, each claim timed from the call to its commit. Scenarios: B = 0
 * (K = 1,000), B = 100,000 behind K = 1,000 keys, B = 100,000 behind K = 10 keys. Rounds repeat the
 * whole set; the figures are the median and the 99th percentile of the claims of a round.
 * <p>
 * Arguments (optional): rounds (default 3), {@code postgresql}, {@code mariadb} or {@code both}
 * (default).
 */
public final class ClaimCostBenchmark {

	private static final int CLAIMABLE = 2000;

	private static final int CLAIM = 10;

	private ClaimCostBenchmark() {
	}

	/**
	 * Runs the benchmark.
	 * @param args rounds, database
	 * @throws Exception on failure
	 */
	public static void main(String[] args) throws Exception {
		int rounds = (args.length > 0) ? Integer.parseInt(args[0]) : 3;
		String which = (args.length > 1) ? args[1] : "both";
		System.out.printf(Locale.ROOT, "claim cost: java %s, %d cores%n", System.getProperty("java.version"),
				Runtime.getRuntime().availableProcessors());
		if (!which.equals("mariadb")) {
			try (EmbeddedPostgres postgres = BenchDatabases.postgres(true);
					HikariDataSource pool = BenchSql.pool(postgres.getJdbcUrl("postgres", "postgres"), 4)) {
				System.out.println("PostgreSQL embedded: " + BenchDatabases.postgresSettings(pool));
				run(pool, Dialect.POSTGRESQL, rounds);
			}
		}
		if (!which.equals("postgresql")) {
			try (BenchDatabases.MariaDb mariadb = BenchDatabases.MariaDb.start();
					HikariDataSource pool = BenchSql.pool(mariadb.url(), 4)) {
				System.out.println("MariaDB (private mariadbd): " + BenchDatabases.MariaDb.settings(pool));
				run(pool, Dialect.MARIADB, rounds);
			}
		}
	}

	private static void run(DataSource pool, Dialect dialect, int rounds) throws Exception {
		Schema.migrate(pool, dialect, TableNames.defaults());
		System.out.printf(Locale.ROOT, "%-8s %-36s %10s %10s %10s%n", "round", "scenario", "median ms", "p99 ms",
				"max ms");
		for (int round = 0; round <= rounds; round++) {
			String label = (round == 0) ? "warm-up" : "round " + round;
			measure(pool, dialect, label, "0 blocked (1,000 keys in progress)", 1000, 0);
			measure(pool, dialect, label, "100,000 blocked behind 1,000 keys", 1000, 100_000);
			measure(pool, dialect, label, "100,000 blocked behind 10 keys", 10, 100_000);
		}
	}

	private static void measure(DataSource pool, Dialect dialect, String round, String scenario, int keys, int blocked)
			throws Exception {
		String queueName = "claims-" + System.nanoTime();
		WorkQueue queue = WorkQueue.builder(pool).dialect(dialect).instanceId("bench").build();
		List<NewMessage> batch = new ArrayList<>();
		for (int key = 0; key < keys; key++) {
			batch.add(new NewMessage("key-" + key, "head"));
		}
		queue.enqueueAll(queueName, batch);
		int heads = 0;
		while (heads < keys) {
			heads += ClaimProbe.claim(queue, queueName, Math.min(1000, keys - heads)).size();
		}
		batch.clear();
		for (int i = 0; i < blocked; i++) {
			batch.add(new NewMessage("key-" + (i % keys), "blocked"));
			if (batch.size() == 1000) {
				queue.enqueueAll(queueName, batch);
				batch.clear();
			}
		}
		for (int i = 0; i < CLAIMABLE; i++) {
			batch.add(new NewMessage(null, "claimable"));
			if (batch.size() == 1000) {
				queue.enqueueAll(queueName, batch);
				batch.clear();
			}
		}
		try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement()) {
			statement.execute((dialect == Dialect.POSTGRESQL) ? "ANALYZE polling_queue" : "ANALYZE TABLE polling_queue");
		}
		long[] nanos = new long[CLAIMABLE / CLAIM];
		int claimed = 0;
		for (int i = 0; i < nanos.length; i++) {
			long start = System.nanoTime();
			List<QueueMessage> messages = ClaimProbe.claim(queue, queueName, CLAIM);
			nanos[i] = System.nanoTime() - start;
			claimed += messages.size();
		}
		if (claimed != CLAIMABLE) {
			throw new IllegalStateException(scenario + ": claimed " + claimed + " of " + CLAIMABLE);
		}
		Arrays.sort(nanos);
		System.out.printf(Locale.ROOT, "%-8s %-36s %10.3f %10.3f %10.3f%n", round, scenario,
				nanos[nanos.length / 2] / 1e6, nanos[(int) Math.ceil(nanos.length * 0.99) - 1] / 1e6,
				nanos[nanos.length - 1] / 1e6);
		try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement()) {
			// emptied for the next scenario by TRUNCATE: a DELETE of 100,000 rows left the database's
			// background clean-up (InnoDB purge, autovacuum) to run during the next scenario's claims
			statement.execute("TRUNCATE TABLE polling_queue");
			statement.execute("TRUNCATE TABLE polling_queue_key");
		}
	}

}
