package dev.polling.benchmarks;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.Schema;
import dev.polling.jdbc.TableNames;
import dev.polling.jdbc.jobs.JobDispatcher;
import dev.polling.jdbc.jobs.JobScheduler;
import dev.polling.jdbc.queue.QueueWorkers;
import dev.polling.jdbc.queue.WorkQueue;

/**
 * Scheduled jobs under load on embedded PostgreSQL ({@code fsync} and {@code synchronous_commit} on,
 * printed as read back): {@code jobs} jobs due evenly over
 * {@code seconds}, three instances (a connection pool each) running {@link QueueWorkers} (two
 * threads, batches of 20, batched completions), one of them running the {@link JobDispatcher} every
 * 100 ms. The start delay of a job is the time from its due time to the moment its handler starts; the harness prints
 * its median, p99 and maximum, and the dispatcher's due backlog.
 *
 * <p>Run: {@code polling-benchmarks/run.sh JobsBenchmark [jobs] [seconds]}
 */
public final class JobsBenchmark {

	private static final String QUEUE = "follow-ups";

	private JobsBenchmark() {
	}

	public static void main(String[] args) throws Exception {
		int jobs = (args.length > 0) ? Integer.parseInt(args[0]) : 10_000;
		int seconds = (args.length > 1) ? Integer.parseInt(args[1]) : 60;
		try (EmbeddedPostgres postgres = BenchDatabases.postgres(true)) {
			String url = postgres.getJdbcUrl("postgres", "postgres");
			System.out.println("PostgreSQL embedded: " + BenchDatabases.postgresSettings(postgres.getPostgresDatabase()));
			List<HikariDataSource> pools = new ArrayList<>();
			for (int i = 0; i < 3; i++) {
				pools.add(pool(url));
			}
			try {
				Schema.migrate(pools.get(0), Dialect.POSTGRESQL, TableNames.defaults());
				run(pools, jobs, seconds);
			}
			finally {
				pools.forEach(HikariDataSource::close);
			}
		}
	}

	private static void run(List<HikariDataSource> pools, int jobs, int seconds) throws Exception {
		JobScheduler producer = JobScheduler.create(pools.get(0));
		long lead = 15_000;
		// due times spread evenly over the window, starting after a lead time; the payload carries the due time
		long base = databaseNowMillis(pools.get(0)) + lead;
		for (int i = 0; i < jobs; i++) {
			long offset = (long) i * seconds * 1000 / jobs;
			producer.schedule(QUEUE, "order-" + i, java.time.Instant.ofEpochMilli(base + offset), String.valueOf(base + offset));
		}
		System.out.printf("scheduled %d jobs due over %d s, starting in %d ms; 3 instances x 2 workers, one dispatcher (100 ms)%n", jobs,
				seconds, lead);
		ConcurrentLinkedQueue<Long> delays = new ConcurrentLinkedQueue<>();
		AtomicInteger started = new AtomicInteger();
		List<Long> backlog = new ArrayList<>();
		// the dispatcher: instance 0, the holder of the jobs role
		JobDispatcher dispatcher = JobDispatcher.builder(JobScheduler.create(pools.get(0)),
				WorkQueue.builder(pools.get(0)).instanceId("instance-0").build())
			.interval(Duration.ofMillis(100))
			.batchSize(5_000)
			.build();
		// workers: two per instance, claiming batches of 20 and completing them in batches
		List<QueueWorkers> workers = new ArrayList<>();
		for (int instance = 0; instance < 3; instance++) {
			WorkQueue queue = WorkQueue.builder(pools.get(instance)).instanceId("instance-" + instance).build();
			workers.add(QueueWorkers.builder(queue)
				.threads(2)
				.batchSize(20)
				.batchCompletions(true)
				.pollInterval(Duration.ofMillis(20))
				.subscribe(QUEUE, (message) -> {
					delays.add(System.currentTimeMillis() - Long.parseLong(message.payload()));
					started.incrementAndGet();
				})
				.build());
		}
		workers.forEach(QueueWorkers::start);
		dispatcher.start();
		JobScheduler observer = JobScheduler.create(pools.get(1));
		long deadline = System.nanoTime() + Duration.ofSeconds(seconds + lead / 1000 + 60).toNanos();
		while (started.get() < jobs && System.nanoTime() < deadline) {
			Thread.sleep(1000);
			backlog.add(observer.stats().dueBacklog());
		}
		dispatcher.stop();
		workers.forEach((instance) -> instance.stop(Duration.ofSeconds(30)));
		long[] sorted = delays.stream().mapToLong(Long::longValue).sorted().toArray();
		System.out.printf(Locale.ROOT, "started %d of %d jobs; start delay after due time: median %d ms, p99 %d ms, max %d ms; "
				+ "due backlog sampled each second: max %d%n", sorted.length, jobs, sorted[sorted.length / 2],
				sorted[(int) Math.ceil(sorted.length * 0.99) - 1], sorted[sorted.length - 1],
				backlog.stream().mapToLong(Long::longValue).max().orElse(0));
		JobScheduler.JobStats stats = observer.stats();
		System.out.printf("jobs: retried %d, failed %d, still scheduled %d; duplicates started: %d%n", stats.retrying(),
				stats.failed(), stats.scheduled(), Math.max(0, started.get() - jobs));
	}

	private static long databaseNowMillis(HikariDataSource pool) throws Exception {
		try (Connection connection = pool.getConnection();
				Statement statement = connection.createStatement();
				ResultSet row = statement.executeQuery("SELECT (EXTRACT(EPOCH FROM CURRENT_TIMESTAMP) * 1000)::bigint")) {
			row.next();
			return row.getLong(1);
		}
	}

	private static HikariDataSource pool(String url) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url);
		config.setUsername("postgres");
		config.setPassword("postgres");
		config.setMaximumPoolSize(8);
		return new HikariDataSource(config);
	}

}
