package dev.polling.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.polling.core.Decision.Reason;
import dev.polling.core.test.Instance;
import dev.polling.core.test.ManualTime;

/** Load distribution (seed 001 §4.1.1): three instances, three clusters, real JMX servers, a manual clock. */
class ClusterBalanceTest {

	private static final List<String> CLUSTERS = List.of("MAILBOX_1", "MAILBOX_2", "MAILBOX_3");

	private final ManualTime time = new ManualTime();

	private final List<Instance> instances = new ArrayList<>();

	private final List<PollingManager> managers = new ArrayList<>();

	@AfterEach
	void close() {
		this.managers.forEach(PollingManager::close);
		this.instances.forEach(Instance::close);
	}

	private void start(boolean balance) {
		for (String id : List.of("a", "b", "c")) {
			this.instances.add(Instance.start(id));
		}
		List<PeerDefinition> peers = this.instances.stream().map(Instance::asPeer).toList();
		for (Instance instance : this.instances) {
			PollingManager.Builder builder = PollingManager.builder()
				.settings(PollingSettings.defaults().withInstanceId(instance.id()).withPeerTimeout(Duration.ofSeconds(2)))
				.peers(peers)
				.timeSource(this.time)
				.balanceClusters(balance)
				.mbeanServer(instance.server().mbeanServer());
			CLUSTERS.forEach((cluster) -> builder.cluster(ClusterDefinition.of(cluster, Duration.ofSeconds(10))));
			this.managers.add(builder.build());
		}
	}

	/** One tick of every instance on every cluster; returns who holds what. */
	private Map<String, String> tick() {
		for (PollingManager manager : this.managers) {
			for (String cluster : CLUSTERS) {
				manager.decide(cluster);
			}
		}
		Map<String, String> holders = new TreeMap<>();
		for (PollingManager manager : this.managers) {
			for (String cluster : CLUSTERS) {
				if (manager.isHolding(cluster)) {
					assertThat(holders.put(cluster, manager.settings().instanceId())).as("two holders of %s", cluster).isNull();
				}
			}
		}
		this.time.advance(Duration.ofSeconds(1));
		return holders;
	}

	@Test
	void spreadsTheClustersOverTheInstancesOneHandoverAtATime() {
		start(true);
		assertThat(tick()).containsValues("a", "a", "a");
		// a hands one cluster over at its next renewal; a peer takes it at once
		Map<String, String> holders = tick();
		assertThat(holders).hasSize(3);
		assertThat(holders.values().stream().filter("a"::equals)).hasSize(2);
		// within half a wait time nothing moves, then the next handover
		for (int i = 0; i < 8; i++) {
			holders = tick();
		}
		assertThat(holders).hasSize(3);
		assertThat(holders.values()).containsExactlyInAnyOrder("a", "b", "c");
		// balanced: it stays so
		for (int i = 0; i < 20; i++) {
			assertThat(tick()).isEqualTo(holders);
		}
		long handovers = this.managers.stream()
			.flatMap((m) -> CLUSTERS.stream().map(m::status))
			.filter((s) -> s.lastDecision() != null && s.lastDecision().reason() == Reason.HANDED_OVER)
			.count();
		assertThat(handovers).isZero();
	}

	@Test
	void keepsEveryClusterWithTheFirstHolderWithoutBalancing() {
		start(false);
		for (int i = 0; i < 15; i++) {
			assertThat(tick()).containsValues("a", "a", "a");
		}
	}

}
