package dev.polling.benchmarks;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.polling.core.ClusterDefinition;
import dev.polling.core.PollingManager;
import dev.polling.core.PollingSettings;
import dev.polling.core.jmx.JmxServerSettings;
import dev.polling.core.jmx.PollingJmxServer;

/**
 * The peers for the benchmarks, in a JVM of their own: {@code n} idle instances (each a JMX server
 * with the cluster MBean, never polling), one active instance (holding the cluster), and one hung
 * port (accepts TCP, never answers). Prints one line {@code PORTS idle1,idle2,... active hung} and
 * runs until standard input closes.
 */
public final class PeerHost {

	public static final String CLUSTER = "MAILABRUF_CLUSTER";

	private PeerHost() {
	}

	public static void main(String[] args) throws Exception {
		int idle = Integer.parseInt(args[0]);
		List<String> idlePorts = new ArrayList<>();
		List<AutoCloseable> resources = new ArrayList<>();
		for (int i = 0; i < idle; i++) {
			idlePorts.add(String.valueOf(instance("idle-" + i, resources, false)));
		}
		int active = instance("active", resources, true);
		ServerSocket hung = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		List<Socket> accepted = new ArrayList<>();
		Thread acceptor = new Thread(() -> {
			while (true) {
				try {
					accepted.add(hung.accept());
				}
				catch (IOException ex) {
					return;
				}
			}
		});
		acceptor.setDaemon(true);
		acceptor.start();
		System.out.println("PORTS " + String.join(",", idlePorts) + " " + active + " " + hung.getLocalPort());
		System.out.flush();
		while (System.in.read() >= 0) {
			// until the benchmark goes away
		}
		System.exit(0);
	}

	private static int instance(String id, List<AutoCloseable> resources, boolean holding) throws IOException {
		PollingJmxServer server = PollingJmxServer.start(JmxServerSettings.loopback(0));
		PollingManager manager = PollingManager.builder()
			.settings(PollingSettings.defaults().withInstanceId(id))
			.cluster(ClusterDefinition.of(CLUSTER, Duration.ofSeconds(600)))
			.mbeanServer(server.mbeanServer())
			.build();
		if (holding) {
			manager.decide(CLUSTER);
		}
		resources.add(manager);
		resources.add(server);
		return server.port();
	}

}
