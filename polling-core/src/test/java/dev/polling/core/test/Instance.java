package dev.polling.core.test;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

import dev.polling.core.ClusterDefinition;
import dev.polling.core.PeerDefinition;
import dev.polling.core.PollingManager;
import dev.polling.core.PollingSettings;
import dev.polling.core.TestBuilders;
import dev.polling.core.jmx.JmxServerSettings;
import dev.polling.core.jmx.PollingJmxServer;

/**
 * One "instance" inside a test JVM: its own JMX connector server on a free loopback port with a
 * dedicated MBean server, and a manager registered there. Several form a cluster of real peers.
 */
public final class Instance implements AutoCloseable {

	public static final String CLUSTER = "MAILABRUF_CLUSTER";

	private final PollingJmxServer server;

	private PollingManager manager;

	private final String instanceId;

	private Instance(String instanceId, PollingJmxServer server) {
		this.instanceId = instanceId;
		this.server = server;
	}

	/** Starts the JMX server of a new instance; call {@link #connect} to create its manager. */
	public static Instance start(String instanceId) {
		return start(instanceId, JmxServerSettings.loopback(0));
	}

	public static Instance start(String instanceId, JmxServerSettings settings) {
		try {
			return new Instance(instanceId, PollingJmxServer.start(settings));
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

	public PeerDefinition asPeer() {
		return PeerDefinition.of(this.instanceId, "127.0.0.1", this.server.port());
	}

	/**
	 * Creates this instance's manager with the given peers (the list may include this instance
	 * itself) and one cluster {@link #CLUSTER} with a 10 s wait time.
	 */
	public PollingManager connect(List<PeerDefinition> peers, UnaryOperator<PollingSettings> settings) {
		return connect(peers, settings, UnaryOperator.identity());
	}

	/** As {@link #connect(List, UnaryOperator)}, with a last word on the builder (time source, listener). */
	public PollingManager connect(List<PeerDefinition> peers, UnaryOperator<PollingSettings> settings,
			UnaryOperator<PollingManager.Builder> customizer) {
		PollingSettings base = PollingSettings.defaults().withInstanceId(this.instanceId).withPeerTimeout(Duration.ofSeconds(2)); // a first JMX connect in a cold JVM on a loaded 2-core machine took over 500 ms
		this.manager = customizer.apply(TestBuilders.ignoringStarvation(PollingManager.builder())
			.settings(settings.apply(base))
			.cluster(ClusterDefinition.of(CLUSTER, Duration.ofSeconds(10)))
			.peers(peers)
			.mbeanServer(this.server.mbeanServer()))
			.build();
		return this.manager;
	}

	/** Starts {@code n} instances named a, b, c ... and connects them to each other through one shared peer list. */
	public static List<Instance> cluster(int n, UnaryOperator<PollingSettings> settings) {
		return cluster(n, settings, UnaryOperator.identity());
	}

	public static List<Instance> cluster(int n, UnaryOperator<PollingSettings> settings, UnaryOperator<PollingManager.Builder> customizer) {
		List<Instance> instances = new ArrayList<>();
		for (int i = 0; i < n; i++) {
			instances.add(start(String.valueOf((char) ('a' + i))));
		}
		List<PeerDefinition> peers = instances.stream().map(Instance::asPeer).toList();
		instances.forEach((instance) -> instance.connect(peers, settings, customizer));
		return instances;
	}

	/** Takes a manager built elsewhere for this instance's server, to close it with the instance. */
	public void adopt(PollingManager manager) {
		this.manager = manager;
	}

	public PollingManager manager() {
		return this.manager;
	}

	public PollingJmxServer server() {
		return this.server;
	}

	public String id() {
		return this.instanceId;
	}

	@Override
	public void close() {
		if (this.manager != null) {
			this.manager.close();
		}
		this.server.close();
	}

}
