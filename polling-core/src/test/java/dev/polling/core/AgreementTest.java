package dev.polling.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.polling.core.Decision.Reason;
import dev.polling.core.test.Instance;

/**
 * What the protocol's safety rests on: unique instance ids and equal settings. A peer that breaks
 * either is an error on both sides, and neither side is granted the cluster while it lasts.
 */
class AgreementTest {

	private static final String CLUSTER = Instance.CLUSTER;

	private final List<Instance> instances = new ArrayList<>();

	@AfterEach
	void close() {
		this.instances.forEach(Instance::close);
	}

	private Instance start(String instanceId) {
		Instance instance = Instance.start(instanceId);
		this.instances.add(instance);
		return instance;
	}

	/** Two instances in one cluster, each with its own settings; peer entries named after their ports. */
	private List<PollingManager> pair(String idOne, UnaryOperator<PollingSettings> one, String idTwo, UnaryOperator<PollingSettings> two) {
		Instance first = start(idOne);
		Instance second = start(idTwo);
		List<PeerDefinition> peers = List.of(PeerDefinition.of("one", "127.0.0.1", first.server().port()),
				PeerDefinition.of("two", "127.0.0.1", second.server().port()));
		return List.of(first.connect(peers, one), second.connect(peers, two));
	}

	@Test
	void twoInstancesWithTheSameIdAreRefusedAndTheErrorNamesThePeer() {
		List<PollingManager> m = pair("app-1", UnaryOperator.identity(), "app-1", UnaryOperator.identity());
		Decision first = m.get(0).decide(CLUSTER);
		Decision second = m.get(1).decide(CLUSTER);
		assertThat(first.reason()).isEqualTo(Reason.DUPLICATE_INSTANCE_ID);
		assertThat(second.reason()).isEqualTo(Reason.DUPLICATE_INSTANCE_ID);
		assertThat(m.get(0).isHolding(CLUSTER) || m.get(1).isHolding(CLUSTER)).isFalse();
		assertThat(first.detail()).contains("peer 'two'").contains("'app-1'").contains("polling.instance-id");
		assertThat(second.detail()).contains("peer 'one'").contains("'app-1'");
	}

	@Test
	void anInstanceStillRecognisesItselfInASharedPeerList() {
		List<PollingManager> m = pair("a", UnaryOperator.identity(), "b", UnaryOperator.identity());
		Decision decision = m.get(0).decide(CLUSTER);
		assertThat(decision.reason()).isEqualTo(Reason.NO_ACTIVE_PEER);
		assertThat(decision.peers()).extracting(PeerObservation::state).containsExactly(PeerState.SELF, PeerState.ANSWERED);
	}

	@Test
	void differentSettleTimesAreRefusedOnBothSidesWithBothValuesNamed() {
		List<PollingManager> m = pair("a", (s) -> s.withSettleTime(Duration.ofMillis(200)), "b",
				(s) -> s.withSettleTime(Duration.ofMillis(20)));
		Decision a = m.get(0).decide(CLUSTER);
		Decision b = m.get(1).decide(CLUSTER);
		assertThat(a.reason()).isEqualTo(Reason.SETTINGS_MISMATCH);
		assertThat(b.reason()).isEqualTo(Reason.SETTINGS_MISMATCH);
		assertThat(m.get(0).isHolding(CLUSTER) || m.get(1).isHolding(CLUSTER)).isFalse();
		assertThat(a.detail()).contains("instance 'a'").contains("settle-time=200ms").contains("instance 'b'").contains("settle-time=20ms");
		assertThat(b.detail()).contains("instance 'b'").contains("settle-time=20ms").contains("instance 'a'").contains("settle-time=200ms");
	}

	@Test
	void aHolderLetsGoWhenAPeerWithOtherSettingsAppears() {
		Instance first = start("a");
		Instance second = start("b");
		List<PeerDefinition> peers = List.of(first.asPeer(), second.asPeer());
		PollingManager a = first.connect(peers, UnaryOperator.identity());
		assertThat(a.decide(CLUSTER).isGranted()).isTrue();
		PollingManager b = second.connect(peers, (s) -> s.withPeerTimeout(Duration.ofSeconds(3)));
		assertThat(b.decide(CLUSTER).reason()).isEqualTo(Reason.SETTINGS_MISMATCH);
		Decision renewal = a.decide(CLUSTER);
		assertThat(renewal.reason()).isEqualTo(Reason.SETTINGS_MISMATCH);
		assertThat(renewal.detail()).contains("peer-timeout=2000ms").contains("peer-timeout=3000ms");
		assertThat(a.isHolding(CLUSTER)).isFalse();
	}

	@Test
	void differentWaitTimesForOneClusterAreRefused() {
		Instance first = start("a");
		Instance second = start("b");
		List<PeerDefinition> peers = List.of(first.asPeer(), second.asPeer());
		PollingManager a = first.connect(peers, UnaryOperator.identity());
		PollingManager b = TestBuilders.ignoringStarvation(PollingManager.builder())
			.settings(PollingSettings.defaults().withInstanceId("b").withPeerTimeout(Duration.ofSeconds(2)))
			.cluster(ClusterDefinition.of(CLUSTER, Duration.ofSeconds(600)))
			.peers(peers)
			.mbeanServer(second.server().mbeanServer())
			.build();
		try {
			assertThat(a.decide(CLUSTER).reason()).isEqualTo(Reason.SETTINGS_MISMATCH);
			assertThat(b.decide(CLUSTER).reason()).isEqualTo(Reason.SETTINGS_MISMATCH);
		}
		finally {
			b.close();
		}
	}

}
