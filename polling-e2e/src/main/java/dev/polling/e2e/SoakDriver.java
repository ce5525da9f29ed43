package dev.polling.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import dev.polling.e2e.DemoDriver.Instance;
import dev.polling.e2e.instance.InstanceAdditions;
import dev.polling.jdbc.delivery.DeliveryState;
import dev.polling.jdbc.jobs.JobState;
import dev.polling.jdbc.queue.MessageState;

/**
 * The soak behind {@code ./soak.sh} (issue 33 §3; not part of the build): the demo's mail server and
 * three instances of the sample app in JVMs of their own ({@link DemoDriver}), with the twenty tick
 * clusters of the chaos profile decided together every second ({@code TICK_01..TICK_20},
 * {@link ChaosDriver#addTickClusters}), mails at a steady rate for the whole run (each becomes a
 * work-queue message, an order, a confirmation sent through the delivery guard and a follow-up job),
 * and one instance restarted every few minutes (SIGTERM, wait until it is gone, start, wait until its
 * health answers; round-robin).
 *
 * <p>Every minute, per instance: the heap after a full collection forced with {@code jcmd GC.run}
 * (then {@code GC.heap_info}: the used KiB of both generations; and the metaspace), the live Java
 * threads ({@code jvm_threads_live_threads} of {@code /actuator/prometheus}), the open file
 * descriptors ({@code /proc/<pid>/fd}), the JMX connections as a client (its established TCP
 * connections to the instances' JMX ports, {@code /proc/<pid>/net/tcp}) and as a server (the
 * connector server's connection ids, the instance jar's gauge {@value InstanceAdditions#JMX_SERVER_CONNECTIONS}),
 * and its database connections (established TCP connections to the H2 server this driver runs);
 * once: the sessions at the H2 server and the rows per state of the queue, delivery and job tables,
 * and the inbox's rows. The finished rows are purged after {@value #RETENTION} (every
 * {@value #PURGE_INTERVAL}), the inbox keys after {@value #INBOX_RETENTION}: a long-running system
 * keeps them bounded so, and only so can their series be flat.
 *
 * <p>At the end: every mail was processed exactly once (order, confirmation, follow-up check;
 * {@link DemoReport}), and no one-second period of a tick cluster had cycles of two instances
 * ({@code tick_cycles.tick_at}). The verdict per goal, and per series whether it stayed within ±5 %
 * from minute 10 ({@link SoakSeries}); the tables also go to {@code soak-work/soak-report.md}.
 *
 * <p>Arguments: {@code [minutes] [restart-every-minutes] [mails-per-second]} (defaults 60, 10, 2:
 * 7,200 mails an hour, the chaos run's count, whose confirmations the mail server's 128 MB hold).
 * Mails go out for one minute beyond the last sample (7,320 in 61 minutes by default), so that the
 * last sample too is taken under traffic.
 * The last line is {@code soak: OK ...} (exit code 0) when every goal is met, else
 * {@code soak: MISSED ...} naming each missed goal and by how much (exit code 1).
 */
public final class SoakDriver {

	static final String RETENTION = "5m";

	static final String PURGE_INTERVAL = "10s";

	static final String INBOX_RETENTION = "10m";

	/** After the last sample: the minute of sending that is left, then the processing. */
	private static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(210);

	private static final Duration RESTART_TIMEOUT = Duration.ofSeconds(150);

	private static final long STOP_GRACE_MILLIS = 30_000;

	private final DemoDriver demo;

	private final Settings settings;

	private final SoakSeries series = new SoakSeries();

	private final Map<String, String> columns = new LinkedHashMap<>();

	private final List<String> restarts = new ArrayList<>();

	private final List<String> tickLines = new ArrayList<>();

	private final List<Double> loads = new ArrayList<>();

	private final String jcmd;

	private Set<Integer> databasePorts = Set.of();

	private String note = "";

	private int nextRestart;

	private long twoCyclePeriods = -1;

	private String uptimeStart = "";

	private String uptimeEnd = "";

	private final List<String> probeFailures = new ArrayList<>();

	private @Nullable SoakDiagnosis diagnosis;

	SoakDriver(DemoDriver demo, Settings settings) {
		this.demo = demo;
		this.settings = settings;
		Path java = Path.of(demo.java);
		Path sibling = (java.getParent() != null) ? java.getParent().resolve("jcmd") : Path.of("jcmd");
		this.jcmd = Files.isExecutable(sibling) ? sibling.toString() : "jcmd";
	}

	/**
	 * The run's arguments.
	 * @param minutes how long the traffic runs and the samples are taken
	 * @param restartEvery minutes between two restarts
	 * @param mailsPerSecond the steady rate of mails
	 * @param diagnose whether every minute's sample ends with a further attach per instance (class
	 * histogram, thread dump: {@link SoakDiagnosis}); off by default, since its full collection and
	 * safepoint are pauses the peers see
	 */
	record Settings(int minutes, int restartEvery, double mailsPerSecond, boolean diagnose) {

		Settings(int minutes, int restartEvery, double mailsPerSecond) {
			this(minutes, restartEvery, mailsPerSecond, false);
		}

		/**
		 * From {@code [minutes] [restart-every-minutes] [mails-per-second] [diagnose]}.
		 * @throws IllegalArgumentException naming the argument, its value and what it takes
		 */
		static Settings parse(String[] args) {
			int minutes = whole(args, 0, "minutes", 60, 1, 24 * 60);
			int restartEvery = whole(args, 1, "restart-every-minutes", 10, 1, 24 * 60);
			double rate;
			String value = (args.length > 2) ? args[2] : "2";
			try {
				rate = Double.parseDouble(value);
			}
			catch (NumberFormatException ex) {
				rate = Double.NaN;
			}
			if (!(rate >= 0.1 && rate <= 50)) {
				throw new IllegalArgumentException("mails-per-second=" + value + ": give a number from 0.1 to 50, e.g. ./soak.sh 60 10 3");
			}
			if (args.length > 3 && !args[3].equals("diagnose")) {
				throw new IllegalArgumentException("fourth argument=" + args[3]
						+ ": only \"diagnose\" is known there (a class histogram and a thread dump per instance every minute), e.g. ./soak.sh 20 10 2 diagnose");
			}
			if (args.length > 4) {
				throw new IllegalArgumentException("arguments=" + String.join(" ", args)
						+ ": at most four are known: [minutes] [restart-every-minutes] [mails-per-second] [diagnose]");
			}
			return new Settings(minutes, restartEvery, rate, args.length > 3);
		}

		private static int whole(String[] args, int index, String name, int fallback, int min, int max) {
			if (args.length <= index) {
				return fallback;
			}
			try {
				int value = Integer.parseInt(args[index].strip());
				if (value >= min && value <= max) {
					return value;
				}
			}
			catch (NumberFormatException ex) {
				// said below
			}
			throw new IllegalArgumentException(name + "=" + args[index] + ": give a whole number from " + min + " to " + max
					+ ", e.g. ./soak.sh 60 10 3 (minutes, restart every 10 minutes, 3 mails per second)");
		}

		/** How long mails are sent: one minute beyond the last sample, so that it is taken under traffic too. */
		Duration sending() {
			return Duration.ofMinutes(this.minutes + 1L);
		}

		int mails() {
			return (int) Math.round(this.mailsPerSecond * sending().toSeconds());
		}

	}

	public static void main(String[] args) {
		Settings settings;
		try {
			settings = Settings.parse(args);
		}
		catch (IllegalArgumentException ex) {
			System.err.println("soak: " + ex.getMessage());
			System.exit(2);
			return;
		}
		DemoDriver.Jars jars = DemoDriver.jarsOrExit("soak");
		String java = ProcessHandle.current().info().command().orElse("java");
		DemoDriver demo = new DemoDriver(settings.mails(), settings.sending(),
				Path.of(System.getProperty("demo.work", "soak-work")), java, jars);
		ChaosDriver.addTickClusters(demo);
		demo.instanceArguments.addAll(List.of("--e2e.ticks.period=1s", "--polling.jdbc.queue.retention.period=" + RETENTION,
				"--polling.jdbc.queue.retention.purge-interval=" + PURGE_INTERVAL, "--polling.jdbc.delivery.retention.period=" + RETENTION,
				"--polling.jdbc.delivery.retention.purge-interval=" + PURGE_INTERVAL, "--polling.jdbc.jobs.retention.period=" + RETENTION,
				"--polling.jdbc.jobs.retention.purge-interval=" + PURGE_INTERVAL, "--polling.jdbc.inbox.retention.period=" + INBOX_RETENTION,
				"--polling.jdbc.inbox.retention.purge-interval=" + PURGE_INTERVAL));
		SoakDriver soak = new SoakDriver(demo, settings);
		Runtime.getRuntime().addShutdownHook(new Thread(demo::stopAll, "soak-shutdown"));
		String failure;
		try {
			failure = soak.run();
		}
		catch (Exception ex) {
			failure = DemoDriver.describe(ex);
		}
		DemoReport report = demo.report(failure);
		soak.uptimeEnd = uptime();
		demo.stopAll();
		List<String> lines = soak.summary(report);
		String last = soak.lastLine(report);
		System.out.println();
		System.out.println("soak: summary");
		lines.forEach(System.out::println);
		System.out.println(last);
		try {
			List<String> file = new ArrayList<>(lines);
			file.add("");
			file.add(last);
			Files.write(demo.work.resolve("soak-report.md"), file, StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			System.out.println("soak: could not write " + demo.work.resolve("soak-report.md") + ": " + ex.getMessage());
		}
		System.out.flush();
		System.exit(last.startsWith("soak: OK") ? 0 : 1);
	}

	@Nullable String run() throws Exception {
		this.demo.prepareWorkDirectory();
		Path commands = this.demo.work.resolve("jcmd-heap-after-gc.txt");
		Files.writeString(commands, "GC.run\nGC.heap_info\n", StandardCharsets.UTF_8);
		this.uptimeStart = uptime();
		this.demo.say("soak: %d minutes, %d mails (%.1f per second), one instance restarted every %d minutes; machine: %s",
				this.settings.minutes(), this.demo.mailCount(), this.settings.mailsPerSecond(), this.settings.restartEvery(),
				this.uptimeStart);
		this.demo.startAll();
		// the H2 server this driver runs for the instances (AUTO_SERVER): its listening ports
		this.databasePorts = ProcessProbe.sockets(ProcessHandle.current().pid(), ProcessProbe.LISTEN)
			.stream()
			.map(ProcessProbe.TcpSocket::localPort)
			.collect(Collectors.toCollection(TreeSet::new));
		this.demo.say("database server ports (this driver's): %s", this.databasePorts);

		DemoDriver.Sender sender = this.demo.new Sender();
		Thread sending = new Thread(sender, "soak-sender");
		sending.setDaemon(true);
		sending.start();
		long start = System.nanoTime();
		try (SoakDiagnosis diagnosis = new SoakDiagnosis(this.demo.work, this.jcmd, this.demo.instances, start,
				this.settings.diagnose())) {
			this.diagnosis = diagnosis;
			diagnosis.start();
			String failure = sampleEveryMinute(sender, start, commands);
			if (failure != null) {
				return failure;
			}
		}
		finally {
			this.diagnosis = null;
		}
		long deadline = System.nanoTime() + DRAIN_TIMEOUT.toNanos();
		while (!sender.done || this.demo.processedCount() < this.demo.mailCount()) {
			if (System.nanoTime() > deadline) {
				return "gave up waiting " + DRAIN_TIMEOUT.toSeconds() + " s for the mails to be sent and processed (" + sender.sent.get()
						+ " sent, " + this.demo.processedCount() + " of " + this.demo.mailCount() + " processed)";
			}
			Thread.sleep(1000);
		}
		this.demo.say("all %d mails processed", this.demo.mailCount());
		String failure = this.demo.awaitConfirmationsAndFollowUps(() -> this.demo.say("processed %d", this.demo.processedCount()));
		this.demo.awaitMailboxesEmpty();
		checkTicks();
		return failure;
	}

	/** The samples, one a minute, and the restarts between them; why the run cannot go on, or null. */
	private @Nullable String sampleEveryMinute(DemoDriver.Sender sender, long start, Path commands) throws Exception {
		for (int minute = 0; minute <= this.settings.minutes(); minute++) {
			long due = start + TimeUnit.MINUTES.toNanos(minute);
			while (System.nanoTime() < due) {
				String failure = (sender.failure != null) ? "sending mail failed: " + DemoDriver.describe(sender.failure) : ended();
				if (failure != null) {
					return failure;
				}
				Thread.sleep(Math.max(1, Math.min(1000, (due - System.nanoTime()) / 1_000_000)));
			}
			sample(minute, commands, sender.sent.get());
			if (minute > 0 && minute % this.settings.restartEvery() == 0 && minute < this.settings.minutes()) {
				String failure = restart(minute);
				if (failure != null) {
					return failure;
				}
			}
		}
		return null;
	}

	/** Why the run cannot go on: an instance that ended on its own. */
	private @Nullable String ended() {
		for (Instance instance : this.demo.instances) {
			if (!instance.process().isAlive()) {
				return instance.id() + " ended unexpectedly; see " + instance.process().log();
			}
		}
		return null;
	}

	/** SIGTERM to the next instance in turn, its end, its start, its health. */
	private @Nullable String restart(int minute) throws Exception {
		Instance instance = this.demo.instances.get(this.nextRestart++ % this.demo.instances.size());
		long oldPid = instance.process().pid();
		long begin = System.nanoTime();
		instance.process().stop(STOP_GRACE_MILLIS);
		double stopped = (System.nanoTime() - begin) / 1e9;
		instance.process().start();
		long started = System.nanoTime();
		while (!this.demo.healthy(instance)) {
			if (!instance.process().isAlive()) {
				return instance.id() + " ended during its restart; see " + instance.process().log();
			}
			if (System.nanoTime() - started > RESTART_TIMEOUT.toNanos()) {
				return instance.id() + " not up within " + RESTART_TIMEOUT.toSeconds() + " s after its restart";
			}
			Thread.sleep(250);
		}
		String line = String.format(Locale.ROOT, "%s restarted after minute %d: stopped %.1f s after the SIGTERM%s, up %.1f s after its start (pid %d -> %d)",
				instance.id(), minute, stopped, (stopped * 1000 >= STOP_GRACE_MILLIS) ? " (SIGKILL after the grace period)" : "",
				(System.nanoTime() - started) / 1e9, oldPid, instance.process().pid());
		this.restarts.add(line);
		this.note = instance.id() + " restarted";
		this.demo.say("%s", line);
		return null;
	}

	// ---------------------------------------------------------------- sampling

	private void sample(int minute, Path commands, int sent) {
		Map<String, Double> values = new LinkedHashMap<>();
		Set<Integer> jmxPorts = this.demo.instances.stream().map(Instance::jmxPort).collect(Collectors.toSet());
		for (Instance instance : this.demo.instances) {
			String id = instance.id();
			String tag = "i" + id.substring(id.lastIndexOf('-') + 1);
			long pid = instance.process().pid();
			if (!instance.process().isAlive()) {
				continue;
			}
			// the forced collection first: its attach listener (a thread, a socket) is there from minute 0 on
			try {
				ProcessProbe.Heap heap = ProcessProbe.heapAfterGc(this.jcmd, pid, commands);
				put(values, id + " heap after GC (KiB)", tag + " heap", heap.heapKiB());
				put(values, id + " metaspace (KiB)", tag + " meta", heap.metaspaceKiB());
			}
			catch (IOException ex) {
				probeFailure(minute, id, "jcmd: " + ex.getMessage());
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
			Optional<String> page = this.demo.get(instance, "/actuator/prometheus");
			OptionalDouble threads = page.map((p) -> ProcessProbe.prometheus(p, "jvm_threads_live_threads")).orElse(OptionalDouble.empty());
			OptionalDouble jmxServer = page.map((p) -> ProcessProbe.prometheus(p, "e2e_jmx_server_connections")).orElse(OptionalDouble.empty());
			if (threads.isPresent()) {
				put(values, id + " live threads", tag + " thr", threads.getAsDouble());
			}
			else {
				probeFailure(minute, id, "no jvm_threads_live_threads at /actuator/prometheus");
			}
			int fds = ProcessProbe.fileDescriptors(pid);
			if (fds >= 0) {
				put(values, id + " open file descriptors", tag + " fd", fds);
			}
			try {
				put(values, id + " JMX client connections (TCP to the JMX ports)", tag + " jmxC", ProcessProbe.connectionsTo(pid, jmxPorts));
			}
			catch (IOException ex) {
				probeFailure(minute, id, "/proc net: " + ex.getMessage());
			}
			if (jmxServer.isPresent()) {
				put(values, id + " JMX server connections (connection ids)", tag + " jmxS", jmxServer.getAsDouble());
			}
			else {
				probeFailure(minute, id, "no e2e_jmx_server_connections at /actuator/prometheus");
			}
			try {
				put(values, id + " database connections (TCP to the H2 server)", tag + " db", ProcessProbe.connectionsTo(pid, this.databasePorts));
			}
			catch (IOException ex) {
				probeFailure(minute, id, "/proc net: " + ex.getMessage());
			}
			// last, so that none of the series above sees its attach: what the scatter is made of
			SoakDiagnosis diagnosis = this.diagnosis;
			if (diagnosis != null) {
				try {
					diagnosis.minute(minute, instance, this.settings.diagnose());
				}
				catch (IOException ex) {
					probeFailure(minute, id, "diagnosis: " + ex.getMessage());
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return;
				}
			}
		}
		databaseSeries(values);
		double load = DemoDriver.loadAverage();
		this.loads.add(load);
		String rowNote = String.format(Locale.ROOT, "load %.2f%s", load, this.note.isEmpty() ? "" : "; " + this.note);
		this.note = "";
		this.series.add(minute, rowNote, values);
		StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "minute %d: sent %d processed %d |", minute, sent,
				this.demo.processedCount()));
		values.forEach((name, value) -> line.append(' ').append(this.columns.get(name)).append('=').append(SoakSeries.format(value)));
		line.append(" | ").append(rowNote).append(" | mailbox holders ").append(this.demo.holders());
		this.demo.say("%s", line);
	}

	private void put(Map<String, Double> values, String name, String column, double value) {
		this.columns.putIfAbsent(name, column);
		values.put(name, value);
	}

	private void probeFailure(int minute, String id, String what) {
		String line = "minute " + minute + ", " + id + ": " + what;
		this.probeFailures.add(line);
		this.demo.say("probe: %s", line);
	}

	/** Sessions at the H2 server; rows per state of the queue, delivery and job tables (every state, 0 when none); inbox rows. */
	private void databaseSeries(Map<String, Double> values) {
		Connection connection = this.demo.database;
		if (connection == null) {
			return;
		}
		try (Statement statement = connection.createStatement()) {
			put(values, "H2 server sessions", "h2 sessions", count(statement, "SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS"));
			states(statement, values, "polling_queue", "queue", MessageState.values());
			states(statement, values, "polling_delivery", "delivery", DeliveryState.values());
			states(statement, values, "polling_job", "job", JobState.values());
			put(values, "inbox rows", "inbox", count(statement, "SELECT COUNT(*) FROM polling_inbox"));
		}
		catch (SQLException ex) {
			this.demo.say("probe: database: %s", ex.getMessage());
		}
	}

	private void states(Statement statement, Map<String, Double> values, String table, String label, Enum<?>[] states) throws SQLException {
		Map<String, Integer> counts = new TreeMap<>();
		try (ResultSet result = statement.executeQuery("SELECT state, COUNT(*) FROM " + table + " GROUP BY state")) {
			while (result.next()) {
				counts.put(result.getString(1), result.getInt(2));
			}
		}
		for (Enum<?> state : states) {
			put(values, label + " rows " + state.name(), label + " " + state.name(), counts.getOrDefault(state.name(), 0));
			counts.remove(state.name());
		}
		// a state the enum does not know (none expected) still shows
		counts.forEach((state, count) -> put(values, label + " rows " + state, label + " " + state, count));
	}

	private static int count(Statement statement, String sql) throws SQLException {
		try (ResultSet result = statement.executeQuery(sql)) {
			return result.next() ? result.getInt(1) : 0;
		}
	}

	// ---------------------------------------------------------------- the end

	/** Periods (one second, {@code tick_at}) in which two instances ran one tick cluster; the cycles run. */
	private void checkTicks() {
		Connection connection = this.demo.database;
		if (connection == null) {
			this.tickLines.add("  tick cycles: database not open");
			return;
		}
		try (Statement statement = connection.createStatement()) {
			Map<String, Integer> byInstance = new TreeMap<>();
			try (ResultSet result = statement.executeQuery("SELECT instance_id, COUNT(*) FROM tick_cycles GROUP BY instance_id")) {
				while (result.next()) {
					byInstance.put(result.getString(1), result.getInt(2));
				}
			}
			long periods = count(statement, "SELECT COUNT(*) FROM (SELECT DISTINCT cluster, tick_at FROM tick_cycles)");
			long span = count(statement, "SELECT COALESCE((MAX(tick_at) - MIN(tick_at)) / 1000 + 1, 0) FROM tick_cycles");
			this.twoCyclePeriods = count(statement, "SELECT COUNT(*) FROM (SELECT cluster, tick_at FROM tick_cycles "
					+ "GROUP BY cluster, tick_at HAVING COUNT(DISTINCT instance_id) > 1)");
			long repeated = count(statement, "SELECT COUNT(*) FROM (SELECT cluster, tick_at FROM tick_cycles "
					+ "GROUP BY cluster, tick_at HAVING COUNT(*) > COUNT(DISTINCT instance_id))");
			this.tickLines.add(String.format(Locale.ROOT, "  tick cycles run                           %6d   (by instance %s)",
					byInstance.values().stream().mapToInt(Integer::intValue).sum(), byInstance));
			this.tickLines.add(String.format(Locale.ROOT,
					"  tick periods with a cycle                 %6d   of %d (%d clusters x %d s from the first tick to the last)",
					periods, span * ChaosDriver.TICK_CLUSTERS.size(), ChaosDriver.TICK_CLUSTERS.size(), span));
			this.tickLines.add(String.format(Locale.ROOT, "  tick periods with cycles of two instances %6d", this.twoCyclePeriods));
			this.tickLines.add(String.format(Locale.ROOT, "  tick periods with two cycles of one instance %3d   (a late timer catching up)", repeated));
			try (ResultSet result = statement.executeQuery("SELECT cluster, tick_at, GROUP_CONCAT(instance_id) FROM tick_cycles "
					+ "GROUP BY cluster, tick_at HAVING COUNT(DISTINCT instance_id) > 1 ORDER BY tick_at LIMIT 10")) {
				while (result.next()) {
					this.tickLines.add(String.format(Locale.ROOT, "    %s at %s: %s", result.getString(1),
							Instant.ofEpochMilli(result.getLong(2)), result.getString(3)));
				}
			}
		}
		catch (SQLException ex) {
			this.tickLines.add("  tick cycles: could not read tick_cycles: " + ex.getMessage());
		}
	}

	List<String> summary(DemoReport report) {
		int from = SoakSeries.windowStart(this.settings.minutes());
		List<SoakSeries.Summary> summaries = this.series.summaries(from, this.settings.minutes());
		List<String> lines = new ArrayList<>();
		lines.add(String.format(Locale.ROOT, "soak: %d minutes, %d mails at %.1f per second, 3 instances, 20 tick clusters on 1 s ticks, "
				+ "one instance restarted every %d minutes; %d cores", this.settings.minutes(), this.demo.mailCount(),
				this.settings.mailsPerSecond(), this.settings.restartEvery(), Runtime.getRuntime().availableProcessors()));
		lines.add("uptime at the start: " + this.uptimeStart);
		lines.add("uptime at the end:   " + this.uptimeEnd);
		List<Double> sorted = this.loads.stream().filter((l) -> l >= 0).sorted().toList();
		if (!sorted.isEmpty()) {
			lines.add(String.format(Locale.ROOT, "load (1-min average at each sample): min %.2f median %.2f max %.2f", sorted.get(0),
					sorted.get(sorted.size() / 2), sorted.get(sorted.size() - 1)));
		}
		lines.add("");
		lines.add("Restarts:");
		this.restarts.forEach((r) -> lines.add("- " + r));
		if (this.restarts.isEmpty()) {
			lines.add("- none");
		}
		lines.add("");
		lines.add("Exactly once (DemoReport):");
		report.summary().stream().filter((l) -> !l.startsWith("  takeover") && !l.contains("samples with two holders")).forEach(lines::add);
		lines.add("");
		lines.add("Tick clusters (tick_cycles):");
		lines.addAll(this.tickLines);
		lines.add("");
		lines.add(String.format(Locale.ROOT, "Series over minutes %d..%d (flat: within ±%.0f %% of the middle of the range):", from,
				this.settings.minutes(), SoakSeries.FLAT_PERCENT));
		lines.addAll(SoakSeries.summaryTable(summaries));
		lines.add("");
		lines.add("Per minute (i1..i3 = instance-1..3; heap/meta KiB after a forced full GC; thr = live threads; fd = open file "
				+ "descriptors; jmxC/jmxS = JMX connections as client (TCP) and server (connection ids); db = TCP connections to the H2 server):");
		lines.addAll(this.series.table(this.columns));
		lines.add("");
		lines.add("What the series are made of (SoakDiagnosis, beside the series): soak-jmx-tcp.tsv (TCP connections to each JMX port "
				+ "and accepted at its own) every minute, soak-seconds.tsv and soak-jmx-tcp-lifetimes.tsv every second (/proc only)"
				+ (this.settings.diagnose() ? "; soak-classes.tsv (top " + SoakDiagnosis.TOP_CLASSES + " classes by bytes after a full GC), "
						+ "soak-threads.tsv (Java threads per name group) every minute, probes/ (jcmd GC.class_histogram and Thread.print, whole)"
						: "; no class histograms or thread dumps (./soak.sh ... diagnose)") + ".");
		if (!this.probeFailures.isEmpty()) {
			lines.add("");
			lines.add("Probes that failed:");
			this.probeFailures.forEach((f) -> lines.add("- " + f));
		}
		return lines;
	}

	String lastLine(DemoReport report) {
		int from = SoakSeries.windowStart(this.settings.minutes());
		List<SoakSeries.Summary> summaries = this.series.summaries(from, this.settings.minutes());
		List<SoakSeries.Summary> notFlat = summaries.stream().filter((s) -> !s.flat()).toList();
		int twice = report.duplicateRows() + report.confirmations().duplicates() + report.followUps().duplicates();
		String figures = String.format(Locale.ROOT,
				"minutes=%d sent=%d processed=%d lost=%d processed-twice=%d (orders %d, confirmations %d, follow-ups %d) "
						+ "two-cycle-periods=%d restarts=%d series-flat=%d/%d",
				this.settings.minutes(), report.sent(), report.processed(), report.lost(), twice, report.duplicateRows(),
				report.confirmations().duplicates(), report.followUps().duplicates(), this.twoCyclePeriods, this.restarts.size(),
				summaries.size() - notFlat.size(), summaries.size());
		List<String> missed = new ArrayList<>();
		if (report.failure() != null) {
			missed.add("the run did not finish: " + report.failure());
		}
		if (!report.ok() && report.failure() == null) {
			missed.add("mails, confirmations or follow-ups do not add up (lost " + report.lost() + ", twice " + twice + ")");
		}
		if (this.twoCyclePeriods != 0) {
			missed.add((this.twoCyclePeriods < 0) ? "tick cycles not checked" : this.twoCyclePeriods + " two-cycle periods");
		}
		for (SoakSeries.Summary summary : notFlat) {
			missed.add(summary.name() + ((summary.missing() > 0) ? " without a value in " + summary.missing() + " minutes"
					: String.format(Locale.ROOT, " ±%.1f %% (%.1f points over)", summary.spreadPercent(), summary.missedBy())));
		}
		return missed.isEmpty() ? "soak: OK " + figures : "soak: MISSED " + figures + " (" + String.join("; ", missed) + ")";
	}

	private static String uptime() {
		try {
			Process process = new ProcessBuilder("uptime").redirectErrorStream(true).start();
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
			process.waitFor(5, TimeUnit.SECONDS);
			return output;
		}
		catch (IOException ex) {
			return "load " + DemoDriver.loadAverage() + " (no uptime command)";
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return "";
		}
	}

}
