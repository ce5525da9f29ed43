package dev.polling.benchmarks;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import dev.polling.core.ClusterDefinition;
import dev.polling.core.Decision;
import dev.polling.core.PeerDefinition;
import dev.polling.core.PollingManager;
import dev.polling.core.PollingSettings;

/**
 * Latency of {@link PollingManager#decide(String)} against real peers in another JVM (see
 * {@link PeerHost}): the holder renewing with 1 and 3 idle peers, a standby refused by an active
 * peer among 3, a candidate acquiring with 3 idle peers (announce + settle), and the holder with one
 * hung peer. Prints median, p99 and max per scenario.
 *
 * <p>Run: {@code polling-benchmarks/run.sh DecisionBenchmark [iterations]}
 */
public final class DecisionBenchmark {

	private static final String CLUSTER = PeerHost.CLUSTER;

	private DecisionBenchmark() {
	}

	public static void main(String[] args) throws Exception {
		System.setProperty("org.slf4j.simpleLogger.log.dev.polling.core.PollingManager", "error");
		int iterations = (args.length > 0) ? Integer.parseInt(args[0]) : 20_000;
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		Process host = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), PeerHost.class.getName(), "3")
			.redirectError(ProcessBuilder.Redirect.DISCARD)
			.start();
		try {
			int[] ports = PeerHost.readPorts(host);
			int[] idle = Arrays.copyOf(ports, ports.length - 2);
			int active = ports[ports.length - 2];
			int hung = ports[ports.length - 1];
			System.out.printf("decide() against peers in another JVM; %d iterations per scenario; java %s; %d cores%n", iterations,
					System.getProperty("java.version"), Runtime.getRuntime().availableProcessors());
			System.out.printf("%-44s %10s %10s %10s%n", "scenario", "median ms", "p99 ms", "max ms");

			run("holder renews, 1 idle peer", peers(idle[0]), iterations, false, PeerHost.PEER_TIMEOUT);
			run("holder renews, 3 idle peers", peers(idle), iterations, false, PeerHost.PEER_TIMEOUT);
			run("standby refused, first of 3 peers active", peers(active, idle[1], idle[2]), iterations, false,
					PeerHost.PEER_TIMEOUT);
			run("candidate acquires, 3 idle peers (settle 50 ms)", peers(idle), Math.min(iterations, 200), true,
					PeerHost.PEER_TIMEOUT);
			// One decision every 300 ms, like a timer: some wait for the hung peer, others find its request still pending.
			spaced("holder renews, 1 hung peer (timeout 1 s)", peers(hung), 30, Duration.ofSeconds(1));
			spaced("holder renews, 2 idle + 1 hung (timeout 1 s)", peers(idle[0], idle[1], hung), 30, Duration.ofSeconds(1));
			spaced("candidate, 1 hung peer (timeout 1 s)", peers(hung), 30, Duration.ofSeconds(1), true);
		}
		finally {
			host.getOutputStream().close();
			host.destroy();
		}
	}

	private static List<PeerDefinition> peers(int... ports) {
		List<PeerDefinition> peers = new ArrayList<>();
		for (int port : ports) {
			peers.add(PeerDefinition.of("peer-" + port, "127.0.0.1", port));
		}
		return peers;
	}

	private static void run(String name, List<PeerDefinition> peers, int iterations, boolean releaseEachTime, Duration timeout) {
		try (PollingManager manager = PollingManager.builder()
			.settings(PollingSettings.defaults().withInstanceId("bench").withPeerTimeout(timeout))
			.cluster(ClusterDefinition.of(CLUSTER, Duration.ofSeconds(600)))
			.peers(peers)
			.build()) {
			int warmup = Math.min(iterations, 2_000);
			for (int i = 0; i < warmup; i++) {
				decide(manager, releaseEachTime);
			}
			long[] nanos = new long[iterations];
			for (int i = 0; i < iterations; i++) {
				long start = System.nanoTime();
				decide(manager, releaseEachTime);
				nanos[i] = System.nanoTime() - start;
			}
			Arrays.sort(nanos);
			System.out.printf(Locale.ROOT, "%-44s %10.3f %10.3f %10.3f%n", name, nanos[iterations / 2] / 1e6,
					nanos[(int) Math.min(iterations - 1, Math.ceil(iterations * 0.99) - 1)] / 1e6, nanos[iterations - 1] / 1e6);
		}
	}

	private static void spaced(String name, List<PeerDefinition> peers, int iterations, Duration timeout) throws InterruptedException {
		spaced(name, peers, iterations, timeout, false);
	}

	private static void spaced(String name, List<PeerDefinition> peers, int iterations, Duration timeout, boolean release)
			throws InterruptedException {
		try (PollingManager manager = PollingManager.builder()
			.settings(PollingSettings.defaults().withInstanceId("bench").withPeerTimeout(timeout))
			.cluster(ClusterDefinition.of(CLUSTER, Duration.ofSeconds(600)))
			.peers(peers)
			.build()) {
			long[] nanos = new long[iterations];
			int waited = 0;
			for (int i = 0; i < iterations; i++) {
				long start = System.nanoTime();
				decide(manager, release);
				nanos[i] = System.nanoTime() - start;
				if (nanos[i] > timeout.toNanos() / 2) {
					waited++;
				}
				Thread.sleep(300);
			}
			Arrays.sort(nanos);
			System.out.printf(Locale.ROOT, "%-44s %10.3f %10.3f %10.3f  (%d of %d waited for the peer)%n", name,
					nanos[iterations / 2] / 1e6, nanos[(int) Math.ceil(iterations * 0.99) - 1] / 1e6, nanos[iterations - 1] / 1e6, waited,
					iterations);
		}
	}

	private static Decision decide(PollingManager manager, boolean release) {
		if (release) {
			manager.release(CLUSTER);
		}
		return manager.decide(CLUSTER);
	}

}
