package dev.polling.benchmarks;

import com.github.kagkarlsson.scheduler.SchedulerClient;
import com.github.kagkarlsson.scheduler.task.TaskInstance;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.zaxxer.hikari.HikariDataSource;
import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.Schema;
import dev.polling.jdbc.TableNames;
import dev.polling.jdbc.queue.NewMessage;
import dev.polling.jdbc.queue.WorkQueue;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import javax.sql.DataSource;

/**
 * The work queue against db-scheduler across worker JVMs (issue 33, section 2): executions per second
 * with 1, 2 and 4 instances, each instance a JVM of its own ({@link QueueScalingWorker}), all on one
 * embedded PostgreSQL 17 with the durable settings of {@link BenchDatabases} ({@code fsync},
 * {@code synchronous_commit} and {@code full_page_writes} on, read back and printed).
 * <p>
 * The worker JVMs start once, with the same flags, and host either side one case at a time. A case:
 * the tables truncated, N messages (one-time tasks, all due now) enqueued by this JVM, a
 * {@code CHECKPOINT}, then the case's instances prepare (pool of 8 filled, workers or scheduler built,
 * not started) and answer; the clock starts with the common start signal ({@code GO} to each instance)
 * and stops when the instances have counted N executions and the database shows all N finished. Rate =
 * N / that time. JVM start, pool set-up and enqueueing are outside it. Each instance then reports the
 * index of every execution it ran; the run checks that each of the N ran exactly once.
 * <p>
 * Sides, by name: {@code one-commit-tx} our {@code QueueWorkers} with the library's own transactions
 * ({@code JdbcTransactions}: handler and completion in one transaction per message, finished messages
 * kept as {@code DONE}, the default); {@code one-commit-tx-delete} the same, a completion deleting the
 * message as db-scheduler deletes a finished execution; {@code one-commit} and {@code one-commit-delete}
 * without a transaction runner; {@code dbs(a,b)} db-scheduler 16.12.0, one-time tasks of one type,
 * {@code pollUsingLockAndFetch(a, b)}. Every instance: {@value QueueScalingWorker#THREADS} threads, a
 * HikariCP pool of {@value QueueScalingWorker#POOL}, 100 ms polling, claims of 10 (ours); the handlers
 * count the execution in memory, nothing else.
 * <p>
 * Rounds: a warm-up round (every side once on all instances, not counted), then per round each instance
 * count with each side, the order of the sides reversed every other round. Prints a line per case and a
 * table in db-scheduler's published form (instances, executions per second per side, median and range),
 * the ratio ours / db-scheduler per instance count, and a last line.
 * <p>
 * With {@code -Dbench.queue.roundtrips=true} (a diagnostic, not for the figures: a proxy on every JDBC call)
 * the instances count their round trips to the server ({@link CountingDataSource}), printed per case.
 * <p>
 * Run: {@code polling-benchmarks/run.sh QueueScalingBenchmark [messages] [rounds] [sides] [instance-counts] [warm-up-messages]}
 * (defaults 20000, 3, {@code one-commit-tx,one-commit-tx-delete,dbs(1.0,4.0)}, {@code 1,2,4}, messages / 4).
 */
public final class QueueScalingBenchmark {

	/** The flags of every worker JVM (both sides run in the same JVMs). */
	static final List<String> WORKER_FLAGS = List.of("-Xms256m", "-Xmx512m");

	/** {@code -Dbench.queue.roundtrips=true}: the workers count their round trips (a diagnostic; a proxy on every call). */
	private static final boolean ROUND_TRIPS = Boolean.getBoolean("bench.queue.roundtrips");

	private static final String DEFAULT_SIDES = "one-commit-tx,one-commit-tx-delete,dbs(1.0,4.0)";

	private QueueScalingBenchmark() {
	}

	/** One side of the comparison: ours in one configuration, or db-scheduler with one polling setting. */
	record Side(String name, boolean dbScheduler, double lowerLimit, double upperLimit, boolean transactions,
			boolean deleteWhenDone) {

		static Side parse(String name) {
			switch (name) {
				case "one-commit":
					return new Side(name, false, 0, 0, false, false);
				case "one-commit-delete":
					return new Side(name, false, 0, 0, false, true);
				case "one-commit-tx":
					return new Side(name, false, 0, 0, true, false);
				case "one-commit-tx-delete":
					return new Side(name, false, 0, 0, true, true);
				default:
					java.util.regex.Matcher dbs = java.util.regex.Pattern.compile("dbs\\(([0-9.]+),([0-9.]+)\\)").matcher(name);
					if (dbs.matches()) {
						return new Side(name, true, Double.parseDouble(dbs.group(1)), Double.parseDouble(dbs.group(2)), false, false);
					}
					throw new IllegalArgumentException("Unknown side '" + name + "': use one-commit, one-commit-delete, one-commit-tx, "
							+ "one-commit-tx-delete or dbs(lower,upper), e.g. dbs(1.0,4.0)");
			}
		}

	}

	/** What one case measured. */
	record Case(String side, int instances, int messages, long nanos, long[] perInstance, double commitsPerMessage,
			double clientMicros, double serverMicros, double roundTripsPerMessage, Tally tally) {

		double perSecond() {
			return this.messages / (this.nanos / 1e9);
		}

	}

	/**
	 * How often each of N messages ran, summed over the instances.
	 * @param missing indices that did not run
	 * @param duplicated indices that ran more than once
	 * @param total executions reported
	 */
	record Tally(int missing, int duplicated, long total) {

		boolean exactlyOnce() {
			return this.missing == 0 && this.duplicated == 0;
		}

		/** Sums the executions each instance reported (indices 0..n-1, an index once per execution). */
		static Tally of(int n, List<int[]> perInstance) {
			int[] runs = new int[n];
			long total = 0;
			for (int[] indices : perInstance) {
				for (int index : indices) {
					if (index < 0 || index >= n) {
						throw new IllegalStateException("an instance reported index " + index + " outside 0.." + (n - 1));
					}
					runs[index]++;
					total++;
				}
			}
			int missing = 0;
			int duplicated = 0;
			for (int r : runs) {
				if (r == 0) {
					missing++;
				}
				else if (r > 1) {
					duplicated++;
				}
			}
			return new Tally(missing, duplicated, total);
		}

		@Override
		public String toString() {
			return exactlyOnce() ? "exactly once" : "NOT exactly once: " + this.missing + " missing, " + this.duplicated + " ran more than once";
		}

	}

	/** Median of the values (mean of the middle two for an even count). */
	static double median(List<Double> values) {
		List<Double> sorted = new ArrayList<>(values);
		Collections.sort(sorted);
		int size = sorted.size();
		return (size % 2 == 1) ? sorted.get(size / 2) : (sorted.get(size / 2 - 1) + sorted.get(size / 2)) / 2;
	}

	/** A worker JVM and what it printed. */
	private static final class Worker implements AutoCloseable {

		private final Process process;

		private final OutputStream in;

		private final BlockingQueue<String> replies = new LinkedBlockingQueue<>();

		private final AtomicLong count = new AtomicLong();

		private final Path log;

		Worker(String java, int index) throws IOException {
			this.log = Files.createTempFile("queue-scaling-worker-" + index + "-", ".log");
			List<String> command = new ArrayList<>();
			command.add(java);
			command.addAll(WORKER_FLAGS);
			if (ROUND_TRIPS) {
				command.add("-Dbench.queue.roundtrips=true");
			}
			command.addAll(List.of("-cp", System.getProperty("java.class.path"), QueueScalingWorker.class.getName()));
			this.process = new ProcessBuilder(command).redirectError(this.log.toFile()).start();
			this.in = this.process.getOutputStream();
			BufferedReader out = new BufferedReader(new InputStreamReader(this.process.getInputStream(), StandardCharsets.UTF_8));
			Thread reader = new Thread(() -> {
				try {
					String line;
					while ((line = out.readLine()) != null) {
						if (line.startsWith("COUNT ")) {
							this.count.set(Long.parseLong(line.substring(6)));
						}
						else {
							this.replies.add(line);
						}
					}
				}
				catch (IOException ex) {
					// the worker ended
				}
				this.replies.add("EOF");
			}, "worker-" + index + "-out");
			reader.setDaemon(true);
			reader.start();
		}

		void send(String command) throws IOException {
			this.in.write((command + "\n").getBytes(StandardCharsets.UTF_8));
			this.in.flush();
		}

		String await(String prefix, Duration timeout) throws InterruptedException {
			String reply = this.replies.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
			if (reply == null || !reply.startsWith(prefix)) {
				throw new IllegalStateException("worker " + this.process.pid() + " answered " + reply + " instead of " + prefix
						+ "; its error output: " + this.log);
			}
			return reply;
		}

		@Override
		public void close() throws Exception {
			try {
				send("EXIT");
			}
			catch (IOException ex) {
				// already gone
			}
			if (!this.process.waitFor(30, TimeUnit.SECONDS)) {
				this.process.destroy();
			}
		}

	}

	public static void main(String[] args) throws Exception {
		int n = (args.length > 0) ? Integer.parseInt(args[0]) : 20_000;
		int rounds = (args.length > 1) ? Integer.parseInt(args[1]) : 3;
		List<Side> sides = new ArrayList<>();
		for (String name : ((args.length > 2) ? args[2] : DEFAULT_SIDES).split(",(?![^(]*\\))")) {
			sides.add(Side.parse(name));
		}
		List<Integer> counts = new ArrayList<>();
		for (String count : ((args.length > 3) ? args[3] : "1,2,4").split(",")) {
			counts.add(Integer.parseInt(count));
		}
		int warmUp = (args.length > 4) ? Integer.parseInt(args[4]) : Math.max(1000, n / 4);
		if (n < 1 || rounds < 1 || counts.stream().anyMatch((c) -> c < 1) || sides.stream().noneMatch(Side::dbScheduler)
				|| sides.stream().allMatch(Side::dbScheduler)) {
			throw new IllegalArgumentException("Arguments " + String.join(" ", args) + ": need messages >= 1, rounds >= 1, "
					+ "instance counts >= 1, and at least one of our sides and one dbs(a,b) side, e.g. 20000 3 "
					+ DEFAULT_SIDES + " 1,2,4");
		}
		int maxInstances = Collections.max(counts);
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		try (BenchDatabases.Postgres postgres = BenchDatabases.Postgres.start();
				HikariDataSource producer = BenchSql.pool(postgres.url(), 2)) {
			DataSource admin = postgres.admin();
			Schema.migrate(admin, Dialect.POSTGRESQL, TableNames.defaults());
			createDbSchedulerTable(admin);
			boolean profile = StatementProfile.available(admin);
			long postmaster = postmaster(admin);
			Run run = new Run(admin, producer, postgres.url(), postmaster, profile);
			List<Worker> workers = new ArrayList<>();
			try {
				for (int i = 0; i < maxInstances; i++) {
					workers.add(new Worker(java, i));
				}
				for (Worker worker : workers) {
					worker.await("STARTED", Duration.ofSeconds(60));
				}
				System.out.printf(Locale.ROOT, "Queue scaling: PostgreSQL %s (%s); java %s, %d cores, load average %s; "
						+ "worker JVMs %s, each one instance: %d threads, pool of %d, poll %d ms, claims of %d (ours); "
						+ "%d messages per case, %d rounds, warm-up %d messages; sides %s; instances %s; trivial handlers; server CPU of %s%s%n",
						postgres.description(), BenchDatabases.postgresSettings(admin), System.getProperty("java.version"),
						Runtime.getRuntime().availableProcessors(), loadAverage(), String.join(" ", WORKER_FLAGS),
						QueueScalingWorker.THREADS, QueueScalingWorker.POOL, QueueScalingWorker.POLL.toMillis(), QueueScalingWorker.BATCH,
						n, rounds, warmUp, sides.stream().map(Side::name).collect(Collectors.joining(", ")), counts,
						(postmaster >= 0) ? "postmaster " + postmaster + " and its children" : "every postgres process of the machine",
						profile ? "; server time per statement from pg_stat_statements" : "");
				int[] caseNumber = { 0 };
				for (Side side : sides) {
					Case warm = runCase(run, workers.subList(0, maxInstances), side, warmUp, ++caseNumber[0]);
					print("warm-up", warm);
				}
				List<Case> results = new ArrayList<>();
				for (int round = 1; round <= rounds; round++) {
					List<Side> order = new ArrayList<>(sides);
					if (round % 2 == 0) {
						Collections.reverse(order);
					}
					for (int instances : counts) {
						for (Side side : order) {
							Case result = runCase(run, workers.subList(0, instances), side, n, ++caseNumber[0]);
							print("round " + round, result);
							results.add(result);
						}
					}
				}
				report(results, sides, counts, rounds);
			}
			finally {
				for (Worker worker : workers) {
					worker.close();
				}
			}
		}
	}

	private static void print(String label, Case c) {
		System.out.printf(Locale.ROOT, "%-8s %d instance(s) %-20s %,7d in %6.2f s = %,6.0f per second; per instance %s; %s; "
				+ "%.2f commits per message;%s CPU per message %.0f µs clients + %.0f µs server; load %s%n", label, c.instances(),
				c.side(), c.messages(), c.nanos() / 1e9, c.perSecond(),
				java.util.Arrays.stream(c.perInstance()).mapToObj((v) -> String.format(Locale.ROOT, "%,d", v))
					.collect(Collectors.joining(" + ")),
				c.tally(), c.commitsPerMessage(),
				(c.roundTripsPerMessage() < 0) ? "" : String.format(Locale.ROOT, " %.2f round trips per message;", c.roundTripsPerMessage()),
				c.clientMicros(), c.serverMicros(), loadAverage());
	}

	/** The server's postmaster (the parent of a backend), to count the CPU of this server only; -1 if not local. */
	private static long postmaster(DataSource admin) {
		try (Connection connection = admin.getConnection(); Statement statement = connection.createStatement();
				ResultSet result = statement.executeQuery("SELECT pg_backend_pid()")) {
			result.next();
			return ProcessHandle.of(result.getLong(1)).flatMap(ProcessHandle::parent).map(ProcessHandle::pid).orElse(-1L);
		}
		catch (java.sql.SQLException ex) {
			return -1;
		}
	}

	/** What every case uses: the server, the producer's pool, and how to measure the server. */
	private record Run(DataSource admin, HikariDataSource producer, String url, long postmaster, boolean profile) {
	}

	private static Case runCase(Run run, List<Worker> instances, Side side, int n, int number) throws Exception {
		DataSource admin = run.admin();
		long postmaster = run.postmaster();
		boolean profile = run.profile();
		String name = "bench-" + number;
		BenchSql.execute(admin, "TRUNCATE polling_queue, polling_queue_key", "TRUNCATE scheduled_tasks");
		enqueue(run.producer(), side, name, n);
		BenchSql.execute(admin, "CHECKPOINT");
		long commitsBefore = QueueBenchmark.commits(admin);
		for (Worker worker : instances) {
			worker.count.set(0);
			worker.send("PREPARE " + run.url() + " " + side.name() + " " + name + " " + n);
		}
		for (Worker worker : instances) {
			worker.await("READY", Duration.ofSeconds(60));
		}
		if (profile) {
			StatementProfile.reset(admin);
		}
		long serverBefore = CpuClock.postgresNanos(postmaster);
		long start = System.nanoTime();
		for (Worker worker : instances) {
			worker.send("GO");
		}
		long deadline = start + Duration.ofSeconds(Math.max(120, n / 50)).toNanos();
		while (instances.stream().mapToLong((w) -> w.count.get()).sum() < n) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("case " + name + " (" + side.name() + ", " + instances.size() + " instances): "
						+ instances.stream().mapToLong((w) -> w.count.get()).sum() + " of " + n + " executed after "
						+ Duration.ofNanos(System.nanoTime() - start).toSeconds() + " s");
			}
			Thread.sleep(5);
		}
		// and every completion committed: N DONE rows (ours, rows kept) or none left
		if (side.dbScheduler()) {
			BenchSql.awaitCount(admin, "SELECT " + n + " - COUNT(*) FROM scheduled_tasks WHERE task_name = '" + name + "'", n);
		}
		else if (side.deleteWhenDone()) {
			BenchSql.awaitCount(admin, "SELECT " + n + " - COUNT(*) FROM polling_queue WHERE queue = '" + name + "'", n);
		}
		else {
			BenchSql.awaitCount(admin, "SELECT COUNT(*) FROM polling_queue WHERE queue = '" + name + "' AND state = 'DONE'", n);
		}
		long nanos = System.nanoTime() - start;
		long[] perInstance = new long[instances.size()];
		List<int[]> indices = new ArrayList<>();
		long clientNanos = 0;
		long roundTrips = 0;
		for (int i = 0; i < instances.size(); i++) {
			Path file = Files.createTempFile("queue-scaling-" + name + "-", ".txt");
			instances.get(i).send("STOP " + file);
			String[] result = instances.get(i).await("RESULT", Duration.ofSeconds(60)).split(" ");
			perInstance[i] = Long.parseLong(result[1]);
			clientNanos += Long.parseLong(result[2]);
			roundTrips += Long.parseLong(result[3]);
			try (java.util.stream.Stream<String> lines = Files.lines(file)) {
				indices.add(lines.mapToInt(Integer::parseInt).toArray());
			}
			Files.delete(file);
		}
		double serverMicros = (CpuClock.postgresNanos(postmaster) - serverBefore) / 1e3 / n;
		double commitsPerMessage = (QueueBenchmark.commits(admin) - commitsBefore) / (double) n;
		Tally tally = Tally.of(n, indices);
		if (profile) {
			StatementProfile.print(admin, n);
		}
		return new Case(side.name(), instances.size(), n, nanos, perInstance, commitsPerMessage, clientNanos / 1e3 / n, serverMicros,
				(roundTrips < 0) ? -1 : roundTrips / (double) n, tally);
	}

	private static void enqueue(HikariDataSource producer, Side side, String name, int n) {
		if (side.dbScheduler()) {
			OneTimeTask<Void> task = Tasks.oneTime(name).execute((instance, context) -> {
				throw new IllegalStateException("the producer does not execute");
			});
			SchedulerClient client = SchedulerClient.Builder.create(producer, task).build();
			Instant now = Instant.now();
			List<TaskInstance<?>> batch = new ArrayList<>();
			for (int i = 0; i < n; i++) {
				batch.add(task.instance(Integer.toString(i)));
				if (batch.size() == 1000 || i == n - 1) {
					client.scheduleBatch(batch, now);
					batch.clear();
				}
			}
		}
		else {
			WorkQueue queue = WorkQueue.builder(producer).instanceId("producer").build();
			List<NewMessage> batch = new ArrayList<>();
			for (int i = 0; i < n; i++) {
				batch.add(new NewMessage(null, Integer.toString(i)));
				if (batch.size() == 1000 || i == n - 1) {
					queue.enqueueAll(name, batch);
					batch.clear();
				}
			}
		}
	}

	private static void report(List<Case> results, List<Side> sides, List<Integer> counts, int rounds) {
		Map<String, Map<Integer, List<Double>>> rates = new LinkedHashMap<>();
		for (Case c : results) {
			rates.computeIfAbsent(c.side(), (k) -> new LinkedHashMap<>()).computeIfAbsent(c.instances(), (k) -> new ArrayList<>())
				.add(c.perSecond());
		}
		System.out.println();
		System.out.println("Executions per second (median of " + rounds + " round(s), min-max), "
				+ QueueScalingWorker.THREADS + " threads per instance:");
		StringBuilder header = new StringBuilder(String.format(Locale.ROOT, "%-10s", "instances"));
		for (Side side : sides) {
			header.append(String.format(Locale.ROOT, " %28s", side.name()));
		}
		System.out.println(header);
		for (int instances : counts) {
			StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "%-10d", instances));
			for (Side side : sides) {
				List<Double> r = rates.get(side.name()).get(instances);
				row.append(String.format(Locale.ROOT, " %28s", String.format(Locale.ROOT, "%,.0f (%,.0f-%,.0f)", median(r),
						Collections.min(r), Collections.max(r))));
			}
			System.out.println(row);
		}
		System.out.println();
		System.out.println("CPU per message, median over the rounds: clients (all instances) + server, and commits per message:");
		System.out.println(header);
		for (int instances : counts) {
			StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "%-10d", instances));
			for (Side side : sides) {
				List<Case> cases = results.stream().filter((c) -> c.side().equals(side.name()) && c.instances() == instances).toList();
				row.append(String.format(Locale.ROOT, " %28s", String.format(Locale.ROOT, "%.0f + %.0f µs, %.2f",
						median(cases.stream().map(Case::clientMicros).toList()), median(cases.stream().map(Case::serverMicros).toList()),
						median(cases.stream().map(Case::commitsPerMessage).toList()))));
			}
			System.out.println(row);
		}
		System.out.println();
		System.out.println("Ours / db-scheduler's best median per instance count (in brackets: per round, against the same round's best db-scheduler side):");
		StringBuilder last = new StringBuilder("queue-scaling:");
		for (Side ours : sides) {
			if (ours.dbScheduler()) {
				continue;
			}
			StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "%-22s", ours.name()));
			last.append(' ').append(ours.name());
			for (int instances : counts) {
				double best = sides.stream().filter(Side::dbScheduler)
					.mapToDouble((s) -> median(rates.get(s.name()).get(instances))).max().orElseThrow();
				double ratio = median(rates.get(ours.name()).get(instances)) / best;
				List<String> perRound = new ArrayList<>();
				List<Double> oursRates = rates.get(ours.name()).get(instances);
				for (int round = 0; round < oursRates.size(); round++) {
					int r = round;
					double roundBest = sides.stream().filter(Side::dbScheduler)
						.mapToDouble((s) -> rates.get(s.name()).get(instances).get(r)).max().orElseThrow();
					perRound.add(String.format(Locale.ROOT, "%.2f", oursRates.get(round) / roundBest));
				}
				row.append(String.format(Locale.ROOT, "  %d: %.2f (%s)", instances, ratio, String.join(", ", perRound)));
				last.append(String.format(Locale.ROOT, " %dx %.2f", instances, ratio));
			}
			System.out.println(row);
			last.append(';');
		}
		long cases = results.size();
		long exact = results.stream().filter((c) -> c.tally().exactlyOnce()).count();
		last.append(String.format(Locale.ROOT, " (ours / db-scheduler, executions per second, median of %d round(s)); every message exactly once in %d of %d cases; load average %s",
				rounds, exact, cases, loadAverage()));
		System.out.println();
		System.out.println(last);
	}

	private static String loadAverage() {
		try {
			String[] fields = Files.readString(Path.of("/proc/loadavg")).split(" ");
			return fields[0] + " " + fields[1] + " " + fields[2];
		}
		catch (IOException | RuntimeException ex) {
			return String.format(Locale.ROOT, "%.2f",
					java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
		}
	}

	/** db-scheduler's table, written from its documented column list for PostgreSQL (as {@link QueueBenchmark}). */
	private static void createDbSchedulerTable(DataSource dataSource) throws Exception {
		BenchSql.execute(dataSource, "CREATE TABLE IF NOT EXISTS scheduled_tasks (task_name TEXT NOT NULL, "
				+ "task_instance TEXT NOT NULL, task_data BYTEA, execution_time TIMESTAMP WITH TIME ZONE NOT NULL, "
				+ "picked BOOLEAN NOT NULL, picked_by TEXT, last_success TIMESTAMP WITH TIME ZONE, "
				+ "last_failure TIMESTAMP WITH TIME ZONE, consecutive_failures INT, "
				+ "last_heartbeat TIMESTAMP WITH TIME ZONE, version BIGINT NOT NULL, priority SMALLINT, "
				+ "PRIMARY KEY (task_name, task_instance))",
				"CREATE INDEX IF NOT EXISTS execution_time_idx ON scheduled_tasks (execution_time)",
				"CREATE INDEX IF NOT EXISTS last_heartbeat_idx ON scheduled_tasks (last_heartbeat)",
				"CREATE INDEX IF NOT EXISTS priority_execution_time_idx ON scheduled_tasks (priority DESC, execution_time ASC)");
	}

}
