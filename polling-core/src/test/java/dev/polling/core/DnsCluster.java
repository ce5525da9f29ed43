package dev.polling.core;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;

import dev.polling.core.test.ManualTime;
import dev.polling.core.discovery.DnsDiscovery;

/**
 * Instances that find each other through a DNS name, deterministic: one manual clock, a scripted
 * name (the addresses it resolves to, per instance, and resolvers that fail or hang), resolutions
 * and decisions run by the test one after the other, and a peer client that reads the target's
 * cluster MBean in the same JVM (the attributes a real peer reads over JMX). An instance that is not
 * running refuses connections.
 */
final class DnsCluster implements AutoCloseable {

	static final String CLUSTER = "ORDERS";

	static final String NAME = "orders-polling.test";

	static final int PORT = 9010;

	static final Duration WAIT = Duration.ofSeconds(10);

	static final Duration INTERVAL = Duration.ofSeconds(1);

	final ManualTime time = new ManualTime();

	/** The addresses the name resolves to, in order. */
	final Set<String> records = new LinkedHashSet<>();

	final Map<String, Node> nodes = new LinkedHashMap<>();

	/** One instance: its address, manager and resolver state. */
	final class Node {

		final String id;

		final String address;

		final MBeanServer mbeans = MBeanServerFactory.newMBeanServer();

		final PollingManager manager;

		boolean running = true;

		/** Whether its resolutions fail (the name server is unreachable). */
		boolean resolverFails;

		/** Whether its resolver hangs: no resolution completes. */
		boolean resolverHangs;

		Node(String id, String address) {
			this.id = id;
			this.address = address;
			PollingManager.Builder builder = PollingManager.builder()
				.settings(PollingSettings.defaults().withInstanceId(id).withPeerTimeout(Duration.ofMillis(500)))
				.cluster(ClusterDefinition.of(CLUSTER, WAIT))
				.discovery(DnsDiscovery.of(NAME, PORT).withInterval(INTERVAL))
				.peerResolver(this::resolve)
				.resolveInBackground(false)
				.timeSource(DnsCluster.this.time)
				.peerClient(new InProcessPeers())
				.mbeanServer(this.mbeans);
			this.manager = builder.stopSource(new StopSource() {

				@Override
				public long stops() {
					return 0;
				}

				@Override
				public boolean stoppedWithin(Duration window) {
					return false;
				}

			}).build();
		}

		private List<InetAddress> resolve(String name) throws IOException {
			if (this.resolverFails) {
				throw new UnknownHostException(name + ": name server unreachable");
			}
			List<InetAddress> addresses = new ArrayList<>();
			for (String record : DnsCluster.this.records) {
				addresses.add(InetAddress.getByAddress(name, InetAddress.getByName(record).getAddress()));
			}
			return addresses;
		}

		/** Resolves once, as the discovery thread does every interval; nothing when the resolver hangs. */
		void refresh() {
			if (!this.resolverHangs) {
				this.manager.refreshDiscovery();
			}
		}

		Decision decide() {
			return this.manager.decide(CLUSTER);
		}

		boolean holds() {
			return this.running && this.manager.isHolding(CLUSTER);
		}

		/** The ids of the peers the cluster asks now. */
		List<String> peerIds() {
			return this.manager.status(CLUSTER).peerIds();
		}

	}

	/** Starts an instance at the address (not yet in the records). */
	Node start(String id, String address) {
		Node node = new Node(id, address);
		this.nodes.put(address + ":" + PORT, node);
		return node;
	}

	/** Who holds the cluster now, among the running instances. */
	List<String> holders() {
		List<String> holders = new ArrayList<>();
		for (Node node : this.nodes.values()) {
			if (node.holds()) {
				holders.add(node.id);
			}
		}
		return holders;
	}

	@Override
	public void close() {
		this.nodes.values().forEach((node) -> node.manager.close());
	}

	/** Reads the target instance's cluster MBean in this JVM; an instance that does not run refuses the connection. */
	private final class InProcessPeers implements PeerClient {

		@Override
		public CompletableFuture<PeerObservation> observe(PeerDefinition peer, ClusterDefinition cluster, Duration timeout) {
			Node target = DnsCluster.this.nodes.get(peer.address());
			if (target == null || !target.running) {
				return CompletableFuture.completedFuture(PeerObservation.failed(peer, PeerState.REFUSED, PeerFault.CONNECTION_REFUSED, Duration.ZERO,
						DnsCluster.this.time.now(), "connection refused"));
			}
			try {
				AttributeList attributes = target.mbeans.getAttributes(JmxNames.clusterName(PollingSettings.DEFAULT_JMX_DOMAIN, cluster.id()),
						new String[] { PollingClusterMXBean.COORDINATION_STATE, PollingClusterMXBean.INSTANCE_ID });
				long[] state = null;
				String instanceId = null;
				for (Attribute a : attributes.asList()) {
					if (a.getName().equals(PollingClusterMXBean.COORDINATION_STATE)) {
						state = (long[]) a.getValue();
					}
					else {
						instanceId = (String) a.getValue();
					}
				}
				return CompletableFuture.completedFuture(new PeerObservation(peer.id(), peer.address(), PeerState.ANSWERED, PeerFault.NONE,
						instanceId, state[0], state[1], Duration.ZERO, DnsCluster.this.time.now(), null, (int) state[2],
						new PeerObservation.Published(state[3], state[4], state[5], state[6])));
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		}

		@Override
		public void close() {
		}

	}

}
