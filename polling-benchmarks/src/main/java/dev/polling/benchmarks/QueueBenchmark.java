package dev.polling.benchmarks;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.task.TaskInstance;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.zaxxer.hikari.HikariDataSource;
import dev.polling.jdbc.ConnectionProvider;
import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.JdbcTransactions;
import dev.polling.jdbc.Schema;
import dev.polling.jdbc.TableNames;
import dev.polling.jdbc.TransactionRunner;
import dev.polling.jdbc.queue.NewMessage;
import dev.polling.jdbc.queue.QueueSubscription;
import dev.polling.jdbc.queue.QueueWorkers;
import dev.polling.jdbc.queue.WorkQueue;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Claimed+completed messages per second of the {@link WorkQueue} with its {@link QueueWorkers},
 * against db-scheduler executions per second, in one JVM on one embedded PostgreSQL 17 (zonky
 * binaries) with {@code fsync} and {@code synchronous_commit} on (read back from the server and
 * printed), so every commit waits for its flush as in production.
 * <p>
 * Each scenario enqueues N messages (tasks) first, then starts two "instances" (each its own
 * connection pool of 8 and its own queue/scheduler object) with 4 worker threads each, a 100 ms
 * polling interval and a trivial handler, and measures the time until the last one is done:
 * rate = N / time. Commits per message are counted by the server ({@code pg_stat_database}, the
 * pools closed before reading so that every backend has reported). Scenarios:
 * <ol>
 * <li>{@code one-commit}: claims of 10, each completion committed on its own right after the handler
 * (the plain-Java default);</li>
 * <li>{@code one-commit-delete}: the same with {@code deleteWhenDone(true)}: a completion deletes the
 * message, as db-scheduler deletes a finished execution (nothing kept on either side);</li>
 * <li>{@code one-commit-tx}: the same with a transaction runner ({@link JdbcTransactions}): handler
 * and completion in one transaction per message, the path the Spring Boot starter takes;</li>
 * <li>{@code one-commit-tx-delete}: the same with {@code deleteWhenDone(true)} (the starter's
 * {@code polling.jdbc.queue.retention.period=0}): a completion deletes the message, as db-scheduler deletes a
 * finished execution;</li>
 * <li>{@code one-commit-tx-row}: as {@code one-commit-tx}, the handler inserting one business row on
 * the transaction's connection (committed with the completion: one commit per message);</li>
 * <li>{@code starter}, {@code starter-row}: as {@code one-commit-tx} and {@code one-commit-tx-row}, with the
 * transactions the Spring Boot starter makes (a {@code TransactionTemplate} over Spring's
 * {@code JdbcTransactionManager}, the queue's and the handler's connections bound to it through
 * {@code DataSourceUtils}) instead of {@link JdbcTransactions};</li>
 * <li>{@code starter-without-tx}: as {@code starter}, the subscription
 * {@linkplain QueueSubscription#withoutTransaction() without transaction} (for handlers whose work is
 * not in the database): the completion commits by itself right after the handler;</li>
 * <li>{@code per-key}: as {@code one-commit}, every message with one of 1,000 business keys (20 per
 * key, interleaved), so that per-key ordering is checked on every claim;</li>
 * <li>{@code batched-opt-in}: completions of all workers written in batches of up to 100
 * ({@code batchCompletions(true)}, for idempotent handlers only; not like-for-like);</li>
 * <li>{@code dbs(a,b)}: db-scheduler one-time tasks of one trivial task type, due now, two
 * schedulers with 4 threads each, {@code pollUsingLockAndFetch(a, b)} (its {@code FOR UPDATE SKIP
 * LOCKED} strategy on PostgreSQL) for (0.5, 1.0), (1.0, 4.0) and (2.0, 4.0);</li>
 * <li>{@code dbs-row(a,b)}: the same, the task inserting one business row on its scheduler's pool
 * (auto-committed: db-scheduler commits an execution's completion apart from the task's work, so
 * two commits per message).</li>
 * </ol>
 * Each scenario starts on empty tables (truncated) and its timed part right after a
 * {@code CHECKPOINT}. A warm-up round of each scenario with N/10 messages runs first; then the measured rounds, and per
 * scenario the median and the range. Arguments (optional): N (default 20000), rounds (default 3),
 * scenarios to run (comma-separated names, default all), e.g. {@code 5000 2 one-commit-tx,dbs(2.0,4.0)}.
 */
public final class QueueBenchmark {

	private static final int INSTANCES = 2;

	private static final int THREADS = 4;

	private static final Duration POLL = Duration.ofMillis(100);

	/** Messages per claim of our workers ({@code -Dbench.queue.batch}, default 10 as the starter's). */
	private static final int BATCH = Integer.getInteger("bench.queue.batch", 10);

	private QueueBenchmark() {
	}

	/** One way to process N messages; returns the time until the last is done. */
	private interface Scenario {

		Duration run(String url, int n) throws Exception;

	}

	/**
	 * Runs the benchmark and prints one line per scenario and round, then the summary.
	 * @param args N, rounds
	 * @throws Exception on failure
	 */
	public static void main(String[] args) throws Exception {
		int n = (args.length > 0) ? Integer.parseInt(args[0]) : 20_000;
		int rounds = (args.length > 1) ? Integer.parseInt(args[1]) : 3;
		Map<String, Scenario> scenarios = new LinkedHashMap<>();
		scenarios.put("one-commit", (url, size) -> queue(url, size, 0, false, false, false, false));
		scenarios.put("starter", (url, size) -> queue(url, size, 0, SPRING, false, false, false));
		scenarios.put("starter-row", (url, size) -> queue(url, size, 0, SPRING, false, false, true));
		scenarios.put("starter-without-tx", (url, size) -> queue(url, size, 0, SPRING_WITHOUT_TRANSACTION, false, false, false));
		scenarios.put("one-commit-delete", (url, size) -> queue(url, size, 0, false, false, true, false));
		scenarios.put("one-commit-tx", (url, size) -> queue(url, size, 0, true, false, false, false));
		scenarios.put("one-commit-tx-delete", (url, size) -> queue(url, size, 0, true, false, true, false));
		scenarios.put("one-commit-tx-row", (url, size) -> queue(url, size, 0, true, false, false, true));
		scenarios.put("per-key", (url, size) -> queue(url, size, 1000, false, false, false, false));
		scenarios.put("batched-opt-in", (url, size) -> queue(url, size, 0, false, true, false, false));
		for (double[] setting : new double[][] { { 0.5, 1.0 }, { 1.0, 4.0 }, { 2.0, 4.0 } }) {
			scenarios.put(String.format(Locale.ROOT, "dbs(%.1f,%.1f)", setting[0], setting[1]),
					(url, size) -> dbScheduler(url, size, setting[0], setting[1], false));
			scenarios.put(String.format(Locale.ROOT, "dbs-row(%.1f,%.1f)", setting[0], setting[1]),
					(url, size) -> dbScheduler(url, size, setting[0], setting[1], true));
		}
		if (args.length > 2) {
			List<String> chosen = List.of(args[2].split(",(?![^(]*\\))")); // commas outside the parentheses of dbs(a,b)
			if (!scenarios.keySet().containsAll(chosen)) {
				throw new IllegalArgumentException("Unknown scenario in '" + args[2] + "'; the scenarios are " + scenarios.keySet());
			}
			scenarios.keySet().retainAll(chosen);
		}
		try (BenchDatabases.Postgres postgres = BenchDatabases.Postgres.start()) {
			DataSource admin = postgres.admin();
			Schema.migrate(admin, Dialect.POSTGRESQL, TableNames.defaults());
			createDbSchedulerTable(admin);
			BenchSql.execute(admin, "CREATE TABLE IF NOT EXISTS bench_business (id BIGSERIAL PRIMARY KEY, "
					+ "message TEXT NOT NULL, written_at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now())");
			String url = postgres.url();
			boolean profile = StatementProfile.available(admin);
			System.out.printf(Locale.ROOT, "Queue benchmark: PostgreSQL %s (%s), %d instances x %d threads, "
					+ "pools of 8, poll interval %d ms, claims of %d, %d messages per round, %d rounds, trivial handlers (the -row scenarios: one INSERT each)%s%n",
					postgres.description(), BenchDatabases.postgresSettings(admin),
					INSTANCES, THREADS, POLL.toMillis(), BATCH, n, rounds,
					profile ? "; server time per statement from pg_stat_statements" : "");
			Map<String, List<Double>> rates = new LinkedHashMap<>();
			Map<String, List<Double>> commits = new LinkedHashMap<>();
			for (int round = 0; round <= rounds; round++) {
				int size = (round == 0) ? Math.max(1000, n / 10) : n;
				String label = (round == 0) ? "warm-up" : "round " + round;
				for (Map.Entry<String, Scenario> scenario : scenarios.entrySet()) {
					// every scenario on empty tables: no rows or dead tuples of the one before (ours keep DONE
					// rows, db-scheduler deletes its), and no autovacuum of them under way while it runs
					BenchSql.execute(admin, "TRUNCATE polling_queue, polling_queue_key", "TRUNCATE scheduled_tasks",
							"TRUNCATE bench_business");
					if (profile) {
						StatementProfile.reset(admin);
					}
					long before = commits(admin);
					long walBefore = walBytes(admin);
					long jvmBefore = CpuClock.jvmNanos();
					long serverBefore = CpuClock.postgresNanos();
					Duration elapsed = scenario.getValue().run(url, size);
					double jvmMicros = (CpuClock.jvmNanos() - jvmBefore) / 1e3 / size;
					double serverMicros = (CpuClock.postgresNanos() - serverBefore) / 1e3 / size;
					double perMessage = (commits(admin) - before) / (double) size;
					double walPerMessage = (walBytes(admin) - walBefore) / (double) size;
					double perSecond = size / (elapsed.toNanos() / 1e9);
					System.out.printf(Locale.ROOT, "%-8s %-15s %,8d messages in %6.2f s = %,8.0f per second, %.2f commits per message, "
							+ "%,.0f WAL bytes per message (enqueue included), CPU per message %.0f µs client + %.0f µs server%n", label,
							scenario.getKey(), size, elapsed.toNanos() / 1e9, perSecond, perMessage, walPerMessage, jvmMicros,
							serverMicros);
					if (profile) {
						StatementProfile.print(admin, size);
					}
					if (round > 0) {
						rates.computeIfAbsent(scenario.getKey(), (key) -> new ArrayList<>()).add(perSecond);
						commits.computeIfAbsent(scenario.getKey(), (key) -> new ArrayList<>()).add(perMessage);
					}
				}
			}
			System.out.println();
			System.out.printf(Locale.ROOT, "%-15s %10s %21s %18s%n", "scenario", "median/s", "range/s", "commits/message");
			for (String scenario : scenarios.keySet()) {
				List<Double> r = rates.get(scenario);
				System.out.printf(Locale.ROOT, "%-15s %,10.0f %,10.0f-%,-10.0f %18.2f%n", scenario, median(r), Collections.min(r),
						Collections.max(r), median(commits.get(scenario)));
			}
		}
	}

	private static double median(List<Double> values) {
		List<Double> sorted = new ArrayList<>(values);
		Collections.sort(sorted);
		int size = sorted.size();
		return (size % 2 == 1) ? sorted.get(size / 2) : (sorted.get(size / 2 - 1) + sorted.get(size / 2)) / 2;
	}

	/**
	 * Transactions committed in the database so far. Callers close their pools first: a backend
	 * reports its counts when it exits (or at least once a second while busy).
	 */
	/** The server's current WAL position in bytes. */
	private static long walBytes(DataSource admin) throws Exception {
		try (Connection connection = admin.getConnection(); Statement statement = connection.createStatement();
				ResultSet result = statement.executeQuery("SELECT pg_current_wal_lsn() - '0/0'::pg_lsn")) {
			result.next();
			return result.getLong(1);
		}
	}

	/** Transactions committed in the database so far (after a pause: backends report their counts about once a second). */
	static long commits(DataSource admin) throws Exception {
		Thread.sleep(1200);
		try (Connection connection = admin.getConnection(); Statement statement = connection.createStatement();
				ResultSet result = statement.executeQuery("SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()")) {
			result.next();
			return result.getLong(1);
		}
	}

	/** Transactions as the starter makes them: Spring's transaction manager, not {@link JdbcTransactions}. */
	private static final int SPRING = 2;

	/** As {@link #SPRING}, the subscription {@linkplain QueueSubscription#withoutTransaction() without transaction}. */
	private static final int SPRING_WITHOUT_TRANSACTION = 3;

	private static Duration queue(String url, int n, int keys, boolean transactions, boolean batchCompletions, boolean deleteWhenDone,
			boolean businessRow) throws Exception {
		return queue(url, n, keys, transactions ? 1 : 0, batchCompletions, deleteWhenDone, businessRow);
	}

	/**
	 * One queue scenario.
	 * @param transactions 0: none (completions commit by themselves), 1: {@link JdbcTransactions}, {@link #SPRING}: a
	 * {@code TransactionTemplate} over Spring's {@code JdbcTransactionManager} (what Spring Boot makes for a
	 * {@code DataSource}) and connections through {@code DataSourceUtils}, wired as the starter wires them;
	 * {@link #SPRING_WITHOUT_TRANSACTION}: the same, the subscription without transaction
	 */
	private static Duration queue(String url, int n, int keys, int transactions, boolean batchCompletions, boolean deleteWhenDone,
			boolean businessRow) throws Exception {
		String name = "bench-" + System.nanoTime();
		try (HikariDataSource producerPool = BenchSql.pool(url, 8)) {
			WorkQueue producer = WorkQueue.builder(producerPool).instanceId("producer").build();
			List<NewMessage> batch = new ArrayList<>();
			for (int i = 0; i < n; i++) {
				batch.add(new NewMessage((keys > 0) ? "key-" + (i % keys) : null, "payload " + i));
				if (batch.size() == 1000 || i == n - 1) {
					producer.enqueueAll(name, batch);
					batch.clear();
				}
			}
			BenchSql.execute(producerPool, "CHECKPOINT"); // the timed part starts right after a checkpoint, as for db-scheduler
		}
		LongAdder done = new LongAdder();
		List<HikariDataSource> pools = new ArrayList<>();
		List<QueueWorkers> instances = new ArrayList<>();
		for (int i = 0; i < INSTANCES; i++) {
			HikariDataSource pool = BenchSql.pool(url, 8);
			pools.add(pool);
			WorkQueue.Builder queue = WorkQueue.builder(pool).instanceId("instance-" + i).deleteWhenDone(deleteWhenDone);
			ConnectionProvider tx;
			TransactionRunner runner;
			if (transactions >= SPRING) {
				// as PollingJdbcAutoConfiguration: the transaction-bound connection, a TransactionTemplate per worker set
				tx = new ConnectionProvider() {

					@Override
					public Connection getConnection() {
						return DataSourceUtils.getConnection(pool);
					}

					@Override
					public void releaseConnection(Connection connection) {
						DataSourceUtils.releaseConnection(connection, pool);
					}

				};
				TransactionTemplate template = new TransactionTemplate(new JdbcTransactionManager(pool));
				runner = (work) -> template.executeWithoutResult((status) -> work.run());
			}
			else {
				JdbcTransactions jdbc = JdbcTransactions.of(pool);
				tx = jdbc;
				runner = jdbc;
			}
			if (transactions > 0) {
				queue.connections(tx);
			}
			QueueWorkers.Builder workers = QueueWorkers.builder(queue.build()).threads(THREADS).batchSize(BATCH)
				.pollInterval(POLL)
				.batchCompletions(batchCompletions);
			QueueSubscription subscription = QueueSubscription.of(name, (message) -> {
				if (businessRow) {
					// the handler's own write, in the transaction the completion commits with
					Connection connection = tx.getConnection();
					try {
						insertBusinessRow(connection, "message " + message.id());
					}
					finally {
						tx.releaseConnection(connection);
					}
				}
				done.increment();
			});
			workers.subscribe((transactions == SPRING_WITHOUT_TRANSACTION) ? subscription.withoutTransaction() : subscription);
			if (transactions > 0) {
				workers.transactions(runner);
			}
			instances.add(workers.build());
		}
		try {
			long start = System.nanoTime();
			instances.forEach(QueueWorkers::start);
			while (done.sum() < n) {
				Thread.sleep(5);
			}
			// every completion committed: n DONE rows, or none left when completions delete
			BenchSql.awaitCount(pools.get(0), deleteWhenDone ? "SELECT " + n + " - COUNT(*) FROM polling_queue WHERE queue = '"
					+ name + "'" : "SELECT COUNT(*) FROM polling_queue WHERE queue = '" + name + "' AND state = 'DONE'", n);
			if (businessRow) {
				BenchSql.awaitCount(pools.get(0), "SELECT COUNT(*) FROM bench_business", n);
			}
			Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
			instances.forEach((workers) -> workers.stop(Duration.ofSeconds(10)));
			if (done.sum() != n) {
				throw new IllegalStateException("handled " + done.sum() + " times for " + n + " messages");
			}
			return elapsed;
		}
		finally {
			pools.forEach(HikariDataSource::close);
		}
	}

	private static Duration dbScheduler(String url, int n, double lowerLimit, double upperLimit, boolean businessRow)
			throws Exception {
		LongAdder executed = new LongAdder();
		String taskName = "bench-" + System.nanoTime();
		OneTimeTask<Void> task = Tasks.oneTime(taskName).execute((instance, context) -> executed.increment());
		try (HikariDataSource producerPool = BenchSql.pool(url, 8)) {
			Scheduler client = Scheduler.create(producerPool, task).build();
			Instant now = Instant.now();
			List<TaskInstance<?>> instances = new ArrayList<>();
			for (int i = 0; i < n; i++) {
				instances.add(task.instance("i" + i));
				if (instances.size() == 1000 || i == n - 1) {
					client.scheduleBatch(instances, now);
					instances.clear();
				}
			}
			BenchSql.execute(producerPool, "CHECKPOINT");
		}
		List<HikariDataSource> pools = new ArrayList<>();
		List<Scheduler> schedulers = new ArrayList<>();
		for (int i = 0; i < INSTANCES; i++) {
			HikariDataSource pool = BenchSql.pool(url, 8);
			pools.add(pool);
			// with a business row: the task writes it on its scheduler's pool, committed by itself, as a task
			// using the application's DataSource (JdbcTemplate, or a transaction of its own) does; the
			// execution's completion commits apart from it, as db-scheduler's always does
			OneTimeTask<Void> handler = !businessRow ? task : Tasks.oneTime(taskName).execute((instance, context) -> {
				try (Connection connection = pool.getConnection()) {
					insertBusinessRow(connection, "message " + instance.getId());
				}
				catch (java.sql.SQLException ex) {
					throw new IllegalStateException(ex);
				}
				executed.increment();
			});
			schedulers.add(Scheduler.create(pool, handler)
				.threads(THREADS)
				.pollingInterval(POLL)
				.pollUsingLockAndFetch(lowerLimit, upperLimit)
				.build());
		}
		try {
			long start = System.nanoTime();
			schedulers.forEach(Scheduler::start);
			while (executed.sum() < n) {
				Thread.sleep(5);
			}
			BenchSql.awaitCount(pools.get(0), "SELECT " + n + " - COUNT(*) FROM scheduled_tasks WHERE task_name = '"
					+ task.getName() + "'", n);
			if (businessRow) {
				BenchSql.awaitCount(pools.get(0), "SELECT COUNT(*) FROM bench_business", n);
			}
			Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
			schedulers.forEach(Scheduler::stop);
			return elapsed;
		}
		finally {
			pools.forEach(HikariDataSource::close);
		}
	}

	/** db-scheduler's table, written from its documented column list for PostgreSQL. */
	private static void insertBusinessRow(Connection connection, String message) {
		try (java.sql.PreparedStatement insert = connection.prepareStatement("INSERT INTO bench_business (message) VALUES (?)")) {
			insert.setString(1, message);
			insert.executeUpdate();
		}
		catch (java.sql.SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static void createDbSchedulerTable(DataSource dataSource) throws Exception {
		try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
			statement.execute("CREATE TABLE IF NOT EXISTS scheduled_tasks (task_name TEXT NOT NULL, "
					+ "task_instance TEXT NOT NULL, task_data BYTEA, execution_time TIMESTAMP WITH TIME ZONE NOT NULL, "
					+ "picked BOOLEAN NOT NULL, picked_by TEXT, last_success TIMESTAMP WITH TIME ZONE, "
					+ "last_failure TIMESTAMP WITH TIME ZONE, consecutive_failures INT, "
					+ "last_heartbeat TIMESTAMP WITH TIME ZONE, version BIGINT NOT NULL, priority SMALLINT, "
					+ "PRIMARY KEY (task_name, task_instance))");
			statement.execute("CREATE INDEX IF NOT EXISTS execution_time_idx ON scheduled_tasks (execution_time)");
			statement.execute("CREATE INDEX IF NOT EXISTS last_heartbeat_idx ON scheduled_tasks (last_heartbeat)");
			statement.execute("CREATE INDEX IF NOT EXISTS priority_execution_time_idx ON scheduled_tasks "
					+ "(priority DESC, execution_time ASC)");
		}
	}

}
