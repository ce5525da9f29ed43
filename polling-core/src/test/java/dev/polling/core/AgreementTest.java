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
 * What the protocol's safety rests on: unique instance ids and equal settings. A peer with the same id
 * is an error on both sides, and neither side holds the cluster while it lasts; a peer with other
 * settings (a rolling configuration change) keeps candidates from acquiring, and a holder keeps it.
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

	/** Instances "a" and "b", with both as the peers (each list includes the instance itself). */
	private AandB startAAndB() {
		Instance first = start("a");
		Instance second = start("b");
		return new AandB(first, second, List.of(first.asPeer(), second.asPeer()));
	}

	private record AandB(Instance first, Instance second, List<PeerDefinition> peers) {
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

	/**
	 * A rolling configuration change (issue 31 item 7): the holder keeps the cluster on its settings,
	 * the instance with other settings does not acquire while it sees the holder, and takes over when
	 * the holder is gone (restarted with the new settings): one poller all along.
	 */
	@Test
	void aHolderKeepsTheClusterWhenAPeerWithOtherSettingsAppearsAndThePeerTakesOverWhenItIsGone() {
		AandB ab = startAAndB();
		PollingManager a = ab.first().connect(ab.peers(), UnaryOperator.identity());
		assertThat(a.decide(CLUSTER).isGranted()).isTrue();
		PollingManager b = ab.second().connect(ab.peers(), (s) -> s.withPeerTimeout(Duration.ofSeconds(3)));
		for (int i = 0; i < 3; i++) {
			Decision refused = b.decide(CLUSTER);
			assertThat(refused.reason()).isEqualTo(Reason.SETTINGS_MISMATCH);
			assertThat(refused.isGranted()).isFalse();
			Decision renewal = a.decide(CLUSTER);
			assertThat(renewal.reason()).isEqualTo(Reason.RENEWED_DESPITE_SETTINGS_MISMATCH);
			assertThat(renewal.isGranted()).isTrue();
			assertThat(renewal.detail()).contains("peer-timeout=2000ms").contains("peer-timeout=3000ms")
				.contains("keeps it on its settings").contains("rolling configuration change");
			assertThat(a.isHolding(CLUSTER)).isTrue();
			assertThat(b.isHolding(CLUSTER)).isFalse();
		}
		// the holder is restarted (gone: its JMX server refuses connections): the peer with the new settings takes over
		ab.first().close();
		// in this JVM the closed server's port still answers RMI (no such object): unknown, and a peer last
		// seen with other settings is waited for up to the longer wait time (10 s) under any policy; a
		// restarted process refuses the connection (gone) and is taken over at once
		List<Decision> afterClose = new ArrayList<>();
		while (afterClose.size() < 100 && (afterClose.isEmpty() || !afterClose.get(afterClose.size() - 1).isGranted())) {
			afterClose.add(b.decide(CLUSTER));
			sleep(Duration.ofMillis(200));
		}
		assertThat(afterClose.get(afterClose.size() - 1).isGranted()).as("granted within 20 s").isTrue();
		assertThat(afterClose.subList(0, afterClose.size() - 1)).extracting(Decision::reason).containsOnly(Reason.SETTINGS_MISMATCH);
		assertThat(b.isHolding(CLUSTER)).isTrue();
	}

	@Test
	void aHolderWithOtherSettingsThanAPeerDoesNotHandItOverForBalancing() {
		AandB ab = startAAndB();
		PollingManager a = balancing("a", Duration.ofSeconds(2), ab.first(), ab.peers());
		PollingManager b = null;
		try {
			for (String cluster : List.of("ONE", "TWO", "THREE")) {
				assertThat(a.decide(cluster).isGranted()).isTrue();
			}
			b = balancing("b", Duration.ofSeconds(3), ab.second(), ab.peers());
			for (int round = 0; round < 3; round++) {
				for (String cluster : List.of("ONE", "TWO", "THREE")) {
					assertThat(b.decide(cluster).reason()).isEqualTo(Reason.SETTINGS_MISMATCH);
					assertThat(a.decide(cluster).reason()).as("a holds three, b none: balancing would hand one over")
						.isEqualTo(Reason.RENEWED_DESPITE_SETTINGS_MISMATCH);
				}
			}
		}
		finally {
			a.close();
			if (b != null) {
				b.close();
			}
		}
	}

	@Test
	void differentWaitTimesForOneClusterAreRefused() {
		AandB ab = startAAndB();
		PollingManager a = ab.first().connect(ab.peers(), UnaryOperator.identity());
		PollingManager b = TestBuilders.ignoringStarvation(PollingManager.builder())
			.settings(PollingSettings.defaults().withInstanceId("b").withPeerTimeout(Duration.ofSeconds(2)))
			.cluster(ClusterDefinition.of(CLUSTER, Duration.ofSeconds(600)))
			.peers(ab.peers())
			.mbeanServer(ab.second().server().mbeanServer())
			.build();
		try {
			assertThat(a.decide(CLUSTER).reason()).isEqualTo(Reason.SETTINGS_MISMATCH);
			assertThat(b.decide(CLUSTER).reason()).isEqualTo(Reason.SETTINGS_MISMATCH);
		}
		finally {
			b.close();
		}
	}

	/** A manager of three clusters that balances them among the instances. */
	private static PollingManager balancing(String id, Duration peerTimeout, Instance instance, List<PeerDefinition> peers) {
		PollingManager.Builder builder = TestBuilders.ignoringStarvation(PollingManager.builder())
			.settings(PollingSettings.defaults().withInstanceId(id).withPeerTimeout(peerTimeout))
			.balanceClusters(true)
			.peers(peers)
			.mbeanServer(instance.server().mbeanServer());
		List.of("ONE", "TWO", "THREE").forEach((cluster) -> builder.cluster(ClusterDefinition.of(cluster, Duration.ofSeconds(20))));
		return builder.build();
	}

	private static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
