package dev.polling.core.e2e;

import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

import dev.polling.core.ClusterDefinition;
import dev.polling.core.discovery.DnsDiscovery;
import dev.polling.core.discovery.PeerResolver;
import dev.polling.core.PollingManager;
import dev.polling.core.PollingSettings;
import dev.polling.core.jmx.JmxServerSettings;
import dev.polling.core.jmx.PollingJmxServer;

/**
 * One instance as its own process that finds its peers through a DNS name (in the tests: the JDK's
 * hosts-file resolver, {@code -Djdk.net.hosts.file}), with one cluster ticking at a fixed delay. It
 * prints each resolution ({@code resolved <start nanos> <addresses>}) and each change of the peers
 * its cluster asks ({@code peers <nanos> <ids>}); {@code System.nanoTime()} is the machine's
 * monotonic clock, the same in every process on Linux. Exits when standard input closes.
 *
 * <p>Arguments: instance-id bind-address port dns-name interval-millis tick-millis peer-timeout-millis wait-time-millis
 */
public final class DnsPeerProcess {

	public static final String CLUSTER = "ORDERS";

	private DnsPeerProcess() {
	}

	public static void main(String[] args) throws IOException {
		String id = args[0];
		String bind = args[1];
		int port = Integer.parseInt(args[2]);
		String name = args[3];
		Duration interval = Duration.ofMillis(Long.parseLong(args[4]));
		long tick = Long.parseLong(args[5]);
		Duration timeout = Duration.ofMillis(Long.parseLong(args[6]));
		Duration waitTime = Duration.ofMillis(Long.parseLong(args[7]));
		PollingJmxServer server = PollingJmxServer.start(new JmxServerSettings(bind, port, null, null, null, false, Duration.ofSeconds(30),
				false));
		PeerResolver logging = (host) -> {
			long start = System.nanoTime();
			try {
				List<InetAddress> addresses = PeerResolver.SYSTEM.resolve(host);
				print("resolved " + start + " " + addresses.stream().map(InetAddress::getHostAddress).sorted().collect(Collectors.joining(",")));
				return addresses;
			}
			catch (IOException ex) {
				print("resolved " + start + " failed " + ex.getMessage());
				throw ex;
			}
		};
		PollingManager manager = PollingManager.builder()
			.settings(PollingSettings.defaults().withInstanceId(id).withPeerTimeout(timeout))
			.cluster(ClusterDefinition.of(CLUSTER, waitTime))
			.discovery(DnsDiscovery.of(name, port).withInterval(interval))
			.peerResolver(logging)
			.mbeanServer(server.mbeanServer())
			.build();
		String[] lastPeers = { "" };
		String[] lastReason = { "" };
		PeerProcess.tickUntilTheParentGoes(manager, server, CLUSTER, tick, (decision) -> {
			if (!decision.reason().name().equals(lastReason[0])) {
				lastReason[0] = decision.reason().name();
				print("decided " + System.nanoTime() + " " + decision.reason() + ((decision.detail() != null) ? " " + decision.detail() : ""));
			}
			String peers = String.join(",", manager.status(CLUSTER).peerIds());
			if (!peers.equals(lastPeers[0])) {
				lastPeers[0] = peers;
				print("peers " + System.nanoTime() + " " + peers);
			}
		}, "READY " + id + " " + bind + ":" + server.port());
	}

	private static synchronized void print(String line) {
		System.out.println(line);
		System.out.flush();
	}

}
