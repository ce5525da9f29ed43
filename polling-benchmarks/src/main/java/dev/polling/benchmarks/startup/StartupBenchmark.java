package dev.polling.benchmarks.startup;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * What the starter adds to an application's start (issue 33 §4): {@link StartupApplication} (twenty
 * clusters on one-second timers, a JMX server, two peers of which one refuses, inbox, queue, delivery
 * and jobs on an in-memory H2 database with the schema initialized) started with and without the
 * starter's auto-configurations, each start in a fresh JVM ({@link StartupProbe}), the two modes
 * alternating and the first of the pair switching each round. Reports per mode the median, minimum
 * and maximum of the time {@code SpringApplication.run} took (context started) and of the JVM's
 * uptime then, the median difference, and where the starter's time goes: the median instantiation
 * time of its beans (Spring's start-up steps) over the runs with it, largest first.
 *
 * <p>Run: {@code polling-benchmarks/run.sh startup.StartupBenchmark [rounds]} (default 10). The last
 * line is the summary.
 */
public final class StartupBenchmark {

	private StartupBenchmark() {
	}

	public static void main(String[] args) throws Exception {
		int rounds = (args.length > 0) ? Integer.parseInt(args[0]) : 10;
		Map<String, List<Long>> run = new TreeMap<>();
		Map<String, List<Long>> uptime = new TreeMap<>();
		Map<String, List<Long>> beans = new TreeMap<>();
		Map<String, List<Long>> classes = new TreeMap<>();
		for (int round = 0; round < rounds; round++) {
			List<String> order = (round % 2 == 0) ? List.of("with", "without") : List.of("without", "with");
			for (String mode : order) {
				String line = start(mode);
				System.out.println("round " + (round + 1) + ": " + line);
				run.computeIfAbsent(mode, (m) -> new ArrayList<>()).add(value(line, "runMs"));
				uptime.computeIfAbsent(mode, (m) -> new ArrayList<>()).add(value(line, "uptimeMs"));
				classes.computeIfAbsent(mode, (m) -> new ArrayList<>()).add(value(line, "classes"));
				if (mode.equals("with")) {
					String polling = line.substring(line.indexOf(" polling=") + " polling=".length());
					for (String entry : polling.split(",")) {
						if (!entry.isBlank()) {
							int eq = entry.lastIndexOf('=');
							beans.computeIfAbsent(entry.substring(0, eq), (b) -> new ArrayList<>()).add(Long.parseLong(entry.substring(eq + 1)));
						}
					}
				}
			}
		}
		for (String mode : List.of("without", "with")) {
			System.out.printf("%-8s run: median %d ms (min %d, max %d); JVM uptime when started: median %d ms (min %d, max %d)%n", mode,
					median(run.get(mode)), min(run.get(mode)), max(run.get(mode)), median(uptime.get(mode)), min(uptime.get(mode)),
					max(uptime.get(mode)));
		}
		List<Map.Entry<String, Long>> costliest = beans.entrySet().stream()
			.map((e) -> Map.entry(e.getKey(), median(e.getValue())))
			.sorted(Map.Entry.<String, Long>comparingByValue().reversed())
			.toList();
		long beansTotal = costliest.stream().mapToLong(Map.Entry::getValue).sum();
		System.out.println("the starter's beans, median instantiation ms (nested beans count in their parent too), largest first:");
		costliest.stream().limit(12).forEach((e) -> System.out.printf("  %5d  %s%n", e.getValue(), e.getKey()));
		long added = median(run.get("with")) - median(run.get("without"));
		System.out.printf("startup: rounds=%d without=%d ms with=%d ms added=%d ms (run medians; uptime medians %d -> %d ms) "
				+ "classes=%d->%d starterBeans=%d sumOfBeanMedians=%d ms cores=%d load=%.1f%n", rounds, median(run.get("without")),
				median(run.get("with")), added, median(uptime.get("without")), median(uptime.get("with")), median(classes.get("without")),
				median(classes.get("with")), costliest.size(), beansTotal, Runtime.getRuntime().availableProcessors(),
				java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
	}

	private static String start(String mode) throws IOException, InterruptedException {
		int port;
		try (ServerSocket socket = new ServerSocket(0)) {
			port = socket.getLocalPort();
		}
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		Process process = new ProcessBuilder(java, "-Xmx512m", "-cp", System.getProperty("java.class.path"), StartupProbe.class.getName(), mode,
				String.valueOf(port))
			.redirectErrorStream(true)
			.start();
		String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		if (!process.waitFor(120, TimeUnit.SECONDS) || process.exitValue() != 0) {
			throw new IllegalStateException("the " + mode + " start failed:\n" + output);
		}
		return output.lines().filter((l) -> l.startsWith("startup ")).findFirst()
			.orElseThrow(() -> new IllegalStateException("no startup line from the " + mode + " start:\n" + output));
	}

	private static long value(String line, String key) {
		int at = line.indexOf(" " + key + "=") + key.length() + 2;
		int end = line.indexOf(' ', at);
		return Long.parseLong(line.substring(at, (end < 0) ? line.length() : end));
	}

	private static long median(List<Long> values) {
		List<Long> sorted = values.stream().sorted().toList();
		int n = sorted.size();
		return (n % 2 == 1) ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
	}

	private static long min(List<Long> values) {
		return values.stream().mapToLong(Long::longValue).min().orElse(-1);
	}

	private static long max(List<Long> values) {
		return values.stream().mapToLong(Long::longValue).max().orElse(-1);
	}

}
