package dev.polling.core.jmx;

import dev.polling.core.JmxNames;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.SSLContext;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.polling.core.ClusterDefinition;
import dev.polling.core.PeerDefinition;
import dev.polling.core.PeerFault;
import dev.polling.core.PeerObservation;
import dev.polling.core.PeerState;
import dev.polling.core.PollingSettings;
import dev.polling.core.TimeSource;
import dev.polling.core.test.TestCertificates;

/**
 * A cached connection that the peer has dropped (idle timeout of its connector server, restart of
 * the peer on the same port) must not make a healthy peer look unknown: the client reconnects and
 * reads again within the caller's timeout.
 */
class JmxPeerClientReconnectTest {

	private static final Duration TIMEOUT = Duration.ofSeconds(2);

	private static final ClusterDefinition CLUSTER = ClusterDefinition.of("MAILABRUF_CLUSTER", Duration.ofSeconds(10));

	private final JmxPeerClient client = new JmxPeerClient(PollingSettings.defaults(), TimeSource.SYSTEM);

	@TempDir
	static Path certificates;

	static Path serverKeys;

	static Path clientKeys;

	private final List<AutoCloseable> closeables = new ArrayList<>();

	private AutoCloseable server;

	@BeforeAll
	static void makeCertificates() {
		serverKeys = TestCertificates.keyStore(certificates, "server");
		clientKeys = TestCertificates.keyStore(certificates, "client");
	}

	@AfterEach
	void close() throws Exception {
		this.client.close();
		for (AutoCloseable closeable : this.closeables) {
			closeable.close();
		}
		if (this.server != null) {
			this.server.close();
		}
	}

	@Test
	void readsAgainAfterThePeerClosedTheIdleConnection() throws Exception {
		BareJmxServer peer = BareJmxServer.start(Duration.ofMillis(200));
		this.server = peer;
		peer.mbeanServer().registerMBean(new FakeClusterMBeans.Answering("peer-1", 42), clusterName());
		assertAnswered(observe(peer.asPeer("peer")), "peer-1");
		// the server closes the connection once it has been idle for 200 ms
		assertThat(peer.awaitClosedConnection()).as("connection closed by the server").isNotNull();
		assertAnswered(observe(peer.asPeer("peer")), "peer-1");
	}

	@Test
	void readsAgainAfterThePeerClosedTheIdleConnectionOverTls() throws Exception {
		BareJmxServer peer = BareJmxServer.startTls(Duration.ofMillis(200), TestCertificates.context(serverKeys, clientKeys));
		this.server = peer;
		peer.mbeanServer().registerMBean(new FakeClusterMBeans.Answering("peer-1", 42), clusterName());
		JmxPeerClient tlsClient = tlsClient();
		assertAnswered(observe(tlsClient, peer.asPeer("peer")), "peer-1");
		assertThat(peer.awaitClosedConnection()).as("connection closed by the server").isNotNull();
		assertAnswered(observe(tlsClient, peer.asPeer("peer")), "peer-1");
	}

	@Test
	void readsThePeerRestartedOnTheSamePort() throws Exception {
		int port = freePort();
		BareJmxServer first = BareJmxServer.start(port, null);
		this.server = first;
		first.mbeanServer().registerMBean(new FakeClusterMBeans.Answering("before-restart", 42), clusterName());
		PeerDefinition peer = first.asPeer("peer");
		assertAnswered(observe(peer), "before-restart");
		first.kill();
		BareJmxServer second = BareJmxServer.start(port, null);
		this.server = second;
		second.mbeanServer().registerMBean(new FakeClusterMBeans.Answering("after-restart", 42), clusterName());
		assertAnswered(observe(peer), "after-restart");
	}

	@Test
	void readsThePeerRestartedOnTheSamePortOverTls() throws Exception {
		int port = freePort();
		SSLContext serverTls = TestCertificates.context(serverKeys, clientKeys);
		BareJmxServer first = BareJmxServer.startTls(port, null, serverTls);
		this.server = first;
		first.mbeanServer().registerMBean(new FakeClusterMBeans.Answering("before-restart", 42), clusterName());
		PeerDefinition peer = first.asPeer("peer");
		JmxPeerClient tlsClient = tlsClient();
		assertAnswered(observe(tlsClient, peer), "before-restart");
		first.kill();
		BareJmxServer second = BareJmxServer.startTls(port, null, serverTls);
		this.server = second;
		second.mbeanServer().registerMBean(new FakeClusterMBeans.Answering("after-restart", 42), clusterName());
		assertAnswered(observe(tlsClient, peer), "after-restart");
	}

	private PeerObservation observe(PeerDefinition peer) throws Exception {
		return observe(this.client, peer);
	}

	private static PeerObservation observe(JmxPeerClient client, PeerDefinition peer) throws Exception {
		return client.observe(peer, CLUSTER, TIMEOUT).get(TIMEOUT.toMillis() + 1000, TimeUnit.MILLISECONDS);
	}

	private JmxPeerClient tlsClient() {
		JmxPeerClient tlsClient = new JmxPeerClient(PollingSettings.defaults(), TimeSource.SYSTEM,
				JmxPeerClient.DEFAULT_MAX_PENDING_PER_PEER, Map.of("peer", TestCertificates.context(clientKeys, serverKeys)));
		this.closeables.add(tlsClient);
		return tlsClient;
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
	}

	private static void assertAnswered(PeerObservation observation, String instanceId) {
		assertThat(observation.state()).as(observation.toString()).isEqualTo(PeerState.ANSWERED);
		assertThat(observation.fault()).isEqualTo(PeerFault.NONE);
		assertThat(observation.instanceId()).isEqualTo(instanceId);
		assertThat(observation.elapsedMillis()).isEqualTo(42);
	}

	private static javax.management.ObjectName clusterName() {
		return JmxNames.clusterName("dev.polling", CLUSTER.id());
	}

}
