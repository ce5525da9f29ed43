package dev.polling.benchmarks;

import java.util.Arrays;
import java.nio.charset.StandardCharsets;
import java.io.InputStreamReader;
import java.io.BufferedReader;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;

import dev.polling.core.ClusterDefinition;
import dev.polling.core.PollingManager;
import dev.polling.core.PollingSettings;
import dev.polling.core.JmxContract;
import dev.polling.core.jmx.JmxServerSettings;
import dev.polling.core.jmx.PollingJmxServer;
import dev.polling.core.test.FaultyPeers;

/**
 * The peers for the benchmarks, in a JVM of their own: {@code n} idle instances (each a JMX server
 * with the cluster MBean, never polling), one active instance (holding the cluster), and one hung
 * port (accepts TCP, never answers). Prints one line {@code PORTS idle1,idle2,... active hung} and
 * runs until standard input closes.
 *
 * <p>With a second argument {@code isy} (for {@link SideBySideBenchmark}) the instances serve
 * isy-polling's JMX contract ({@link JmxContract#ISY_POLLING}, domain {@value #ISY_DOMAIN}) with
 * plain JDK stubs, so that isy-polling 4.0.0 and this library read the same peers (start the JVM with
 * {@code -Djava.rmi.server.hostname=127.0.0.1}); a second line
 * {@code FAULTS refused hung blackholed blocked} names a refusing port, a hung port, a blackholed
 * port (full listen backlog) and a JMX server whose cluster MBean blocks in every getter.
 */
public final class PeerHost {

	public static final String CLUSTER = "MAILABRUF_CLUSTER";

	/**
	 * The peer timeout of the peers, and of the benchmarks' own instance: instances of a cluster must
	 * run with the same settings, or they refuse each other ({@code settings-mismatch}).
	 */
	public static final Duration PEER_TIMEOUT = Duration.ofSeconds(1);

	/** The JMX domain of the peers in {@code isy} mode (isy-polling's default). */
	public static final String ISY_DOMAIN = "de.bund.bva.isyfact.polling";

	private PeerHost() {
	}

	/**
	 * The ports from a started peer host's {@code PORTS} line: the idle instances', then the active
	 * one's, then the hung port.
	 * @param host the peer host process
	 * @return the ports
	 * @throws IOException if its output cannot be read
	 */
	static int[] readPorts(Process host) throws IOException {
		BufferedReader out = new BufferedReader(new InputStreamReader(host.getInputStream(), StandardCharsets.UTF_8));
		String line;
		while ((line = out.readLine()) != null && !line.startsWith("PORTS ")) {
			// skip
		}
		if (line == null) {
			throw new IllegalStateException("peer host did not start");
		}
		String[] parts = line.split(" ");
		int[] idle = Arrays.stream(parts[1].split(",")).mapToInt(Integer::parseInt).toArray();
		int[] ports = Arrays.copyOf(idle, idle.length + 2);
		ports[idle.length] = Integer.parseInt(parts[2]);
		ports[idle.length + 1] = Integer.parseInt(parts[3]);
		return ports;
	}

	public static void main(String[] args) throws Exception {
		int idle = Integer.parseInt(args[0]);
		boolean isy = args.length > 1 && args[1].equals("isy");
		List<String> idlePorts = new ArrayList<>();
		List<AutoCloseable> resources = new ArrayList<>();
		for (int i = 0; i < idle; i++) {
			idlePorts.add(String.valueOf(instance("idle-" + i, resources, false, isy)));
		}
		int active = instance("active", resources, true, isy);
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
		FaultyPeers faults = new FaultyPeers();
		if (isy) {
			PollingJmxServer blocked = PollingJmxServer
				.start(JmxServerSettings.loopback(0).withPortableStubs(true).withReadableDomains(Set.of(ISY_DOMAIN)));
			blocked.mbeanServer()
				.registerMBean(new BlockedStatus(), JmxContract.ISY_POLLING.objectName(ISY_DOMAIN, ClusterDefinition.of(CLUSTER,
						Duration.ofSeconds(600))));
			resources.add(blocked);
			System.out.println("FAULTS " + faults.refusingPort() + " " + faults.hungPort() + " " + faults.blackholedPort() + " "
					+ blocked.port());
		}
		System.out.flush();
		while (System.in.read() >= 0) {
			// until the benchmark goes away
		}
		System.exit(0);
	}

	private static int instance(String id, List<AutoCloseable> resources, boolean holding, boolean isy) throws IOException {
		JmxServerSettings serverSettings = JmxServerSettings.loopback(0).withPortableStubs(isy);
		PollingJmxServer server = PollingJmxServer
			.start(isy ? serverSettings.withReadableDomains(Set.of(ISY_DOMAIN)) : serverSettings);
		PollingSettings settings = PollingSettings.defaults().withInstanceId(id).withPeerTimeout(PEER_TIMEOUT);
		if (isy) {
			settings = settings.withJmxContract(JmxContract.ISY_POLLING).withJmxDomain(ISY_DOMAIN);
		}
		PollingManager manager = PollingManager.builder()
			.settings(settings)
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

	/** A cluster MBean whose getters never return (a peer with a stuck thread). */
	public interface BlockedStatusMBean {

		/** isy-polling's attribute: blocks forever. */
		long getZeitraumLetztePollingAktivitaet();

		/** This library's attribute: blocks forever. */
		long getElapsedMillis();

	}

	/** The blocking implementation of {@link BlockedStatusMBean}. */
	public static final class BlockedStatus implements BlockedStatusMBean {

		private final CountDownLatch never = new CountDownLatch(1);

		@Override
		public long getZeitraumLetztePollingAktivitaet() {
			return block();
		}

		@Override
		public long getElapsedMillis() {
			return block();
		}

		private long block() {
			try {
				this.never.await();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			return 0;
		}

	}

}
