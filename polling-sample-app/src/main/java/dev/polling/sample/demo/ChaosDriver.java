package dev.polling.sample.demo;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

import dev.polling.sample.demo.DemoDriver.Instance;

/**
 * The chaos run behind {@code ./chaos.sh}: the demo's mail server and three instances of the sample
 * app ({@link DemoDriver} sets them up), thousands of mails, and faults at random moments chosen
 * from a seed: SIGKILL of the holder of a random cluster (restarted a few seconds later) and SIGSTOP
 * of a holder for longer than the peer timeout, followed by SIGCONT (a frozen JVM that resumes in
 * the middle of its cycle and still believes it holds). Every instance's {@code /actuator/polling}
 * is sampled every {@value #SAMPLE_MILLIS} ms (in parallel, short timeout: a frozen instance does
 * not answer and counts as not holding) to measure, per cluster, the time with no answering holder
 * and the time with two answering holders at the same sample; takeover times are measured from the
 * fault to the first sample in which another instance holds the cluster.
 * <p>
 * At the end it reads the shared database: lost mails, duplicate business rows, duplicate fetches
 * caught by the inbox, confirmations and follow-up checks (it waits for them as the demo does), and
 * for every period with two holders which instance fetched what
 * what in that cluster's mailbox meanwhile. The last line is {@code chaos: OK ...} (exit code 0) or
 * {@code chaos: FAILED ...} (exit code 1).
 * <p>
 * Arguments: {@code seed policy [mails] [send-seconds] [faults]} (defaults 42, proceed, 5400, 270,
 * 24); the policy ({@code proceed} or {@code presume-last-known}) is handed to every instance as
 * {@code --polling.unreachable-peer-policy}. Work directory: {@code chaos-work/<policy>}.
 */
public final class ChaosDriver {

	static final long SAMPLE_MILLIS = 150;

	private static final Duration HTTP_TIMEOUT = Duration.ofMillis(600);

	private static final Duration TAKEOVER_TIMEOUT = Duration.ofSeconds(60);

	private static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(150);

	private final DemoDriver demo;

	private final long seed;

	private final String policy;

	private final int faultCount;

	private final Duration sendDuration;

	private final List<Fault> faults = new ArrayList<>();

	private final List<TwoHolders> twoHolderPeriods = new ArrayList<>();

	private final Map<String, TwoHolders> openTwoHolders = new HashMap<>();

	private final Map<String, Long> noHolderNanos = new LinkedHashMap<>();

	private final Map<String, Long> twoHolderNanos = new LinkedHashMap<>();

	private final Map<Instance, Long> frozenUntil = new HashMap<>();

	private final Map<Instance, Long> restartAt = new HashMap<>();

	private final long startNanos = System.nanoTime();

	private final long startEpochMillis = System.currentTimeMillis();

	ChaosDriver(DemoDriver demo, long seed, String policy, int faultCount, Duration sendDuration) {
		this.demo = demo;
		this.seed = seed;
		this.policy = policy;
		this.faultCount = faultCount;
		this.sendDuration = sendDuration;
		DemoDriver.CLUSTERS.forEach((cluster) -> {
			this.noHolderNanos.put(cluster, 0L);
			this.twoHolderNanos.put(cluster, 0L);
		});
	}

	public static void main(String[] args) {
		long seed = Long.parseLong((args.length > 0) ? args[0] : "42");
		String policy = (args.length > 1) ? args[1] : "proceed";
		int mails = Integer.parseInt((args.length > 2) ? args[2] : "5400");
		Duration send = Duration.ofSeconds(Long.parseLong((args.length > 3) ? args[3] : "270"));
		int faults = Integer.parseInt((args.length > 4) ? args[4] : "24");
		String jar = System.getProperty("demo.jar", System.getProperty("java.class.path"));
		String java = ProcessHandle.current().info().command().orElse("java");
		DemoDriver demo = new DemoDriver(mails, send, Path.of(System.getProperty("demo.work", "chaos-work/" + policy)), java, jar);
		demo.instanceArguments.add("--polling.unreachable-peer-policy=" + policy);
		ChaosDriver chaos = new ChaosDriver(demo, seed, policy, faults, send);
		Runtime.getRuntime().addShutdownHook(new Thread(() -> {
			chaos.resumeAll();
			demo.stopAll();
		}, "chaos-shutdown"));
		List<String> lines;
		boolean ok;
		String failure;
		try {
			failure = chaos.run();
		}
		catch (Exception ex) {
			failure = DemoDriver.describe(ex);
		}
		chaos.resumeAll();
		DemoReport report = demo.report(failure);
		lines = chaos.summary(report);
		ok = report.ok();
		demo.stopAll();
		System.out.println();
		System.out.println("chaos: summary (seed " + seed + ", policy " + policy + ")");
		lines.forEach(System.out::println);
		System.out.println(chaos.lastLine(report, ok));
		System.out.flush();
		System.exit(ok ? 0 : 1);
	}

	@Nullable String run() throws Exception {
		this.demo.prepareWorkDirectory();
		this.demo.say("chaos: seed %d, policy %s, %d faults, %d mails over %d s", this.seed, this.policy, this.faultCount,
				this.demo.mailCount(), this.sendDuration.toSeconds());
		this.demo.startMailServer();
		this.demo.openDatabase();
		this.demo.startInstances();
		this.demo.awaitAllClustersHeld();
		this.demo.distribute();

		// every random choice is drawn up front, so the same seed gives the same plan
		Random random = new Random(this.seed);
		long sendStart = System.nanoTime();
		long spacing = this.sendDuration.toNanos() / (this.faultCount + 1);
		List<Fault> plan = new ArrayList<>();
		for (int i = 0; i < this.faultCount; i++) {
			long at = sendStart + spacing / 2 + i * spacing + (long) ((random.nextDouble() - 0.5) * spacing / 2);
			boolean kill = random.nextBoolean();
			String cluster = DemoDriver.CLUSTERS.get(random.nextInt(DemoDriver.CLUSTERS.size()));
			long pause = TimeUnit.SECONDS.toNanos(kill ? 2 + random.nextInt(5) : 3 + random.nextInt(10));
			plan.add(new Fault(i + 1, kill ? "SIGKILL" : "SIGSTOP", cluster, at, pause));
		}
		DemoDriver.Sender sender = this.demo.new Sender();
		Thread sending = new Thread(sender, "chaos-sender");
		sending.setDaemon(true);
		sending.start();

		long last = System.nanoTime();
		long drainDeadline = 0;
		int next = 0;
		long lastPrint = 0;
		while (true) {
			if (sender.failure != null) {
				return "sending mail failed: " + DemoDriver.describe(sender.failure);
			}
			Map<String, List<String>> holders = sample();
			long now = System.nanoTime();
			account(holders, now - last, now);
			last = now;
			for (Instance instance : this.demo.instances) {
				if (!instance.process().isAlive() && !this.restartAt.containsKey(instance)) {
					return instance.id() + " ended unexpectedly; see " + instance.process().log();
				}
			}
			resumeAndRestart(now);
			observeTakeovers(holders, now);
			if (next < plan.size() && now >= plan.get(next).plannedAt && inject(plan.get(next), holders, now)) {
				next++;
			}
			if (now - lastPrint > 10_000_000_000L) {
				lastPrint = now;
				this.demo.say("sent %d/%d processed %d | %s | faults %d/%d", sender.sent.get(), this.demo.mailCount(),
						this.demo.processedCount(), holders, next, plan.size());
			}
			if (sender.done && next >= plan.size() && this.frozenUntil.isEmpty() && this.restartAt.isEmpty()) {
				if (drainDeadline == 0) {
					drainDeadline = now + DRAIN_TIMEOUT.toNanos();
					this.demo.say("all mails sent, all faults injected; waiting until every mail is processed");
				}
				boolean allUp = this.demo.instances.stream().allMatch(this.demo::healthy);
				if (allUp && this.faults.stream().allMatch((f) -> f.takeoverNanos != 0)
						&& this.demo.processedCount() >= this.demo.mailCount()) {
					closeOpenPeriods(now);
					this.demo.say("all mails processed");
					break;
				}
				if (now > drainDeadline) {
					closeOpenPeriods(now);
					return "gave up waiting " + DRAIN_TIMEOUT.toSeconds() + " s for the mails to be processed";
				}
			}
			else if (next < plan.size() && sender.done && now > plan.get(plan.size() - 1).plannedAt + 60_000_000_000L) {
				return "could not inject all faults (" + next + " of " + plan.size() + ")";
			}
			long sleep = TimeUnit.MILLISECONDS.toNanos(SAMPLE_MILLIS) - (System.nanoTime() - now);
			if (sleep > 0) {
				Thread.sleep(sleep / 1_000_000);
			}
		}
		String failure = this.demo.awaitConfirmationsAndFollowUps(() -> this.demo.say("processed %d | %s",
				this.demo.processedCount(), sample()));
		this.demo.awaitMailboxesEmpty();
		return failure;
	}

	/** A holder of the fault's cluster that answers, and another instance that answers; else later. */
	private boolean inject(Fault fault, Map<String, List<String>> holders, long now) throws Exception {
		List<String> held = holders.get(fault.cluster);
		if (held.size() != 1) {
			return false;
		}
		Instance victim = instance(held.get(0));
		long answering = this.demo.instances.stream()
			.filter((i) -> i != victim && !this.frozenUntil.containsKey(i) && !this.restartAt.containsKey(i))
			.count();
		if (answering == 0 || this.frozenUntil.containsKey(victim) || this.restartAt.containsKey(victim)) {
			return false;
		}
		fault.victim = victim.id();
		fault.at = now;
		fault.epochMillis = System.currentTimeMillis();
		for (String cluster : DemoDriver.CLUSTERS) {
			if (holders.get(cluster).contains(victim.id())) {
				fault.clusters.add(cluster);
			}
		}
		if (fault.kind.equals("SIGKILL")) {
			victim.process().kill();
			this.restartAt.put(victim, now + fault.pause);
		}
		else {
			signal("STOP", victim.process().pid());
			this.frozenUntil.put(victim, now + fault.pause);
		}
		this.faults.add(fault);
		this.demo.say("fault %d: %s %s (pid %d), holder of %s; %s after %.0f s", fault.number, fault.kind, victim.id(),
				victim.process().pid(), fault.clusters, fault.kind.equals("SIGKILL") ? "restart" : "SIGCONT", fault.pause / 1e9);
		return true;
	}

	private void resumeAndRestart(long now) throws IOException {
		for (var iterator = this.frozenUntil.entrySet().iterator(); iterator.hasNext();) {
			var entry = iterator.next();
			if (now >= entry.getValue()) {
				signal("CONT", entry.getKey().process().pid());
				iterator.remove();
				this.demo.say("SIGCONT %s", entry.getKey().id());
				for (Fault fault : this.faults) {
					if (fault.victim.equals(entry.getKey().id()) && fault.resumedAt == 0 && fault.kind.equals("SIGSTOP")) {
						fault.resumedAt = now;
					}
				}
			}
		}
		for (var iterator = this.restartAt.entrySet().iterator(); iterator.hasNext();) {
			var entry = iterator.next();
			if (now >= entry.getValue()) {
				entry.getKey().process().start();
				iterator.remove();
				this.demo.say("restarting %s", entry.getKey().id());
			}
		}
	}

	private void observeTakeovers(Map<String, List<String>> holders, long now) {
		for (Fault fault : this.faults) {
			if (fault.takeoverNanos != 0) {
				continue;
			}
			boolean all = true;
			for (String cluster : fault.clusters) {
				if (fault.takenOver.containsKey(cluster)) {
					continue;
				}
				List<String> held = holders.get(cluster);
				if (held.stream().anyMatch((id) -> !id.equals(fault.victim))) {
					fault.takenOver.put(cluster, now - fault.at);
					this.demo.say("takeover: %s by %s %.1f s after fault %d (%s %s)", cluster, held, (now - fault.at) / 1e9,
							fault.number, fault.kind, fault.victim);
				}
				else if (fault.resumedAt != 0 && held.contains(fault.victim)) {
					fault.takenOver.put(cluster, -1L); // resumed before anyone took over, and kept it
				}
				else if (now - fault.at > TAKEOVER_TIMEOUT.toNanos()) {
					fault.takenOver.put(cluster, -2L);
				}
				else {
					all = false;
				}
			}
			if (all) {
				fault.takeoverNanos = now - fault.at;
			}
		}
	}

	private void account(Map<String, List<String>> holders, long elapsed, long now) {
		for (String cluster : DemoDriver.CLUSTERS) {
			List<String> held = holders.get(cluster);
			if (held.isEmpty()) {
				this.noHolderNanos.merge(cluster, elapsed, Long::sum);
			}
			TwoHolders open = this.openTwoHolders.get(cluster);
			if (held.size() > 1) {
				this.twoHolderNanos.merge(cluster, elapsed, Long::sum);
				if (open == null) {
					open = new TwoHolders(cluster, now, System.currentTimeMillis(), new ArrayList<>(held));
					this.openTwoHolders.put(cluster, open);
					this.twoHolderPeriods.add(open);
					this.demo.say("TWO HOLDERS of %s: %s", cluster, held);
				}
				open.samples++;
				open.endNanos = now;
				open.endEpochMillis = System.currentTimeMillis();
			}
			else if (open != null) {
				this.openTwoHolders.remove(cluster);
				this.demo.say("two holders of %s ended after %d samples; now %s", cluster, open.samples, held);
			}
		}
	}

	private void closeOpenPeriods(long now) {
		this.openTwoHolders.clear();
	}

	/** Per cluster, the instances that answered within {@link #HTTP_TIMEOUT} and say they hold it. */
	private Map<String, List<String>> sample() {
		Map<String, List<String>> holders = new LinkedHashMap<>();
		DemoDriver.CLUSTERS.forEach((cluster) -> holders.put(cluster, new ArrayList<>()));
		Map<Instance, CompletableFuture<HttpResponse<String>>> calls = new LinkedHashMap<>();
		for (Instance instance : this.demo.instances) {
			if (!instance.process().isAlive()) {
				continue;
			}
			HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + instance.httpPort() + "/actuator/polling"))
				.timeout(HTTP_TIMEOUT)
				.build();
			calls.put(instance, this.demo.http.sendAsync(request, HttpResponse.BodyHandlers.ofString()));
		}
		calls.forEach((instance, call) -> {
			try {
				HttpResponse<String> response = call.get(HTTP_TIMEOUT.toMillis() + 200, TimeUnit.MILLISECONDS);
				if (response.statusCode() != 200) {
					return;
				}
				JsonNode status = this.demo.json.readTree(response.body());
				for (String cluster : DemoDriver.CLUSTERS) {
					if (status.path("clusters").path(cluster).path("holding").asBoolean(false)) {
						holders.get(cluster).add(instance.id());
					}
				}
			}
			catch (Exception ex) {
				// frozen, starting or gone: not holding as far as anyone can see
			}
		});
		return holders;
	}

	private Instance instance(String id) {
		return this.demo.instances.stream().filter((i) -> i.id().equals(id)).findFirst().orElseThrow();
	}

	private static void signal(String signal, long pid) throws IOException {
		try {
			new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start().waitFor(5, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	synchronized void resumeAll() {
		for (Instance instance : this.frozenUntil.keySet()) {
			try {
				signal("CONT", instance.process().pid());
			}
			catch (IOException ex) {
				// best effort at shutdown
			}
		}
		this.frozenUntil.clear();
	}

	private double seconds(long nanos) {
		return (nanos - this.startNanos) / 1e9;
	}

	List<String> summary(DemoReport report) {
		// the demo's own takeover lines and two-holder samples do not apply: the chaos run measures both itself
		List<String> lines = new ArrayList<>(report.summary()
			.stream()
			.filter((l) -> !l.contains("samples with two holders") && !l.startsWith("  takeover"))
			.toList());
		lines.add(String.format(Locale.ROOT, "  faults injected                           %5d   (SIGKILL %d, SIGSTOP %d)", this.faults.size(),
				this.faults.stream().filter((f) -> f.kind.equals("SIGKILL")).count(),
				this.faults.stream().filter((f) -> f.kind.equals("SIGSTOP")).count()));
		for (Fault fault : this.faults) {
			StringBuilder takeovers = new StringBuilder();
			fault.takenOver.forEach((cluster, nanos) -> takeovers.append(takeovers.isEmpty() ? "" : ", ").append(cluster).append(' ')
				.append((nanos == -1L) ? "kept (resumed before a takeover)"
						: (nanos == -2L) ? "NOT taken over" : String.format(Locale.ROOT, "%.1f s", nanos / 1e9)));
			lines.add(String.format(Locale.ROOT, "  [%6.1fs] fault %2d %s %s for %.0f s, held %s -> %s", seconds(fault.at), fault.number,
					fault.kind, fault.victim, fault.pause / 1e9, fault.clusters, takeovers));
		}
		lines.add("  takeover after SIGKILL   " + takeoverStats("SIGKILL"));
		lines.add("  takeover after SIGSTOP   " + takeoverStats("SIGSTOP"));
		for (String cluster : DemoDriver.CLUSTERS) {
			lines.add(String.format(Locale.ROOT, "  %s: no holder %.1f s, two holders %.1f s", cluster,
					this.noHolderNanos.get(cluster) / 1e9, this.twoHolderNanos.get(cluster) / 1e9));
		}
		lines.add(String.format(Locale.ROOT, "  periods with two holders                  %5d", this.twoHolderPeriods.size()));
		for (TwoHolders period : this.twoHolderPeriods) {
			lines.add(String.format(Locale.ROOT, "  [%6.1fs] %s held by %s for %d samples (%.1f s); %s; %s", seconds(period.startNanos),
					period.cluster, period.holders, period.samples, (period.endNanos - period.startNanos) / 1e9 + SAMPLE_MILLIS / 1000.0,
					cause(period), activity(period)));
		}
		return lines;
	}

	private String takeoverStats(String kind) {
		List<Long> times = new ArrayList<>();
		int kept = 0;
		for (Fault fault : this.faults) {
			if (fault.kind.equals(kind)) {
				for (long nanos : fault.takenOver.values()) {
					if (nanos > 0) {
						times.add(nanos);
					}
					else if (nanos == -1L) {
						kept++;
					}
				}
			}
		}
		if (times.isEmpty()) {
			return "none measured" + ((kept > 0) ? " (" + kept + " kept by the resumed holder)" : "");
		}
		times.sort(null);
		return String.format(Locale.ROOT, "n=%d min %.1f s median %.1f s max %.1f s%s", times.size(), times.get(0) / 1e9,
				times.get(times.size() / 2) / 1e9, times.get(times.size() - 1) / 1e9,
				(kept > 0) ? " (" + kept + " more kept by the resumed holder)" : "");
	}

	/** The latest fault of one of the two holders before the period began. */
	private String cause(TwoHolders period) {
		Fault latest = null;
		for (Fault fault : this.faults) {
			if (period.holders.contains(fault.victim) && fault.at <= period.startNanos) {
				latest = fault;
			}
		}
		if (latest == null) {
			return "no fault of either holder before it";
		}
		String resumed = (latest.resumedAt != 0 && latest.resumedAt <= period.startNanos)
				? String.format(Locale.ROOT, ", SIGCONT %.1f s before", (period.startNanos - latest.resumedAt) / 1e9)
				: "";
		return String.format(Locale.ROOT, "after fault %d (%s %s at %.1f s%s)", latest.number, latest.kind, latest.victim,
				seconds(latest.at), resumed);
	}

	/** Orders and inbox duplicates in the period's mailbox, per instance, from the database. */
	private String activity(TwoHolders period) {
		Connection connection = this.demo.database;
		if (connection == null) {
			return "database not open";
		}
		Timestamp from = new Timestamp(period.startEpochMillis - 1000);
		Timestamp to = new Timestamp(period.endEpochMillis + 2000);
		StringBuilder text = new StringBuilder("in the mailbox from 1 s before to 2 s after: orders by fetcher ");
		try {
			text.append(grouped(connection, "SELECT fetched_by, COUNT(*) FROM orders WHERE processed_at BETWEEN ? AND ? "
					+ "AND mailbox LIKE ? GROUP BY fetched_by", from, to, period.cluster));
			text.append(", inbox duplicates ");
			text.append(grouped(connection, "SELECT fetched_by, COUNT(*) FROM duplicate_fetches WHERE fetched_at BETWEEN ? AND ? "
					+ "AND mailbox LIKE ? GROUP BY fetched_by", from, to, period.cluster));
		}
		catch (SQLException ex) {
			return "database: " + ex.getMessage();
		}
		return text.toString();
	}

	private static String grouped(Connection connection, String sql, Timestamp from, Timestamp to, String cluster) throws SQLException {
		String mailbox = "%" + cluster.substring(cluster.length() - 1);
		try (PreparedStatement statement = connection.prepareStatement(sql)) {
			statement.setTimestamp(1, from);
			statement.setTimestamp(2, to);
			statement.setString(3, mailbox);
			StringBuilder text = new StringBuilder();
			try (ResultSet result = statement.executeQuery()) {
				while (result.next()) {
					text.append(text.isEmpty() ? "" : " ").append(result.getString(1)).append('=').append(result.getInt(2));
				}
			}
			return text.isEmpty() ? "none" : text.toString();
		}
	}

	String lastLine(DemoReport report, boolean ok) {
		long noHolder = this.noHolderNanos.values().stream().mapToLong(Long::longValue).sum();
		long twoHolders = this.twoHolderNanos.values().stream().mapToLong(Long::longValue).sum();
		String figures = String.format(Locale.ROOT,
				"policy=%s seed=%d sent=%d processed=%d lost=%d duplicate-rows=%d duplicate-fetches=%d confirmations=%d "
						+ "duplicate-confirmations=%d follow-ups=%d duplicate-follow-ups=%d faults=%d "
						+ "no-holder=%.1fs two-holders=%.1fs (%d periods)",
				this.policy, this.seed, report.sent(), report.processed(), report.lost(), report.duplicateRows(),
				report.duplicateFetches(), report.confirmations().confirmed(), report.confirmations().duplicates(),
				report.followUps().checked(), report.followUps().duplicates(), this.faults.size(), noHolder / 1e9,
				twoHolders / 1e9, this.twoHolderPeriods.size());
		return ok ? "chaos: OK " + figures
				: "chaos: FAILED " + figures + ((report.failure() != null) ? " (" + report.failure() + ")" : "");
	}

	/** One planned fault and what was seen after it. */
	private static final class Fault {

		final int number;

		final String kind;

		final String cluster;

		final long plannedAt;

		final long pause;

		String victim = "";

		long at;

		long epochMillis;

		long resumedAt;

		long takeoverNanos;

		final List<String> clusters = new ArrayList<>();

		final Map<String, Long> takenOver = new LinkedHashMap<>();

		Fault(int number, String kind, String cluster, long plannedAt, long pause) {
			this.number = number;
			this.kind = kind;
			this.cluster = cluster;
			this.plannedAt = plannedAt;
			this.pause = pause;
		}

	}

	/** Consecutive samples in which two answering instances said they hold one cluster. */
	private static final class TwoHolders {

		final String cluster;

		final long startNanos;

		final long startEpochMillis;

		final List<String> holders;

		long endNanos;

		long endEpochMillis;

		int samples;

		TwoHolders(String cluster, long startNanos, long startEpochMillis, List<String> holders) {
			this.cluster = cluster;
			this.startNanos = startNanos;
			this.startEpochMillis = startEpochMillis;
			this.holders = holders;
		}

	}

}
