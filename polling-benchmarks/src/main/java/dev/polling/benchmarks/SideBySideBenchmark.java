package dev.polling.benchmarks;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

import dev.polling.core.ClusterDefinition;
import dev.polling.core.PeerDefinition;
import dev.polling.core.PollingManager;
import dev.polling.core.PollingSettings;
import dev.polling.core.JmxContract;

/**
 * This library's decision next to isy-polling 4.0.0's, against the same peers in one run. Three
 * JVMs: the peers ({@link PeerHost} in {@code isy} mode: idle instances, an active instance and the
 * faults, all serving isy-polling's JMX contract with plain JDK stubs), this JVM (this library's
 * {@link PollingManager#decide(String)}, configured with {@link JmxContract#ISY_POLLING}), and a child
 * JVM with isy-polling 4.0.0 and its Spring 6.1 ({@code dev.polling.compat.isypeer.IsyPollingBench},
 * class path from the {@code polling-isy-polling-peer} jar) timing {@code startePolling}. Ours runs
 * first, then isy-polling, so the two never compete for the CPU.
 *
 * <p>Prints median and p99 per scenario and side, and the ratio of the medians; the last line is a
 * one-line summary with the ratio for 3 idle peers.
 *
 * <p>Run: {@code polling-benchmarks/run.sh SideBySideBenchmark [our-iterations] [isy-iterations] [isy-cap-seconds]}
 * (defaults 20000, 2000, 150).
 */
public final class SideBySideBenchmark {

	private static final String CLUSTER = PeerHost.CLUSTER;

	private static final Duration PEER_TIMEOUT = PeerHost.PEER_TIMEOUT;

	private static final int SLOW_DECISIONS = 10;

	private SideBySideBenchmark() {
	}

	public static void main(String[] args) throws Exception {
		System.setProperty("org.slf4j.simpleLogger.log.dev.polling.core.PollingManager", "error");
		int ours = (args.length > 0) ? Integer.parseInt(args[0]) : 20_000;
		int theirs = (args.length > 1) ? Integer.parseInt(args[1]) : 2_000;
		int capSeconds = (args.length > 2) ? Integer.parseInt(args[2]) : 150;
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		Process host = new ProcessBuilder(java, "-Djava.rmi.server.hostname=127.0.0.1", "-cp", System.getProperty("java.class.path"),
				PeerHost.class.getName(), "3", "isy")
			.redirectError(ProcessBuilder.Redirect.DISCARD)
			.start();
		try {
			BufferedReader out = new BufferedReader(new InputStreamReader(host.getInputStream(), StandardCharsets.UTF_8));
			String[] ports = awaitLine(out, "PORTS ").split(" ");
			String[] faults = awaitLine(out, "FAULTS ").split(" ");
			int[] idle = Arrays.stream(ports[1].split(",")).mapToInt(Integer::parseInt).toArray();
			int active = Integer.parseInt(ports[2]);
			int refused = Integer.parseInt(faults[1]);
			int hung = Integer.parseInt(faults[2]);
			int blackholed = Integer.parseInt(faults[3]);
			int blocked = Integer.parseInt(faults[4]);

			List<Scenario> scenarios = List.of(new Scenario("1 idle peer", false, idle[0]),
					new Scenario("3 idle peers", false, idle), new Scenario("first of 3 peers active", false, active, idle[1], idle[2]),
					new Scenario("1 peer refused", false, refused), new Scenario("1 peer hung", true, hung),
					new Scenario("1 peer blackholed", true, blackholed), new Scenario("1 peer with a blocked getter", true, blocked));

			System.out.printf(Locale.ROOT, "side by side: java %s, %d cores, load average %s; peer timeout (ours) %d ms%n",
					System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(), loadAverage(),
					PEER_TIMEOUT.toMillis());
			Map<String, Result> ourResults = new LinkedHashMap<>();
			for (Scenario scenario : scenarios) {
				Result result = scenario.slow ? oursSpaced(scenario) : oursFast(scenario, ours);
				ourResults.put(scenario.name, result);
				System.out.printf(Locale.ROOT, "ours  %-30s %s%n", scenario.name, result);
			}
			Map<String, Result> isyResults = isyPolling(java, scenarios, theirs, capSeconds);
			isyResults.forEach((name, result) -> System.out.printf(Locale.ROOT, "isy   %-30s %s%n", name, result));

			System.out.println();
			System.out.printf(Locale.ROOT, "%-30s %12s %12s %14s %14s %10s%n", "scenario", "ours median", "ours p99",
					"isy median", "isy p99", "ratio");
			System.out.println("(ratio: isy median / ours median; where isy-polling did not return: cap / our slowest decision)");
			for (Scenario scenario : scenarios) {
				Result o = ourResults.get(scenario.name);
				Result i = isyResults.get(scenario.name);
				System.out.printf(Locale.ROOT, "%-30s %12s %12s %14s %14s %10s%n", scenario.name, millis(o.median), millis(o.p99),
						(i == null) ? "-" : i.medianText(), (i == null) ? "-" : i.p99Text(), ratio(i, o));
			}
			Result o3 = ourResults.get("3 idle peers");
			Result i3 = isyResults.get("3 idle peers");
			long bound = PEER_TIMEOUT.toNanos() + 100_000_000L;
			boolean slowOk = scenarios.stream().filter((s) -> s.slow).allMatch((s) -> ourResults.get(s.name).max <= bound);
			System.out.printf(Locale.ROOT,
					"side-by-side: 3 idle peers ours %s ms vs isy-polling %s ms (median) = %s faster; slowest decision of ours with a hung, blackholed or blocked peer %s ms (bound %d ms: %s); isy-polling: hung %s, blackholed %s, blocked getter %s%n",
					millis(o3.median), (i3 == null) ? "-" : i3.medianText(), ratio(i3, o3),
					millis(scenarios.stream().filter((s) -> s.slow).mapToLong((s) -> ourResults.get(s.name).max).max().orElse(0)),
					bound / 1_000_000, slowOk ? "ok" : "EXCEEDED", isyText(isyResults, "1 peer hung"),
					isyText(isyResults, "1 peer blackholed"), isyText(isyResults, "1 peer with a blocked getter"));
		}
		finally {
			host.getOutputStream().close();
			host.destroy();
		}
	}

	private static String isyText(Map<String, Result> results, String name) {
		Result result = results.get(name);
		if (result == null) {
			return "-";
		}
		return (result.note.startsWith("did not return")) ? result.note : millis(result.max) + " ms";
	}

	private static String awaitLine(BufferedReader out, String prefix) throws IOException {
		String line;
		while ((line = out.readLine()) != null && !line.startsWith(prefix)) {
			// skip
		}
		if (line == null) {
			throw new IllegalStateException("peer host did not print " + prefix.strip());
		}
		return line;
	}

	private static PollingManager manager(List<PeerDefinition> peers) {
		return PollingManager.builder()
			.settings(PollingSettings.defaults()
				.withInstanceId("bench")
				.withPeerTimeout(PEER_TIMEOUT)
				.withJmxContract(JmxContract.ISY_POLLING)
				.withJmxDomain(PeerHost.ISY_DOMAIN))
			.cluster(ClusterDefinition.of(CLUSTER, Duration.ofSeconds(600)))
			.peers(peers)
			.build();
	}

	private static Result oursFast(Scenario scenario, int iterations) throws InterruptedException {
		try (PollingManager manager = manager(scenario.peers())) {
			int warmup = Math.min(iterations, 2_000);
			for (int i = 0; i < warmup; i++) {
				manager.decide(CLUSTER);
			}
			return timedDecisions(manager, iterations, 0);
		}
	}

	/** One decision every 300 ms, like a timer, so that each meets the faulty peer afresh. */
	private static Result oursSpaced(Scenario scenario) throws InterruptedException {
		try (PollingManager manager = manager(scenario.peers())) {
			return timedDecisions(manager, SLOW_DECISIONS, 300);
		}
	}

	/** Times each of the decisions (a pause after each, when given) and counts the grants. */
	private static Result timedDecisions(PollingManager manager, int decisions, long pauseMillis) throws InterruptedException {
		long[] nanos = new long[decisions];
		int granted = 0;
		for (int i = 0; i < decisions; i++) {
			long start = System.nanoTime();
			if (manager.decide(CLUSTER).isGranted()) {
				granted++;
			}
			nanos[i] = System.nanoTime() - start;
			if (pauseMillis > 0) {
				Thread.sleep(pauseMillis);
			}
		}
		return Result.of(nanos, granted + " granted");
	}

	private static Map<String, Result> isyPolling(String java, List<Scenario> scenarios, int iterations, int capSeconds)
			throws IOException, InterruptedException {
		List<String> command = new ArrayList<>(List.of(java, "-cp", isyClasspath(), "dev.polling.compat.isypeer.IsyPollingBench",
				PeerHost.ISY_DOMAIN, CLUSTER));
		for (Scenario scenario : scenarios) {
			String peers = Arrays.stream(scenario.ports).mapToObj((p) -> "127.0.0.1:" + p).collect(Collectors.joining(","));
			command.add(scenario.slow ? "slow|" + scenario.name + "|" + capSeconds + "|" + peers
					: "fast|" + scenario.name + "|" + Math.max(iterations / 10, 1) + "|" + iterations + "|" + peers);
		}
		Path log = Files.createTempFile("isy-polling-bench", ".log");
		Process isy = new ProcessBuilder(command).redirectError(log.toFile()).start();
		Map<String, Result> results = new LinkedHashMap<>();
		try (BufferedReader out = new BufferedReader(new InputStreamReader(isy.getInputStream(), StandardCharsets.UTF_8))) {
			String line;
			while ((line = out.readLine()) != null) {
				if (line.startsWith("BENCH ")) {
					String[] f = line.substring(6).split("\\|");
					results.put(f[0], new Result(Long.parseLong(f[2]), Long.parseLong(f[3]), Long.parseLong(f[4]), f[5]));
					System.out.printf(Locale.ROOT, "isy-polling finished: %s%n", f[0]);
				}
			}
		}
		isy.waitFor();
		if (results.size() < scenarios.size()) {
			System.out.println("isy-polling JVM ended early (exit " + isy.exitValue() + "); its error output: " + log);
		}
		return results;
	}

	/** The isy-polling-peer jar (on this class path, without its dependencies) and the class path it carries. */
	private static String isyClasspath() throws IOException {
		String jar = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
			.filter((entry) -> entry.contains("isy-polling-peer"))
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("polling-isy-polling-peer is not on the class path"));
		try (InputStream in = SideBySideBenchmark.class.getClassLoader().getResourceAsStream("isy-polling-peer.classpath")) {
			if (in == null) {
				throw new IllegalStateException("isy-polling-peer.classpath not found in " + jar);
			}
			return jar + File.pathSeparator + new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
		}
	}

	private static String loadAverage() {
		try {
			return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
		}
		catch (IOException | RuntimeException ex) {
			return String.format(Locale.ROOT, "%.2f",
					java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
		}
	}

	private static String millis(long nanos) {
		return String.format(Locale.ROOT, "%.3f", nanos / 1e6);
	}

	private static String ratio(Result isy, Result ours) {
		if (isy == null) {
			return "-";
		}
		if (isy.median < 0) {
			// against our slowest decision: the peer timeout, not the decisions that found the request still pending
			return "> " + String.format(Locale.ROOT, "%.0f", isy.capSeconds() * 1e9 / ours.max) + "x";
		}
		return String.format(Locale.ROOT, "%.1fx", (double) isy.median / ours.median);
	}

	private record Scenario(String name, boolean slow, int... ports) {

		List<PeerDefinition> peers() {
			List<PeerDefinition> peers = new ArrayList<>();
			for (int port : this.ports) {
				peers.add(PeerDefinition.of("peer-" + port, "127.0.0.1", port));
			}
			return peers;
		}

	}

	private record Result(long median, long p99, long max, String note) {

		static Result of(long[] nanos, String note) {
			Arrays.sort(nanos);
			int n = nanos.length;
			return new Result(nanos[n / 2], nanos[(int) Math.ceil(n * 0.99) - 1], nanos[n - 1], note);
		}

		String medianText() {
			return (this.median < 0) ? "> " + capSeconds() + " s" : millis(this.median);
		}

		String p99Text() {
			return (this.p99 < 0) ? "> " + capSeconds() + " s" : millis(this.p99);
		}

		long capSeconds() {
			String digits = this.note.replaceAll("[^0-9]", "");
			return digits.isEmpty() ? 0 : Long.parseLong(digits);
		}

		@Override
		public String toString() {
			if (this.median < 0) {
				return this.note;
			}
			return String.format(Locale.ROOT, "median %s ms, p99 %s ms, max %s ms (%s)", millis(this.median), millis(this.p99),
					millis(this.max), this.note);
		}

	}

}
