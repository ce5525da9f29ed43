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
		for (Instance instance : this.instances) {
			this.managers.add(manager(instance, balance));
		}
	}

	private PollingManager manager(Instance instance, boolean balance) {
		List<PeerDefinition> peers = this.instances.stream().map(Instance::asPeer).toList();
		PollingManager.Builder builder = TestBuilders.ignoringStarvation(PollingManager.builder())
			.settings(PollingSettings.defaults().withInstanceId(instance.id()).withPeerTimeout(Duration.ofSeconds(2)))
			.peers(peers)
			.timeSource(this.time)
			.balanceClusters(balance)
			.mbeanServer(instance.server().mbeanServer());
		CLUSTERS.forEach((cluster) -> builder.cluster(ClusterDefinition.of(cluster, Duration.ofSeconds(10))));
		return builder.build();
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
	void spreadsTheClustersAtStartWithoutAnyHandover() {
		start(true);
		Map<String, String> holders = tick();
		assertThat(holders).hasSize(3);
		assertThat(holders.values()).containsExactlyInAnyOrder("a", "b", "c");
		for (int i = 0; i < 20; i++) {
			assertThat(tick()).isEqualTo(holders);
		}
		assertThat(this.managers.stream().flatMap((m) -> CLUSTERS.stream().map(m::status))
			.filter((s) -> s.lastDecision() != null && s.lastDecision().reason() == Reason.HANDED_OVER)).isEmpty();
	}

	@Test
	void givesAnInstanceThatComesBackItsShareWithOneMove() {
		start(true);
		Map<String, String> holders = tick();
		int leaving = 0;
		String gone = this.managers.get(leaving).settings().instanceId();
		// a stops (its manager closes: it releases and its MBeans go away); its cluster moves to another
		this.managers.get(leaving).close();
		holders = tick();
		assertThat(holders).hasSize(3).doesNotContainValue(gone);
		// a comes back holding nothing: the instance with two clusters hands one over, to it alone
		this.managers.set(leaving, manager(this.instances.get(leaving), true));
		int moves = 0;
		Map<String, String> before = holders;
		for (int i = 0; i < 12; i++) {
			holders = tick();
			for (String cluster : CLUSTERS) {
				if (holders.get(cluster) != null && !holders.get(cluster).equals(before.get(cluster))) {
					moves++;
				}
			}
			before = holders;
		}
		assertThat(holders.values()).containsExactlyInAnyOrder("a", "b", "c");
		assertThat(moves).isEqualTo(1);
	}

	/**
	 * After handing a cluster over, an instance holds off for a wait time but goes on asking the
	 * peers, so it knows the new holder as holding (presume-last-known relies on that answer if the
	 * new holder falls silent).
	 */
	@Test
	void keepsObservingThePeersWhileHoldingOffAfterAHandover() {
		start(true);
		tick();
		this.managers.get(0).close();
		tick();
		this.managers.set(0, manager(this.instances.get(0), true));
		Decision handover = null;
		PollingManager giver = null;
		String cluster = null;
		for (int i = 0; i < 12 && handover == null; i++) {
			tick();
			for (PollingManager manager : this.managers) {
				for (String id : CLUSTERS) {
					Decision last = manager.status(id).lastDecision();
					if (last != null && last.reason() == Reason.HANDED_OVER) {
						handover = last;
						giver = manager;
						cluster = id;
					}
				}
			}
		}
		assertThat(handover).as("a handover").isNotNull();
		tick(); // the new holder takes it
		Decision holdingOff = giver.decide(cluster);

		assertThat(holdingOff.reason()).isEqualTo(Reason.HANDED_OVER);
		assertThat(holdingOff.peers()).as("peers asked while holding off").isNotEmpty()
			.anyMatch((o) -> o.state() == PeerState.ANSWERED && o.instanceId().equals("a")
					&& o.isHolding(Duration.ofSeconds(10)));
	}

	@Test
	void takesAFreeClusterAfterAFewDecisionsWhenTheLighterPeerDoesNotTakeIt() {
		start(true);
		// b and c stay out of MAILBOX_2 and MAILBOX_3: a leaves those to them three times, then takes them
		for (PollingManager m : this.managers.subList(1, 3)) {
			m.pause("MAILBOX_2");
			m.pause("MAILBOX_3");
		}
		Map<String, String> holders = Map.of();
		for (int i = 0; i < Protocol.MAX_DEFERRALS + 1; i++) {
			holders = tick();
		}
		assertThat(holders).containsEntry("MAILBOX_2", "a").containsEntry("MAILBOX_3", "a");
	}

	@Test
	void keepsEveryClusterWithTheFirstHolderWithoutBalancing() {
		start(false);
		for (int i = 0; i < 15; i++) {
			assertThat(tick()).containsValues("a", "a", "a");
		}
	}

}
