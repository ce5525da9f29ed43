package dev.polling.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

import dev.polling.core.Decision;
import dev.polling.core.PeerDefinition;
import dev.polling.core.PollingManager;
import dev.polling.core.PollingSettings;

/**
 * How the cost of coordination grows with peers and clusters (issue 33 §1). One instance (this JVM)
 * holds {@code clusters} clusters and renews each on a one-second tick, as a timer per cluster
 * would, against {@code peers} idle peers in another JVM ({@link ScalingPeers}), for a fixed number
 * of ticks. Per configuration: decision latency (median, p99), peer reads per decision and per peer
 * per tick (each decision reads each peer once), this JVM's CPU time per decision and as a share of
 * one core, its live threads, and the bytes it read and wrote (from {@code /proc/self/io}, all of
 * this JVM's I/O, which is the JMX traffic here). Floor, in the same run: one cached JMX attribute
 * read, and {@code peers} of them in parallel.
 *
 * <p>Run: {@code polling-benchmarks/run.sh ScalingBenchmark [ticks] [peers,...] [clusters,...]}
 * (defaults 10, {@code 1,3,9,19}, {@code 1,20,200}). The last lines are one summary per configuration.
 */
public final class ScalingBenchmark {

	private ScalingBenchmark() {
	}

	public static void main(String[] args) throws Exception {
		System.setProperty("org.slf4j.simpleLogger.log.dev.polling", "error");
		int ticks = (args.length > 0) ? Integer.parseInt(args[0]) : 10;
		int[] peerCounts = (args.length > 1) ? parse(args[1]) : new int[] { 1, 3, 9, 19 };
		int[] clusterCounts = (args.length > 2) ? parse(args[2]) : new int[] { 1, 20, 200 };
		System.out.printf("coordination cost; %d ticks of 1 s per configuration; java %s; %d cores%n", ticks,
				System.getProperty("java.version"), Runtime.getRuntime().availableProcessors());
		List<String> summaries = new ArrayList<>();
		for (int clusters : clusterCounts) {
			for (int peers : peerCounts) {
				summaries.add(run(peers, clusters, ticks));
			}
		}
		summaries.forEach(System.out::println);
	}

	private static String run(int peerCount, int clusterCount, int ticks) throws Exception {
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		Process host = new ProcessBuilder(java, "-Xmx1g", "-cp", System.getProperty("java.class.path"), ScalingPeers.class.getName(),
				String.valueOf(peerCount), String.valueOf(clusterCount))
			.redirectError(ProcessBuilder.Redirect.DISCARD)
			.start();
		try {
			int[] ports = readPorts(host);
			List<PeerDefinition> peers = new ArrayList<>();
			for (int i = 0; i < ports.length; i++) {
				peers.add(PeerDefinition.of("peer-" + i, "127.0.0.1", ports[i]));
			}
			double[] floor = floor(ports, clusterCount);
			List<String> clusters = ScalingPeers.clusterIds(clusterCount);
			try (PollingManager manager = PollingManager.builder()
				.settings(PollingSettings.defaults().withInstanceId("bench").withPeerTimeout(PeerHost.PEER_TIMEOUT))
				.clusters(ScalingPeers.clusters(clusterCount))
				.peers(peers)
				.build()) {
				for (String cluster : clusters) {
					if (!manager.decide(cluster).isGranted()) {
						throw new IllegalStateException("not granted: " + cluster);
					}
				}
				// one warm-up tick, then the measured ones
				tick(manager, clusters, null);
				List<Long> latencies = new ArrayList<>();
				ThreadMXBean threads = ManagementFactory.getThreadMXBean();
				com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) ManagementFactory
					.getOperatingSystemMXBean();
				long[] io0 = io();
				long cpu0 = os.getProcessCpuTime();
				long wall0 = System.nanoTime();
				long reads = 0;
				int maxThreads = 0;
				for (int t = 0; t < ticks; t++) {
					long tickStart = System.nanoTime();
					reads += tick(manager, clusters, latencies);
					maxThreads = Math.max(maxThreads, threads.getThreadCount());
					long rest = TimeUnit.SECONDS.toNanos(1) - (System.nanoTime() - tickStart);
					if (rest > 0) {
						TimeUnit.NANOSECONDS.sleep(rest);
					}
				}
				long wall = System.nanoTime() - wall0;
				long cpu = os.getProcessCpuTime() - cpu0;
				long[] io1 = io();
				long decisions = latencies.size();
				long[] sorted = latencies.stream().mapToLong(Long::longValue).sorted().toArray();
				double median = sorted[sorted.length / 2] / 1e6;
				double p99 = sorted[Math.min(sorted.length - 1, (int) Math.ceil(sorted.length * 0.99) - 1)] / 1e6;
				return String.format("scaling: clusters=%d peers=%d decisions=%d medianMs=%.3f p99Ms=%.3f readsPerDecision=%.1f "
						+ "readsPerPeerPerTick=%.1f cpuMsPerDecision=%.3f cpuShareOfOneCore=%.1f%% threads=%d bytesPerDecision=%d "
						+ "floorReadMs=%.3f floorParallelReadsMs=%.3f", clusterCount, peerCount, decisions, median, p99,
						(double) reads / decisions, (double) reads / peerCount / ticks, cpu / 1e6 / decisions, 100.0 * cpu / wall, maxThreads,
						(io1[0] < 0) ? -1 : (io1[0] - io0[0] + io1[1] - io0[1]) / decisions, floor[0], floor[1]);
			}
		}
		finally {
			host.getOutputStream().close();
			host.destroy();
			host.waitFor(10, TimeUnit.SECONDS);
		}
	}

	/** Every cluster decided once, one after the other (one timer thread); returns the peer reads. */
	private static long tick(PollingManager manager, List<String> clusters, List<Long> latencies) {
		long reads = 0;
		for (String cluster : clusters) {
			long start = System.nanoTime();
			Decision decision = manager.decide(cluster);
			long took = System.nanoTime() - start;
			if (!decision.isGranted()) {
				throw new IllegalStateException("lost " + cluster + ": " + decision);
			}
			if (latencies != null) {
				latencies.add(took);
			}
			reads += decision.peers().stream().filter((o) -> o.state() == dev.polling.core.PeerState.ANSWERED).count();
		}
		return reads;
	}

	/** Median of one cached attribute read, and of {@code ports.length} reads in parallel (one per peer). */
	private static double[] floor(int[] ports, int clusterCount) throws Exception {
		List<JMXConnector> connectors = new ArrayList<>();
		ExecutorService pool = Executors.newFixedThreadPool(ports.length);
		try {
			List<MBeanServerConnection> connections = new ArrayList<>();
			for (int port : ports) {
				JMXConnector connector = JMXConnectorFactory
					.connect(new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + port + "/jmxrmi"));
				connectors.add(connector);
				connections.add(connector.getMBeanServerConnection());
			}
			ObjectName name = connections.get(0).queryNames(new ObjectName("*:*"), null).stream()
				.filter((n) -> n.toString().contains(ScalingPeers.clusterIds(clusterCount).get(0)))
				.findFirst()
				.orElseThrow();
			String attribute = connections.get(0).getMBeanInfo(name).getAttributes()[0].getName();
			long[] single = new long[2000];
			long[] parallel = new long[500];
			for (int i = 0; i < single.length; i++) {
				long s = System.nanoTime();
				connections.get(0).getAttribute(name, attribute);
				single[i] = System.nanoTime() - s;
			}
			for (int i = 0; i < parallel.length; i++) {
				long s = System.nanoTime();
				List<Future<Object>> reads = new ArrayList<>();
				for (MBeanServerConnection c : connections) {
					reads.add(pool.submit(() -> c.getAttribute(name, attribute)));
				}
				for (Future<Object> f : reads) {
					f.get();
				}
				parallel[i] = System.nanoTime() - s;
			}
			Arrays.sort(single);
			Arrays.sort(parallel);
			return new double[] { single[single.length / 2] / 1e6, parallel[parallel.length / 2] / 1e6 };
		}
		finally {
			pool.shutdownNow();
			for (JMXConnector c : connectors) {
				c.close();
			}
		}
	}

	/** This JVM's bytes read and written so far ({@code rchar}, {@code wchar}), or -1 where /proc is absent. */
	private static long[] io() {
		try {
			long r = -1;
			long w = -1;
			for (String line : Files.readAllLines(Path.of("/proc/self/io"))) {
				if (line.startsWith("rchar:")) {
					r = Long.parseLong(line.substring(6).strip());
				}
				else if (line.startsWith("wchar:")) {
					w = Long.parseLong(line.substring(6).strip());
				}
			}
			return new long[] { r, w };
		}
		catch (IOException ex) {
			return new long[] { -1, -1 };
		}
	}

	private static int[] readPorts(Process host) throws IOException {
		BufferedReader out = new BufferedReader(new InputStreamReader(host.getInputStream(), StandardCharsets.UTF_8));
		String line;
		while ((line = out.readLine()) != null && !line.startsWith("PORTS ")) {
			// skip
		}
		if (line == null) {
			throw new IllegalStateException("peer host did not start");
		}
		return parse(line.substring(6));
	}

	private static int[] parse(String list) {
		return Arrays.stream(list.split(",")).mapToInt(Integer::parseInt).toArray();
	}

}
