package dev.polling.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.polling.core.Decision.Reason;
import dev.polling.core.test.Instance;
import dev.polling.core.test.ManualTime;

/**
 * A cycle that runs longer than the wait time (a big mailbox, one slow item) keeps its hold while
 * it runs, so no peer starts polling beside it; it is reported; an optional maximum cycle time lets
 * the hold lapse after all.
 */
class CycleKeepAliveTest {

	private static final String CLUSTER = Instance.CLUSTER;

	private final ManualTime time = new ManualTime();

	private final List<Instance> instances = new ArrayList<>();

	@AfterEach
	void close() {
		this.instances.forEach(Instance::close);
	}

	private List<PollingManager> cluster(UnaryOperator<ClusterDefinition> cluster, PollingListener listener) {
		List<Instance> started = List.of(Instance.start("a"), Instance.start("b"));
		this.instances.addAll(started);
		List<PeerDefinition> peers = started.stream().map(Instance::asPeer).toList();
		List<PollingManager> managers = new ArrayList<>();
		for (Instance instance : started) {
			managers.add(TestBuilders.ignoringStarvation(PollingManager.builder())
				.settings(PollingSettings.defaults().withInstanceId(instance.id()).withPeerTimeout(Duration.ofSeconds(2)))
				.cluster(cluster.apply(ClusterDefinition.of(CLUSTER, Duration.ofSeconds(10))))
				.peers(peers)
				.mbeanServer(instance.server().mbeanServer())
				.timeSource(this.time)
				.listener(instance.id().equals("a") ? listener : PollingListener.NONE)
				.build());
		}
		this.instances.get(0).adopt(managers.get(0));
		this.instances.get(1).adopt(managers.get(1));
		return managers;
	}

	@Test
	void aCycleLongerThanTheWaitTimeKeepsItsHoldWhileItRuns() {
		List<PollingManager> m = cluster(UnaryOperator.identity(), PollingListener.NONE);
		AtomicReference<Decision> peerDuringCycle = new AtomicReference<>();
		Decision decision = m.get(0).runIfGranted(CLUSTER, () -> {
			this.time.advance(Duration.ofSeconds(25));
			peerDuringCycle.set(m.get(1).decide(CLUSTER));
		});
		assertThat(decision.isGranted()).isTrue();
		assertThat(peerDuringCycle.get().reason()).as("a peer 25 s into a cycle, wait time 10 s").isEqualTo(Reason.PEER_ACTIVE);
		assertThat(m.get(0).isHolding(CLUSTER)).as("the end of the cycle counts as activity").isTrue();
		this.time.advance(Duration.ofSeconds(10));
		assertThat(m.get(1).decide(CLUSTER).reason()).as("one wait time after the cycle ended").isEqualTo(Reason.NO_ACTIVE_PEER);
	}

	@Test
	void anOverrunningCycleIsReportedAndShownInTheStatus() {
		AtomicReference<Duration> reported = new AtomicReference<>();
		List<PollingManager> m = cluster(UnaryOperator.identity(), new PollingListener() {

			@Override
			public void onCycleOverrun(String clusterId, Duration running) {
				reported.compareAndSet(null, running);
			}

		});
		AtomicReference<ClusterStatus> status = new AtomicReference<>();
		m.get(0).runIfGranted(CLUSTER, () -> {
			this.time.advance(Duration.ofSeconds(12));
			// the heartbeat thread checks running cycles every few dozen milliseconds
			await().atMost(Duration.ofSeconds(10)).until(() -> reported.get() != null);
			status.set(m.get(0).status(CLUSTER));
		});
		assertThat(reported.get()).isGreaterThanOrEqualTo(Duration.ofSeconds(12));
		assertThat(status.get().cycleOverrunning()).isTrue();
		assertThat(status.get().cycleRunningFor()).isGreaterThanOrEqualTo(Duration.ofSeconds(12));
		assertThat(m.get(0).status(CLUSTER).cycleRunningFor()).as("after the cycle").isNull();
	}

	@Test
	void withAMaximumCycleTimeTheHoldLapsesOneWaitTimeAfterIt() {
		List<PollingManager> m = cluster((c) -> c.withMaxCycleTime(Duration.ofSeconds(5)), PollingListener.NONE);
		List<Reason> peerDuringCycle = new ArrayList<>();
		m.get(0).runIfGranted(CLUSTER, () -> {
			this.time.advance(Duration.ofSeconds(14));
			peerDuringCycle.add(m.get(1).decide(CLUSTER).reason());
			this.time.advance(Duration.ofSeconds(2));
			peerDuringCycle.add(m.get(1).decide(CLUSTER).reason());
		});
		assertThat(peerDuringCycle).containsExactly(Reason.PEER_ACTIVE, Reason.NO_ACTIVE_PEER);
		assertThat(m.get(0).isHolding(CLUSTER)).as("its hold lapsed during the cycle").isFalse();
	}

	@Test
	void aReleaseDuringACycleHandsOverWhenTheCycleEnds() {
		List<PollingManager> m = cluster(UnaryOperator.identity(), PollingListener.NONE);
		List<Reason> peerDuringCycle = new ArrayList<>();
		m.get(0).runIfGranted(CLUSTER, () -> {
			m.get(0).release(CLUSTER);
			this.time.advance(Duration.ofSeconds(25));
			peerDuringCycle.add(m.get(1).decide(CLUSTER).reason());
		});
		assertThat(peerDuringCycle).as("a peer during the released cycle, 25 s in").containsExactly(Reason.PEER_ACTIVE);
		assertThat(m.get(0).isHolding(CLUSTER)).isFalse();
		assertThat(m.get(1).decide(CLUSTER).reason()).as("right after the cycle").isEqualTo(Reason.NO_ACTIVE_PEER);
	}

}
