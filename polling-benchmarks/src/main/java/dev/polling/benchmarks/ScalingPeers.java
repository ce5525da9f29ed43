package dev.polling.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.polling.core.ClusterDefinition;
import dev.polling.core.PollingManager;
import dev.polling.core.PollingSettings;
import dev.polling.core.jmx.JmxServerSettings;
import dev.polling.core.jmx.PollingJmxServer;

/**
 * The peers of {@link ScalingBenchmark}, in a JVM of their own: {@code n} idle instances, each a JMX
 * server with the MBeans of {@code clusters} clusters ({@code S001...}), never polling. Prints
 * {@code PORTS p1,p2,...} and runs until standard input closes.
 *
 * <p>Arguments: {@code n clusters}.
 */
public final class ScalingPeers {

	private ScalingPeers() {
	}

	/** The cluster ids of a run with {@code count} clusters. */
	static List<String> clusterIds(int count) {
		List<String> ids = new ArrayList<>();
		for (int i = 1; i <= count; i++) {
			ids.add(String.format("S%03d", i));
		}
		return ids;
	}

	/** The clusters as every instance of a run defines them (same wait time everywhere). */
	static List<ClusterDefinition> clusters(int count) {
		return clusterIds(count).stream().map((id) -> ClusterDefinition.of(id, Duration.ofSeconds(20))).toList();
	}

	public static void main(String[] args) throws Exception {
		int n = Integer.parseInt(args[0]);
		int clusters = Integer.parseInt(args[1]);
		List<String> ports = new ArrayList<>();
		List<AutoCloseable> resources = new ArrayList<>();
		for (int i = 0; i < n; i++) {
			PollingJmxServer server = PollingJmxServer.start(JmxServerSettings.loopback(0));
			PollingManager manager = PollingManager.builder()
				.settings(PollingSettings.defaults().withInstanceId("peer-" + i).withPeerTimeout(PeerHost.PEER_TIMEOUT))
				.clusters(clusters(clusters))
				.mbeanServer(server.mbeanServer())
				.build();
			resources.add(manager);
			resources.add(server);
			ports.add(String.valueOf(server.port()));
		}
		System.out.println("PORTS " + String.join(",", ports));
		System.out.flush();
		while (System.in.read() >= 0) {
			// until the benchmark goes away
		}
		System.exit(0);
	}

}
