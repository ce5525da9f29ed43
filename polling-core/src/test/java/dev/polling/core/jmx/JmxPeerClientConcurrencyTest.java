package dev.polling.core.jmx;

import dev.polling.core.JmxNames;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.polling.core.ClusterDefinition;
import dev.polling.core.PeerDefinition;
import dev.polling.core.PeerFault;
import dev.polling.core.PeerObservation;
import dev.polling.core.PeerState;
import dev.polling.core.PollingSettings;
import dev.polling.core.TimeSource;
import dev.polling.core.test.FaultyPeers.Gate;

/**
 * Many clusters decided at once ask the same peer at once: a healthy peer that is merely busy must
 * be answered for every cluster, while a peer that hangs still ties up only a bounded number of
 * threads.
 */
class JmxPeerClientConcurrencyTest {

	private static final int CLUSTERS = 8;

	private final Gate gate = new Gate();

	private final JmxPeerClient client = new JmxPeerClient(PollingSettings.defaults(), TimeSource.SYSTEM);

	private PollingJmxServer server;

	@AfterEach
	void close() {
		this.gate.close();
		this.client.close();
		if (this.server != null) {
			this.server.close();
		}
	}

	@Test
	void answersEveryClusterOfAHealthyPeerAskedForMoreClustersAtOnceThanRequestsMayBeInFlight() throws Exception {
		List<FakeClusterMBeans.Answering> mbeans = startPeer(CLUSTERS);
		List<CompletableFuture<PeerObservation>> answers = observeAll(CLUSTERS, Duration.ofSeconds(2));
		// every request has been sent or is waiting for its turn; the peer is busy until the gate opens
		assertThat(this.gate.awaitEntered()).isTrue();
		this.gate.close();
		for (CompletableFuture<PeerObservation> answer : answers) {
			PeerObservation observation = answer.get(5, TimeUnit.SECONDS);
			assertThat(observation.state()).as(observation.toString()).isEqualTo(PeerState.ANSWERED);
			assertThat(observation.instanceId()).isEqualTo("peer-1");
		}
		assertThat(mbeans).allMatch((mbean) -> mbean.reads() == 1);
	}

	@Test
	void sendsAHungPeerNoMoreRequestsAtOnceThanTheBoundHoweverManyClustersAsk() throws Exception {
		List<FakeClusterMBeans.Answering> mbeans = startPeer(3 * CLUSTERS);
		Duration timeout = Duration.ofSeconds(2);
		List<CompletableFuture<PeerObservation>> answers = observeAll(3 * CLUSTERS, timeout);
		// the first requests hang at the peer until their deadline; the others wait for a slot meanwhile
		await().atMost(timeout).until(() -> reads(mbeans) == JmxPeerClient.DEFAULT_MAX_PENDING_PER_PEER);
		assertThat(this.client.pendingRequests()).isEqualTo(JmxPeerClient.DEFAULT_MAX_PENDING_PER_PEER);
		assertThat(reads(mbeans)).isEqualTo(JmxPeerClient.DEFAULT_MAX_PENDING_PER_PEER);
		for (CompletableFuture<PeerObservation> answer : answers) {
			PeerObservation observation = answer.get(timeout.toMillis() + 2000, TimeUnit.MILLISECONDS);
			assertThat(observation.state()).as(observation.toString()).isEqualTo(PeerState.UNRESPONSIVE);
			assertThat(observation.fault()).isIn(PeerFault.TIMEOUT, PeerFault.STILL_PENDING);
		}
		// and no worker thread is left waiting for the peer
		await().atMost(Duration.ofSeconds(1)).until(() -> this.client.pendingRequests() == 0);
	}

	private static int reads(List<FakeClusterMBeans.Answering> mbeans) {
		return mbeans.stream().mapToInt(FakeClusterMBeans.Answering::reads).sum();
	}

	private List<FakeClusterMBeans.Answering> startPeer(int clusters) throws Exception {
		this.server = PollingJmxServer.start(JmxServerSettings.loopback(0));
		List<FakeClusterMBeans.Answering> mbeans = new ArrayList<>();
		for (int i = 0; i < clusters; i++) {
			FakeClusterMBeans.Answering mbean = new FakeClusterMBeans.Answering("peer-1", 42, this.gate);
			this.server.mbeanServer().registerMBean(mbean, JmxNames.clusterName("dev.polling", cluster(i).id()));
			mbeans.add(mbean);
		}
		return mbeans;
	}

	private List<CompletableFuture<PeerObservation>> observeAll(int clusters, Duration timeout) {
		List<CompletableFuture<PeerObservation>> answers = new ArrayList<>();
		for (int i = 0; i < clusters; i++) {
			answers.add(this.client.observe(peer(), cluster(i), timeout));
		}
		return answers;
	}

	private PeerDefinition peer() {
		return PeerDefinition.of("peer", "127.0.0.1", this.server.port());
	}

	private static ClusterDefinition cluster(int i) {
		return ClusterDefinition.of("CLUSTER_" + i, Duration.ofSeconds(10));
	}

}
