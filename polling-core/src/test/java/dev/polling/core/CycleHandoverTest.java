package dev.polling.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.polling.core.Decision.Reason;
import dev.polling.core.test.Instance;
import dev.polling.core.test.ManualTime;

/**
 * Exclusion as the user sees it (issue 29, defects 1 and 2): a cycle body never runs after its hold
 * ended, and a pause, release, balancing handover or shutdown during a running cycle hands the
 * cluster over when that cycle ends, never while it runs. Two instances with real JMX connector
 * servers in one JVM, a manual clock, and explicit interleavings (a listener that acts between the
 * grant and the start of the cycle, a cycle blocked on a latch).
 */
class CycleHandoverTest {

	private static final String CLUSTER = Instance.CLUSTER;

	private final ManualTime time = new ManualTime();

	private final List<Instance> instances = new ArrayList<>();

	private final AtomicReference<PollingManager> first = new AtomicReference<>();

	@AfterEach
	void close() {
		this.instances.forEach(Instance::close);
	}

	/** Instances a and b; {@code onGrantOfA} runs in a's listener after each of its granted decisions. */
	private List<PollingManager> cluster(Consumer<PollingManager> onGrantOfA) {
		List<Instance> started = List.of(Instance.start("a"), Instance.start("b"));
		this.instances.addAll(started);
		List<PeerDefinition> peers = started.stream().map(Instance::asPeer).toList();
		List<PollingManager> managers = new ArrayList<>();
		for (Instance instance : started) {
			PollingListener listener = !instance.id().equals("a") ? PollingListener.NONE : new PollingListener() {

				@Override
				public void onDecision(Decision decision) {
					if (decision.isGranted()) {
						onGrantOfA.accept(CycleHandoverTest.this.first.get());
					}
				}

			};
			PollingManager manager = TestBuilders.ignoringStarvation(PollingManager.builder())
				.settings(PollingSettings.defaults().withInstanceId(instance.id()).withPeerTimeout(Duration.ofSeconds(2)))
				.cluster(ClusterDefinition.of(CLUSTER, Duration.ofSeconds(10)))
				.peers(peers)
				.mbeanServer(instance.server().mbeanServer())
				.timeSource(this.time)
				.listener(listener)
				.build();
			instance.adopt(manager);
			managers.add(manager);
		}
		this.first.set(managers.get(0));
		return managers;
	}

	// ---------------------------------------------------------------- defect 1: the hold ends between grant and cycle

	private Decision cycleWithHoldEndedBeforeItStarts(Consumer<PollingManager> action, List<String> ran) {
		AtomicBoolean once = new AtomicBoolean();
		List<PollingManager> m = cluster((a) -> {
			if (once.compareAndSet(false, true)) {
				action.accept(a);
			}
		});
		Decision decision = m.get(0).runIfGranted(CLUSTER, () -> ran.add("a"));
		assertThat(m.get(1).runIfGranted(CLUSTER, () -> ran.add("b")).reason()).as("the peer, after a's hold ended")
			.isEqualTo(Reason.NO_ACTIVE_PEER);
		return decision;
	}

	@Test
	void aCyclePausedBetweenGrantAndStartDoesNotRun() {
		List<String> ran = new ArrayList<>();
		Decision decision = cycleWithHoldEndedBeforeItStarts((a) -> a.pause(CLUSTER), ran);
		assertThat(ran).as("cycle bodies that ran").containsExactly("b");
		assertThat(decision.isGranted()).isFalse();
		assertThat(decision.reason()).isEqualTo(Reason.PAUSED);
	}

	@Test
	void aCycleReleasedBetweenGrantAndStartDoesNotRun() {
		List<String> ran = new ArrayList<>();
		Decision decision = cycleWithHoldEndedBeforeItStarts((a) -> a.release(CLUSTER), ran);
		assertThat(ran).containsExactly("b");
		assertThat(decision.reason()).isEqualTo(Reason.RELEASED);
	}

	@Test
	void aCycleWhoseJvmStoppedBetweenGrantAndStartDoesNotRun() {
		List<String> ran = new ArrayList<>();
		Decision decision = cycleWithHoldEndedBeforeItStarts((a) -> a.stopDetector().recordStop(Duration.ofSeconds(5).toNanos()), ran);
		assertThat(ran).containsExactly("b");
		assertThat(decision.reason()).isEqualTo(Reason.STOPPED);
	}

	@Test
	void aCycleClosedBetweenGrantAndStartDoesNotRun() {
		List<String> ran = new ArrayList<>();
		AtomicBoolean once = new AtomicBoolean();
		List<PollingManager> m = cluster((a) -> {
			if (once.compareAndSet(false, true)) {
				a.close();
			}
		});
		Decision decision = m.get(0).runIfGranted(CLUSTER, () -> ran.add("a"));
		assertThat(ran).isEmpty();
		assertThat(decision.reason()).isEqualTo(Reason.CLOSED);
	}

	// ---------------------------------------------------------------- defect 2: pause, release, handover during a cycle

	/** A cycle of a blocked on a latch, on a thread of its own. */
	private static final class BlockedCycle {

		final CountDownLatch running = new CountDownLatch(1);

		final CountDownLatch finish = new CountDownLatch(1);

		final CompletableFuture<Decision> decision;

		BlockedCycle(PollingManager manager, String cluster) {
			this.decision = CompletableFuture.supplyAsync(() -> manager.runIfGranted(cluster, () -> {
				this.running.countDown();
				awaitQuietly(this.finish);
			}));
			try {
				assertThat(this.running.await(30, TimeUnit.SECONDS)).as("the cycle started").isTrue();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		}

		private static void awaitQuietly(CountDownLatch latch) {
			try {
				if (!latch.await(30, TimeUnit.SECONDS)) {
					throw new IllegalStateException("the test never let the cycle finish");
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		}

		Decision end() throws Exception {
			this.finish.countDown();
			return this.decision.get(30, TimeUnit.SECONDS);
		}

	}

	private void handsOverOnlyAfterTheRunningCycle(Consumer<PollingManager> action, Reason afterwards) throws Exception {
		List<PollingManager> m = cluster((a) -> {
		});
		PollingManager a = m.get(0);
		PollingManager b = m.get(1);
		List<String> ranOnB = new ArrayList<>();
		BlockedCycle cycle = new BlockedCycle(a, CLUSTER);

		action.accept(a); // returns at once, the cycle still runs

		assertThat(a.isCycleRunning(CLUSTER)).isTrue();
		assertThat(a.status(CLUSTER).handingOver()).as("a shows the handover after the running cycle").isTrue();
		Decision duringCycle = b.runIfGranted(CLUSTER, () -> ranOnB.add("b"));
		assertThat(ranOnB).as("b's cycle body while a's cycle runs").isEmpty();
		assertThat(duringCycle.reason()).isEqualTo(Reason.PEER_ACTIVE);

		assertThat(cycle.end().isGranted()).isTrue();
		assertThat(a.isHolding(CLUSTER)).as("a after its cycle ended").isFalse();
		assertThat(a.status(CLUSTER).handingOver()).isFalse();
		Decision next = b.runIfGranted(CLUSTER, () -> ranOnB.add("b"));
		assertThat(next.reason()).as("b's first tick after a's cycle ended").isEqualTo(Reason.NO_ACTIVE_PEER);
		assertThat(ranOnB).containsExactly("b");
		assertThat(a.decide(CLUSTER).reason()).isEqualTo(afterwards);
	}

	@Test
	void aPauseDuringACycleHandsOverWhenTheCycleEnds() throws Exception {
		handsOverOnlyAfterTheRunningCycle((a) -> a.pause(CLUSTER), Reason.PAUSED);
	}

	@Test
	void aReleaseDuringACycleHandsOverWhenTheCycleEnds() throws Exception {
		handsOverOnlyAfterTheRunningCycle((a) -> a.release(CLUSTER), Reason.PEER_ACTIVE);
	}

	@Test
	void anOperatorsHandOverDuringACycleHandsOverWhenTheCycleEndsAndHoldsBackOneWaitTime() throws Exception {
		handsOverOnlyAfterTheRunningCycle((a) -> a.handOver(CLUSTER), Reason.HANDED_OVER);
	}

	/**
	 * Without a running cycle a hand-over lets go at once, and the instance that handed over does not
	 * take the cluster again at its next tick (a release alone would: the cluster is free), so the
	 * peer gets it; after one wait time it competes again.
	 */
	@Test
	void anOperatorsHandOverLeavesTheClusterToThePeerAndCompetesAgainAfterOneWaitTime() {
		List<PollingManager> m = cluster((a) -> {
		});
		PollingManager a = m.get(0);
		PollingManager b = m.get(1);
		List<String> ran = new ArrayList<>();
		assertThat(a.runIfGranted(CLUSTER, () -> ran.add("a")).isGranted()).isTrue();

		a.handOver(CLUSTER);

		assertThat(a.isHolding(CLUSTER)).isFalse();
		assertThat(a.isPaused(CLUSTER)).as("a hand-over is not a pause").isFalse();
		assertThat(a.runIfGranted(CLUSTER, () -> ran.add("a")).reason()).as("a's next tick, before b's")
			.isEqualTo(Reason.HANDED_OVER);
		assertThat(b.runIfGranted(CLUSTER, () -> ran.add("b")).reason()).isEqualTo(Reason.NO_ACTIVE_PEER);
		for (int second = 3; second <= 9; second += 3) {
			this.time.advance(Duration.ofSeconds(3));
			assertThat(a.runIfGranted(CLUSTER, () -> ran.add("a")).reason()).as("%d s later (wait time 10 s)", second)
				.isEqualTo(Reason.HANDED_OVER);
			assertThat(b.runIfGranted(CLUSTER, () -> ran.add("b")).reason()).isEqualTo(Reason.RENEWED);
		}
		this.time.advance(Duration.ofSeconds(1));
		assertThat(a.runIfGranted(CLUSTER, () -> ran.add("a")).reason()).as("one wait time later: b holds it")
			.isEqualTo(Reason.PEER_ACTIVE);
		assertThat(ran).containsExactly("a", "b", "b", "b", "b");
	}

	@Test
	void aStandaloneClusterCannotBeHandedOver() {
		PollingManager alone = TestBuilders.ignoringStarvation(PollingManager.builder())
			.settings(PollingSettings.defaults().withInstanceId("alone"))
			.cluster(ClusterDefinition.of(CLUSTER, Duration.ofSeconds(10)))
			.timeSource(this.time)
			.build();
		try {
			assertThat(alone.decide(CLUSTER).isGranted()).isTrue();
			org.assertj.core.api.Assertions.assertThatIllegalStateException()
				.isThrownBy(() -> alone.handOver(CLUSTER))
				.withMessageContaining("'" + CLUSTER + "' runs standalone")
				.withMessageContaining("pause it");
			assertThat(alone.isHolding(CLUSTER)).as("nothing changed").isTrue();
		}
		finally {
			alone.close();
		}
	}

	@Test
	void aShutdownDuringACycleHandsOverWhenTheCycleEnds() throws Exception {
		handsOverOnlyAfterTheRunningCycle(PollingManager::shutdown, Reason.CLOSED);
	}

	@Test
	void aPauseResumedDuringTheCycleStillHandsOverWhenTheCycleEnds() throws Exception {
		handsOverOnlyAfterTheRunningCycle((a) -> {
			a.pause(CLUSTER);
			a.resume(CLUSTER);
		}, Reason.PEER_ACTIVE);
	}

	@Test
	void withAMaximumCycleTimeTheHandoverHappensAtItAtTheLatest() throws Exception {
		List<Instance> started = List.of(Instance.start("a"), Instance.start("b"));
		this.instances.addAll(started);
		List<PeerDefinition> peers = started.stream().map(Instance::asPeer).toList();
		List<PollingManager> m = new ArrayList<>();
		for (Instance instance : started) {
			PollingManager manager = TestBuilders.ignoringStarvation(PollingManager.builder())
				.settings(PollingSettings.defaults().withInstanceId(instance.id()).withPeerTimeout(Duration.ofSeconds(2)))
				.cluster(ClusterDefinition.of(CLUSTER, Duration.ofSeconds(10)).withMaxCycleTime(Duration.ofSeconds(5)))
				.peers(peers)
				.mbeanServer(instance.server().mbeanServer())
				.timeSource(this.time)
				.build();
			instance.adopt(manager);
			m.add(manager);
		}
		BlockedCycle cycle = new BlockedCycle(m.get(0), CLUSTER);
		m.get(0).pause(CLUSTER);
		this.time.advance(Duration.ofSeconds(4));
		assertThat(m.get(1).decide(CLUSTER).reason()).as("4 s into the cycle, max cycle time 5 s").isEqualTo(Reason.PEER_ACTIVE);
		this.time.advance(Duration.ofSeconds(1));
		assertThat(m.get(1).decide(CLUSTER).reason()).as("at the max cycle time").isEqualTo(Reason.NO_ACTIVE_PEER);
		cycle.end();
		assertThat(m.get(0).isHolding(CLUSTER)).isFalse();
	}

	/**
	 * Balancing: a holds three clusters, b none. A renewal of the cluster whose cycle runs (another
	 * thread decides it meanwhile) hands it over, but only when that cycle ends.
	 */
	@Test
	void aBalancingHandoverDuringACycleHappensWhenTheCycleEnds() throws Exception {
		List<String> clusters = List.of("MAILBOX_1", "MAILBOX_2", "MAILBOX_3");
		Instance ia = Instance.start("a");
		Instance ib = Instance.start("b");
		this.instances.add(ia);
		this.instances.add(ib);
		List<PeerDefinition> peers = List.of(ia.asPeer(), ib.asPeer());
		PollingManager a = balanced(ia, peers, clusters);
		for (String cluster : clusters) {
			assertThat(a.decide(cluster).isGranted()).as("b has no manager yet: a takes %s", cluster).isTrue();
		}
		BlockedCycle cycle = new BlockedCycle(a, "MAILBOX_1");
		PollingManager b = balanced(ib, peers, clusters);

		assertThat(a.decide("MAILBOX_1").reason()).as("a holds 3, b 0").isEqualTo(Reason.HANDED_OVER);
		List<String> ranOnB = new ArrayList<>();
		assertThat(b.runIfGranted("MAILBOX_1", () -> ranOnB.add("b")).reason()).isEqualTo(Reason.PEER_ACTIVE);
		assertThat(ranOnB).as("b's cycle body while a's cycle runs").isEmpty();

		cycle.end();
		assertThat(b.runIfGranted("MAILBOX_1", () -> ranOnB.add("b")).reason()).isEqualTo(Reason.NO_ACTIVE_PEER);
		assertThat(ranOnB).containsExactly("b");
	}

	private PollingManager balanced(Instance instance, List<PeerDefinition> peers, List<String> clusters) {
		PollingManager.Builder builder = TestBuilders.ignoringStarvation(PollingManager.builder())
			.settings(PollingSettings.defaults().withInstanceId(instance.id()).withPeerTimeout(Duration.ofSeconds(2)))
			.peers(peers)
			.timeSource(this.time)
			.balanceClusters(true)
			.mbeanServer(instance.server().mbeanServer());
		clusters.forEach((cluster) -> builder.cluster(ClusterDefinition.of(cluster, Duration.ofSeconds(10))));
		PollingManager manager = builder.build();
		instance.adopt(manager);
		return manager;
	}

}
