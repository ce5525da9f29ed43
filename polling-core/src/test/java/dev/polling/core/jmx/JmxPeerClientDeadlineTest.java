package dev.polling.core.jmx;

import dev.polling.core.JmxNames;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import javax.management.MBeanServerFactory;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.polling.core.ClusterDefinition;
import dev.polling.core.PeerDefinition;
import dev.polling.core.PeerFault;
import dev.polling.core.PeerObservation;
import dev.polling.core.PeerState;
import dev.polling.core.PollingSettings;
import dev.polling.core.TimeSource;
import dev.polling.core.jmx.PollingJmxServer.ServerTls;
import dev.polling.core.test.FaultyPeers.Gate;
import dev.polling.core.test.TestCertificates;

/**
 * A read that the peer does not answer ties up its worker thread for the caller's peer timeout,
 * not for the call timeout (30 s) that the peer's server put into its stubs.
 */
class JmxPeerClientDeadlineTest {

	private static final Duration TIMEOUT = Duration.ofMillis(1500); // with 300 ms, at load average 20 the blocked request did not reach the server before the client gave up

	private static final ClusterDefinition CLUSTER = ClusterDefinition.of("MAILABRUF_CLUSTER", Duration.ofSeconds(10));

	@TempDir
	Path certificates;

	private final Gate gate = new Gate();

	private JmxPeerClient client;

	private PollingJmxServer server;

	@AfterEach
	void close() {
		this.gate.close();
		if (this.client != null) {
			this.client.close();
		}
		if (this.server != null) {
			this.server.close();
		}
	}

	/** The server and the client, with mutual TLS (certificates of a CA of this test's own). */
	private void startOverTls() throws Exception {
		Path serverKeys = TestCertificates.keyStore(this.certificates, "server");
		Path clientKeys = TestCertificates.keyStore(this.certificates, "client");
		this.server = PollingJmxServer.start(JmxServerSettings.loopback(0), MBeanServerFactory.newMBeanServer(),
				new ServerTls(TestCertificates.context(serverKeys, clientKeys), false));
		this.client = new JmxPeerClient(PollingSettings.defaults(), TimeSource.SYSTEM, JmxPeerClient.DEFAULT_MAX_PENDING_PER_PEER,
				Map.of("peer", TestCertificates.context(clientKeys, serverKeys)));
	}

	@Test
	void freesTheWorkerOfABlockedGetterAfterThePeerTimeout() throws Exception {
		this.server = PollingJmxServer.start(JmxServerSettings.loopback(0));
		this.client = new JmxPeerClient(PollingSettings.defaults(), TimeSource.SYSTEM);
		assertWorkerFreedAfterThePeerTimeout();
	}

	@Test
	void freesTheWorkerOfABlockedGetterAfterThePeerTimeoutOverTls() throws Exception {
		startOverTls();
		assertWorkerFreedAfterThePeerTimeout();
	}

	@Test
	void aConnectionMadeUnderAShortDeadlineServesALaterRequestWithALongerOneOverTls() throws Exception {
		startOverTls();
		this.server.mbeanServer()
			.registerMBean(new FakeClusterMBeans.Answering("peer-1", 42), JmxNames.clusterName("dev.polling", "OTHER"));
		this.server.mbeanServer()
			.registerMBean(new FakeClusterMBeans.Answering("peer-1", 42, this.gate), JmxNames.clusterName("dev.polling", CLUSTER.id()));
		PeerDefinition peer = PeerDefinition.of("peer", "127.0.0.1", this.server.port());
		// the connection (and its TLS handshake) is made under a 4 s deadline (1 s was too short for a
		// cold TLS handshake on a starved CI machine)
		Duration shortDeadline = Duration.ofSeconds(4);
		PeerObservation fast = this.client.observe(peer, ClusterDefinition.of("OTHER", Duration.ofSeconds(10)), shortDeadline)
			.get(30, TimeUnit.SECONDS);
		assertThat(fast.state()).as(fast.toString()).isEqualTo(PeerState.ANSWERED);
		// a later request may take longer than that on the same connection
		var slow = this.client.observe(peer, CLUSTER, Duration.ofSeconds(30));
		assertThat(this.gate.awaitEntered()).isTrue();
		Thread.sleep(shortDeadline.toMillis() + 1500);
		this.gate.close();
		PeerObservation observation = slow.get(10, TimeUnit.SECONDS);
		assertThat(observation.state()).as(observation.toString()).isEqualTo(PeerState.ANSWERED);
	}

	private void assertWorkerFreedAfterThePeerTimeout() throws Exception {
		this.server.mbeanServer().registerMBean(new FakeClusterMBeans.Blocking(this.gate), JmxNames.clusterName("dev.polling", CLUSTER.id()));
		this.server.mbeanServer()
			.registerMBean(new FakeClusterMBeans.Answering("peer-1", 42), JmxNames.clusterName("dev.polling", "OTHER"));
		PeerDefinition peer = PeerDefinition.of("peer", "127.0.0.1", this.server.port());
		// connected and answering
		PeerObservation other = this.client.observe(peer, ClusterDefinition.of("OTHER", Duration.ofSeconds(10)), Duration.ofSeconds(5))
			.get(10, TimeUnit.SECONDS);
		assertThat(other.state()).as(other.toString()).isEqualTo(PeerState.ANSWERED);
		long start = System.nanoTime();
		var blocked = this.client.observe(peer, CLUSTER, TIMEOUT);
		assertThat(this.gate.awaitEntered()).isTrue();
		// freed after the peer timeout, not after the server's 30 s call timeout (the margin absorbs a starved CI
		// machine, where it took 1.9 s over TLS)
		await().atMost(Duration.ofSeconds(10)).until(() -> this.client.pendingRequests() == 0);
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(TIMEOUT.plusSeconds(5));
		PeerObservation observation = blocked.get(1, TimeUnit.SECONDS);
		assertThat(observation.state()).as(observation.toString()).isEqualTo(PeerState.UNRESPONSIVE);
		assertThat(observation.fault()).isEqualTo(PeerFault.TIMEOUT);
		// the peer is still read for the other cluster
		other = this.client.observe(peer, ClusterDefinition.of("OTHER", Duration.ofSeconds(10)), Duration.ofSeconds(5))
			.get(10, TimeUnit.SECONDS);
		assertThat(other.state()).as(other.toString()).isEqualTo(PeerState.ANSWERED);
	}

}
