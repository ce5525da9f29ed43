package dev.polling.benchmarks;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.zaxxer.hikari.HikariDataSource;
import dev.polling.jdbc.JdbcTransactions;
import dev.polling.jdbc.queue.QueueSubscription;
import dev.polling.jdbc.queue.QueueWorkers;
import dev.polling.jdbc.queue.WorkQueue;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * One worker instance of {@link QueueScalingBenchmark}: a JVM of its own, driven by one-line commands on
 * standard input, answering on standard output. It hosts either side, one case at a time, so that its
 * JIT is warm for both after the warm-up round:
 * <ul>
 * <li>{@code PREPARE <url> <side> <name> <n>}: a pool of {@value #POOL} connections (filled before
 * answering), and our {@link QueueWorkers} subscribed to queue {@code name}, or a db-scheduler
 * {@link Scheduler} for one-time task {@code name}, built but not started; answers {@code READY};</li>
 * <li>{@code GO}: starts them (the common start signal); from then on prints {@code COUNT k} (executions
 * in this JVM) every 10 ms while it changes;</li>
 * <li>{@code STOP <file>}: stops them, closes the pool, writes the index of every execution (one a line,
 * an index twice if it ran twice here) to {@code file}, answers {@code RESULT <executions> <cpu-nanos> <round-trips>}
 * (this JVM's CPU time from {@code GO} to the end of the stop; its round trips to the server, counted by a
 * {@link CountingDataSource} with {@code -Dbench.queue.roundtrips=true}, else -1);</li>
 * <li>{@code EXIT}.</li>
 * </ul>
 * A message's (task's) index is its payload (its instance id), {@code 0..n-1}; the handlers count it in
 * memory and do nothing else, on both sides the same.
 */
public final class QueueScalingWorker {

	/** Worker threads per instance, both sides. */
	static final int THREADS = 4;

	/** Connections per instance's pool, both sides. */
	static final int POOL = 8;

	/** Polling interval, both sides. */
	static final Duration POLL = Duration.ofMillis(100);

	/** Messages per claim of our workers (the starter's default). */
	static final int BATCH = 10;

	private final PrintStream out;

	private HikariDataSource pool;

	/** With {@code -Dbench.queue.roundtrips=true}: the pool seen through a {@link CountingDataSource}. */
	private CountingDataSource counting;

	private QueueWorkers workers;

	private Scheduler scheduler;

	private AtomicIntegerArray hits;

	private final LongAdder executed = new LongAdder();

	private volatile boolean reporting;

	private Thread reporter;

	private long cpuAtGo;

	private QueueScalingWorker(PrintStream out) {
		this.out = out;
	}

	public static void main(String[] args) throws Exception {
		PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, StandardCharsets.UTF_8);
		QueueScalingWorker worker = new QueueScalingWorker(out);
		BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		out.println("STARTED");
		String line;
		while ((line = in.readLine()) != null) {
			String[] command = line.split(" ");
			switch (command[0]) {
				case "PREPARE" -> worker.prepare(command[1], command[2], command[3], Integer.parseInt(command[4]));
				case "GO" -> worker.go();
				case "STOP" -> worker.stop(Path.of(command[1]));
				case "EXIT" -> {
					return;
				}
				default -> throw new IllegalArgumentException("Unknown command '" + line + "'");
			}
		}
	}

	private void prepare(String url, String side, String name, int n) throws Exception {
		this.hits = new AtomicIntegerArray(n);
		this.executed.reset();
		this.pool = BenchSql.pool(url, POOL);
		// every connection open before the signal, on both sides: no connection set-up in the timed part
		long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
		while (this.pool.getHikariPoolMXBean().getTotalConnections() < POOL && System.nanoTime() < deadline) {
			Thread.sleep(10);
		}
		QueueScalingBenchmark.Side parsed = QueueScalingBenchmark.Side.parse(side);
		javax.sql.DataSource dataSource = this.pool;
		this.counting = null;
		if (Boolean.getBoolean("bench.queue.roundtrips")) {
			this.counting = new CountingDataSource(this.pool);
			dataSource = this.counting;
		}
		if (parsed.dbScheduler()) {
			OneTimeTask<Void> task = Tasks.oneTime(name).execute((instance, context) -> executed(instance.getId()));
			this.scheduler = Scheduler.create(dataSource, task)
				.threads(THREADS)
				.pollingInterval(POLL)
				.pollUsingLockAndFetch(parsed.lowerLimit(), parsed.upperLimit())
				.build();
		}
		else {
			JdbcTransactions transactions = JdbcTransactions.of(dataSource);
			WorkQueue.Builder queue = WorkQueue.builder(dataSource)
				.instanceId("instance-" + ProcessHandle.current().pid())
				.deleteWhenDone(parsed.deleteWhenDone());
			if (parsed.transactions()) {
				queue.connections(transactions);
			}
			QueueWorkers.Builder workers = QueueWorkers.builder(queue.build())
				.threads(THREADS)
				.batchSize(BATCH)
				.pollInterval(POLL)
				.subscribe(QueueSubscription.of(name, (message) -> executed(message.payload())));
			if (parsed.transactions()) {
				workers.transactions(transactions);
			}
			this.workers = workers.build();
		}
		this.out.println("READY");
	}

	private void executed(String index) {
		this.hits.incrementAndGet(Integer.parseInt(index));
		this.executed.increment();
	}

	private void go() {
		this.cpuAtGo = CpuClock.jvmNanos();
		if (this.counting != null) {
			this.counting.reset();
		}
		this.reporting = true;
		this.reporter = new Thread(() -> {
			long last = -1;
			while (this.reporting) {
				long now = this.executed.sum();
				if (now != last) {
					this.out.println("COUNT " + now);
					last = now;
				}
				try {
					Thread.sleep(10);
				}
				catch (InterruptedException ex) {
					return;
				}
			}
		}, "count-reporter");
		this.reporter.setDaemon(true);
		if (this.scheduler != null) {
			this.scheduler.start();
		}
		else {
			this.workers.start();
		}
		this.reporter.start();
	}

	private void stop(Path file) throws Exception {
		if (this.scheduler != null) {
			this.scheduler.stop();
			this.scheduler = null;
		}
		if (this.workers != null) {
			this.workers.stop(Duration.ofSeconds(10));
			this.workers = null;
		}
		this.reporting = false;
		if (this.reporter != null) {
			this.reporter.join();
			this.reporter = null;
		}
		this.pool.close();
		long cpu = CpuClock.jvmNanos() - this.cpuAtGo;
		try (PrintWriter writer = new PrintWriter(Files.newBufferedWriter(file, StandardCharsets.UTF_8))) {
			for (int i = 0; i < this.hits.length(); i++) {
				for (int times = this.hits.get(i); times > 0; times--) {
					writer.println(i);
				}
			}
		}
		long roundTrips = (this.counting != null) ? this.counting.roundTrips.sum() : -1;
		this.out.println("RESULT " + this.executed.sum() + " " + cpu + " " + roundTrips);
	}

}
