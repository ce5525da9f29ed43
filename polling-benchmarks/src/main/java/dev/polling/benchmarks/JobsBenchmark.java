package dev.polling.benchmarks;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.Schema;
import dev.polling.jdbc.TableNames;
import dev.polling.jdbc.jobs.JobScheduler;
import dev.polling.jdbc.queue.QueueMessage;
import dev.polling.jdbc.queue.WorkQueue;

/**
 * Scheduled jobs under load on embedded PostgreSQL ({@code fsync} and {@code synchronous_commit} on,
 * printed as read back): {@code jobs} jobs due evenly over
 * {@code seconds}, three instances (a connection pool each) with workers claiming from the work
 * queue, one of them dispatching due jobs every 100 ms (the holder of the jobs cluster). The start
 * delay of a job is the time from its due time to the moment a worker starts it; the harness prints
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
		AtomicBoolean stop = new AtomicBoolean();
		ExecutorService threads = Executors.newFixedThreadPool(7);
		List<Long> backlog = new ArrayList<>();
		// the dispatcher: instance 0, the holder of the jobs cluster
		threads.submit(() -> {
			JobScheduler scheduler = JobScheduler.create(pools.get(0));
			WorkQueue queue = WorkQueue.builder(pools.get(0)).instanceId("instance-0").build();
			while (!stop.get()) {
				scheduler.dispatchDue(queue, 5_000);
				sleep(100);
			}
			return null;
		});
		// workers: two per instance
		for (int instance = 0; instance < 3; instance++) {
			WorkQueue queue = WorkQueue.builder(pools.get(instance)).instanceId("instance-" + instance).build();
			for (int w = 0; w < 2; w++) {
				threads.submit(() -> {
					while (!stop.get()) {
						List<QueueMessage> claimed = queue.claim(QUEUE, 20);
						for (QueueMessage message : claimed) {
							delays.add(System.currentTimeMillis() - Long.parseLong(message.payload()));
							started.incrementAndGet();
						}
						if (!claimed.isEmpty()) {
							queue.completeAll(claimed);
						}
						else {
							sleep(20);
						}
					}
					return null;
				});
			}
		}
		JobScheduler observer = JobScheduler.create(pools.get(1));
		long deadline = System.nanoTime() + Duration.ofSeconds(seconds + lead / 1000 + 60).toNanos();
		while (started.get() < jobs && System.nanoTime() < deadline) {
			Thread.sleep(1000);
			backlog.add(observer.stats().dueBacklog());
		}
		stop.set(true);
		threads.shutdown();
		threads.awaitTermination(30, TimeUnit.SECONDS);
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

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static HikariDataSource pool(String url) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url);
		config.setUsername("postgres");
		config.setPassword("postgres");
		config.setMaximumPoolSize(4);
		return new HikariDataSource(config);
	}

}
