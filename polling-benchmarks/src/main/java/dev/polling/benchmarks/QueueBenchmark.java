package dev.polling.benchmarks;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.task.TaskInstance;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.zaxxer.hikari.HikariDataSource;
import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.Schema;
import dev.polling.jdbc.TableNames;
import dev.polling.jdbc.queue.NewMessage;
import dev.polling.jdbc.queue.QueueWorkers;
import dev.polling.jdbc.queue.WorkQueue;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;

/**
 * Claimed+completed messages per second of the {@link WorkQueue} with its {@link QueueWorkers},
 * against db-scheduler executions per second, in one JVM on one embedded PostgreSQL 17 (zonky
 * binaries, default server settings: {@code fsync} and {@code synchronous_commit} on).
 * <p>
 * Each scenario enqueues N messages (tasks) first, then starts two "instances" (each its own
 * connection pool of 8 and its own queue/scheduler object) with 4 worker threads each and a
 * trivial handler, and measures the time until the last one is done: rate = N / time. Scenarios:
 * <ol>
 * <li>{@code single-row}: claims of one message (batch size 1), no business keys;</li>
 * <li>{@code batched}: claims of 10 (the default), no business keys;</li>
 * <li>{@code per-key}: claims of 10, every message with one of 1,000 business keys (20 per key,
 * interleaved), so that per-key ordering is checked on every claim;</li>
 * <li>{@code db-scheduler}: one-time tasks of one trivial task type, due now, two schedulers with 4
 * threads each, lock-and-fetch polling (its {@code FOR UPDATE SKIP LOCKED} strategy on
 * PostgreSQL), 100 ms polling interval.</li>
 * </ol>
 * A warm-up round of each scenario with N/10 messages runs first. Arguments (optional): N (default
 * 20000), rounds (default 2).
 */
public final class QueueBenchmark {

	private static final int INSTANCES = 2;

	private static final int THREADS = 4;

	private QueueBenchmark() {
	}

	/**
	 * Runs the benchmark and prints one line per scenario and round.
	 * @param args N, rounds
	 * @throws Exception on failure
	 */
	public static void main(String[] args) throws Exception {
		int n = (args.length > 0) ? Integer.parseInt(args[0]) : 20_000;
		int rounds = (args.length > 1) ? Integer.parseInt(args[1]) : 2;
		try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().start()) {
			DataSource admin = postgres.getPostgresDatabase();
			Schema.migrate(admin, Dialect.POSTGRESQL, TableNames.defaults());
			createDbSchedulerTable(admin);
			System.out.printf(Locale.ROOT, "Queue benchmark: PostgreSQL embedded (zonky, %s), %d instances x %d threads, "
					+ "%d messages per round, trivial handlers%n", BenchSql.version(admin), INSTANCES, THREADS, n);
			List<HikariDataSource> pools = new ArrayList<>();
			for (int i = 0; i < INSTANCES + 1; i++) {
				pools.add(BenchSql.pool(postgres.getJdbcUrl("postgres", "postgres"), 8));
			}
			try {
				for (int round = 0; round <= rounds; round++) {
					int size = (round == 0) ? Math.max(1000, n / 10) : n;
					String label = (round == 0) ? "warm-up" : "round " + round;
					report(label, "single-row", size, queue(pools, size, 1, 0));
					report(label, "batched", size, queue(pools, size, 10, 0));
					report(label, "per-key", size, queue(pools, size, 10, 1000));
					report(label, "db-scheduler", size, dbScheduler(pools, size));
				}
			}
			finally {
				pools.forEach(HikariDataSource::close);
			}
		}
	}

	private static Duration queue(List<HikariDataSource> pools, int n, int batchSize, int keys) throws Exception {
		String name = "bench-" + System.nanoTime();
		WorkQueue producer = WorkQueue.builder(pools.get(INSTANCES)).instanceId("producer").build();
		List<NewMessage> batch = new ArrayList<>();
		for (int i = 0; i < n; i++) {
			batch.add(new NewMessage((keys > 0) ? "key-" + (i % keys) : null, "payload " + i));
			if (batch.size() == 1000 || i == n - 1) {
				producer.enqueueAll(name, batch);
				batch.clear();
			}
		}
		LongAdder done = new LongAdder();
		List<QueueWorkers> instances = new ArrayList<>();
		for (int i = 0; i < INSTANCES; i++) {
			WorkQueue queue = WorkQueue.builder(pools.get(i)).instanceId("instance-" + i).build();
			instances.add(QueueWorkers.builder(queue).threads(THREADS).batchSize(batchSize)
				.pollInterval(Duration.ofMillis(100))
				.subscribe(name, (message) -> done.increment())
				.build());
		}
		long start = System.nanoTime();
		instances.forEach(QueueWorkers::start);
		while (done.sum() < n) {
			Thread.sleep(5);
		}
		BenchSql.awaitCount(pools.get(INSTANCES), "SELECT COUNT(*) FROM polling_queue WHERE queue = '" + name
				+ "' AND state = 'DONE'", n);
		Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
		instances.forEach((workers) -> workers.stop(Duration.ofSeconds(10)));
		if (done.sum() != n) {
			throw new IllegalStateException("handled " + done.sum() + " times for " + n + " messages");
		}
		return elapsed;
	}

	private static Duration dbScheduler(List<HikariDataSource> pools, int n) throws Exception {
		LongAdder executed = new LongAdder();
		OneTimeTask<Void> task = Tasks.oneTime("bench-" + System.nanoTime()).execute((instance, context) -> executed.increment());
		Scheduler client = Scheduler.create(pools.get(INSTANCES), task).build();
		Instant now = Instant.now();
		List<TaskInstance<?>> instances = new ArrayList<>();
		for (int i = 0; i < n; i++) {
			instances.add(task.instance("i" + i));
			if (instances.size() == 1000 || i == n - 1) {
				client.scheduleBatch(instances, now);
				instances.clear();
			}
		}
		List<Scheduler> schedulers = new ArrayList<>();
		for (int i = 0; i < INSTANCES; i++) {
			schedulers.add(Scheduler.create(pools.get(i), task)
				.threads(THREADS)
				.pollingInterval(Duration.ofMillis(100))
				.pollUsingLockAndFetch(0.5, 1.0)
				.build());
		}
		long start = System.nanoTime();
		schedulers.forEach(Scheduler::start);
		while (executed.sum() < n) {
			Thread.sleep(5);
		}
		Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
		BenchSql.awaitCount(pools.get(INSTANCES), "SELECT " + n + " - COUNT(*) FROM scheduled_tasks WHERE task_name = '"
				+ task.getName() + "'", n);
		schedulers.forEach(Scheduler::stop);
		return elapsed;
	}

	private static void report(String round, String scenario, int n, Duration elapsed) {
		double perSecond = n / (elapsed.toNanos() / 1e9);
		System.out.printf(Locale.ROOT, "%-8s %-13s %,8d messages in %6.2f s = %,8.0f per second%n", round, scenario, n,
				elapsed.toNanos() / 1e9, perSecond);
	}

	/** db-scheduler's table, written from its documented column list for PostgreSQL. */
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
