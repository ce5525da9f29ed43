package dev.polling.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import javax.management.ObjectName;
import javax.management.StandardMBean;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.polling.core.Decision.Reason;
import dev.polling.core.jmx.FakeClusterMBeans;
import dev.polling.core.test.FaultyPeers.Gate;
import dev.polling.core.test.IdlePeerMBean;
import dev.polling.core.test.Instance;
import dev.polling.core.test.ManualTime;

/** Behaviour of the decision with real peers (JMX connector servers in this JVM) and a manual clock. */
class PollingManagerTest {

	private static final String CLUSTER = Instance.CLUSTER;

	private final ManualTime time = new ManualTime();

	private final Gate gate = new Gate();

	private List<Instance> instances = new ArrayList<>();

	@AfterEach
	void close() {
		this.gate.close();
		this.instances.forEach(Instance::close);
	}

	/** Two instances under presume-last-known: the first holds, the second has been refused (its last answer). */
	private List<PollingManager> presumingPairWithTheFirstHolding() {
		List<PollingManager> m = cluster(2, (s) -> s.withUnreachablePeerPolicy(UnreachablePeerPolicy.PRESUME_LAST_KNOWN));
		assertThat(m.get(0).decide(CLUSTER).isGranted()).isTrue();
		assertThat(m.get(1).decide(CLUSTER).reason()).isEqualTo(Reason.PEER_ACTIVE);
		return m;
	}

	/** The silence of a peer presumed active: still presumed 9 s on, taken over at 10 s (the wait time). */
	private void assertTakesOverWhenTheWaitTimeIsOver(PollingManager waiting) {
		this.time.advance(Duration.ofSeconds(9));
		assertThat(waiting.decide(CLUSTER).reason()).isEqualTo(Reason.PEER_PRESUMED_ACTIVE);
		this.time.advance(Duration.ofSeconds(1));
		assertThat(waiting.decide(CLUSTER).reason()).isEqualTo(Reason.NO_ACTIVE_PEER);
	}

	private List<PollingManager> cluster(int n, UnaryOperator<PollingSettings> settings) {
		this.instances = Instance.cluster(n, settings, (builder) -> builder.timeSource(this.time));
		return this.instances.stream().map(Instance::manager).toList();
	}

	@Test
	void grantsAPeerOnlyAfterTheHolderHasBeenIdleForTheWaitTime() {
		List<PollingManager> m = cluster(2, UnaryOperator.identity());
		assertThat(m.get(0).decide(CLUSTER).isGranted()).isTrue();
		this.time.advance(Duration.ofMillis(9_999));
		assertThat(m.get(1).decide(CLUSTER).reason()).isEqualTo(Reason.PEER_ACTIVE);
		this.time.advance(Duration.ofMillis(1));
		assertThat(m.get(1).decide(CLUSTER).reason()).isEqualTo(Reason.NO_ACTIVE_PEER);
		assertThat(m.get(0).decide(CLUSTER).reason()).isEqualTo(Reason.PEER_ACTIVE);
	}

	@Test
	void reportsATakeoverOnlyWhenAPeerHeldTheClusterBefore() {
		List<String> events = new java.util.concurrent.CopyOnWriteArrayList<>();
		PollingListener listener = new PollingListener() {

			@Override
			public void onHoldChanged(String clusterId, boolean holding, boolean takeover) {
				events.add(clusterId + " holding=" + holding + " takeover=" + takeover);
			}

		};
		this.instances = Instance.cluster(2, UnaryOperator.identity(), (b) -> b.timeSource(this.time).listener(listener));
		PollingManager a = this.instances.get(0).manager();
		PollingManager b = this.instances.get(1).manager();
		assertThat(a.decide(CLUSTER).isGranted()).isTrue();
		assertThat(b.decide(CLUSTER).isGranted()).isFalse();
		a.pause(CLUSTER);
		assertThat(b.decide(CLUSTER).isGranted()).isTrue();
		assertThat(events).containsExactly(CLUSTER + " holding=true takeover=false", CLUSTER + " holding=false takeover=false",
				CLUSTER + " holding=true takeover=true");
	}

	@Test
	void ignoresWallClockJumpsForElapsedTimes() {
		List<PollingManager> m = cluster(2, UnaryOperator.identity());
		assertThat(m.get(0).decide(CLUSTER).isGranted()).isTrue();
		this.time.jumpWallClock(Duration.ofHours(5));
		assertThat(m.get(1).decide(CLUSTER).reason()).isEqualTo(Reason.PEER_ACTIVE);
		this.time.jumpWallClock(Duration.ofHours(-10));
		assertThat(m.get(0).decide(CLUSTER).reason()).isEqualTo(Reason.RENEWED);
		assertThat(m.get(0).isHolding(CLUSTER)).isTrue();
	}

	@Test
	void recordActivityExtendsAHoldButNeverCreatesOne() {
		List<PollingManager> m = cluster(2, UnaryOperator.identity());
		assertThat(m.get(1).recordActivity(CLUSTER)).isFalse();
		assertThat(m.get(1).lastActivity(CLUSTER)).isEmpty();
		assertThat(m.get(0).decide(CLUSTER).isGranted()).isTrue();
		this.time.advance(Duration.ofSeconds(8));
		assertThat(m.get(0).recordActivity(CLUSTER)).isTrue();
		this.time.advance(Duration.ofSeconds(8));
		assertThat(m.get(1).decide(CLUSTER).reason()).isEqualTo(Reason.PEER_ACTIVE);
		assertThat(m.get(0).lastActivity(CLUSTER)).contains(this.time.now().minusSeconds(8));
		this.time.advance(Duration.ofSeconds(3));
		assertThat(m.get(0).recordActivity(CLUSTER)).isFalse();
	}

	@Test
	void pauseHandsTheClusterToAPeerAtItsNextTick() {
		List<PollingManager> m = cluster(2, UnaryOperator.identity());
		assertThat(m.get(0).decide(CLUSTER).isGranted()).isTrue();
		m.get(0).pause(CLUSTER);
		assertThat(m.get(0).decide(CLUSTER).reason()).isEqualTo(Reason.PAUSED);
		assertThat(m.get(1).decide(CLUSTER).reason()).isEqualTo(Reason.NO_ACTIVE_PEER);
		m.get(0).resume(CLUSTER);
		assertThat(m.get(0).decide(CLUSTER).reason()).isEqualTo(Reason.PEER_ACTIVE);
	}

	@Test
	void closingReleasesSoThatAPeerTakesOverAtOnce() {
		List<PollingManager> m = cluster(2, UnaryOperator.identity());
		assertThat(m.get(0).decide(CLUSTER).isGranted()).isTrue();
		m.get(0).close();
		assertThat(m.get(0).decide(CLUSTER).reason()).isEqualTo(Reason.CLOSED);
		Decision takeover = m.get(1).decide(CLUSTER);
		assertThat(takeover.reason()).isEqualTo(Reason.NO_ACTIVE_PEER);
		assertThat(takeover.peers()).extracting(PeerObservation::state).contains(PeerState.ERROR);
		assertThat(takeover.peers()).extracting(PeerObservation::fault).contains(PeerFault.MISSING_MBEAN);
	}

	@Test
	void runsOneCycleOfAClusterAtATimeInOneInstance() throws Exception {
		List<PollingManager> m = cluster(1, UnaryOperator.identity());
		CountDownLatch running = new CountDownLatch(1);
		CountDownLatch finish = new CountDownLatch(1);
		CompletableFuture<Decision> first = CompletableFuture.supplyAsync(() -> m.get(0).runIfGranted(CLUSTER, () -> {
			running.countDown();
			awaitQuietly(finish);
		}));
		assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(m.get(0).isCycleRunning(CLUSTER)).isTrue();
		List<String> ran = new ArrayList<>();
		Decision second = m.get(0).runIfGranted(CLUSTER, () -> ran.add("second"));
		assertThat(second.reason()).isEqualTo(Reason.LOCAL_CYCLE_RUNNING);
		assertThat(ran).isEmpty();
		finish.countDown();
		assertThat(first.get(10, TimeUnit.SECONDS).isGranted()).isTrue();
		assertThat(m.get(0).runIfGranted(CLUSTER, () -> ran.add("third")).reason()).isEqualTo(Reason.RENEWED);
		assertThat(ran).containsExactly("third");
	}

	@Test
	void refreshesActivityAtTheEndOfACycleEvenWhenTheTaskFails() {
		List<PollingManager> m = cluster(2, UnaryOperator.identity());
		assertThatThrownBy(() -> m.get(0).runIfGranted(CLUSTER, () -> {
			this.time.advance(Duration.ofSeconds(9));
			throw new IllegalStateException("mailbox down");
		})).hasMessage("mailbox down");
		this.time.advance(Duration.ofSeconds(9));
		assertThat(m.get(1).decide(CLUSTER).reason()).isEqualTo(Reason.PEER_ACTIVE);
	}

	@Test
	void recordActivityDoesNotWaitForADecisionInProgress() throws Exception {
		List<PollingManager> m = cluster(2, UnaryOperator.identity());
		assertThat(m.get(0).decide(CLUSTER).isGranted()).isTrue();
		blockPeer(1);
		CompletableFuture<Decision> inProgress = CompletableFuture.supplyAsync(() -> m.get(0).decide(CLUSTER));
		assertThat(this.gate.awaitEntered()).isTrue();
		assertThat(m.get(0).recordActivity(CLUSTER)).isTrue();
		assertThat(inProgress).isNotDone();
		assertThat(inProgress.get(10, TimeUnit.SECONDS).reason()).isEqualTo(Reason.RENEWED);
	}

	@Test
	void proceedPolicyTakesOverFromAnUnresponsivePeerAtOnce() throws Exception {
		List<PollingManager> m = cluster(2, UnaryOperator.identity());
		assertThat(m.get(0).decide(CLUSTER).isGranted()).isTrue();
		assertThat(m.get(1).decide(CLUSTER).reason()).isEqualTo(Reason.PEER_ACTIVE);
		blockPeer(0);
		Decision decision = m.get(1).decide(CLUSTER);
		assertThat(decision.reason()).isEqualTo(Reason.NO_ACTIVE_PEER);
		assertThat(decision.peers()).extracting(PeerObservation::state).contains(PeerState.UNRESPONSIVE);
	}

	@Test
	void presumeLastKnownPolicyWaitsTheWaitTimeSinceTheLastAnswer() throws Exception {
		List<PollingManager> m = presumingPairWithTheFirstHolding();
		blockPeer(0);
		assertThat(m.get(1).decide(CLUSTER).reason()).isEqualTo(Reason.PEER_PRESUMED_ACTIVE);
		assertTakesOverWhenTheWaitTimeIsOver(m.get(1));
	}

	/**
	 * The chaos run's "early takeovers" under presume-last-known: an instance that was itself stalled
	 * longer than the wait time found its last answer from the holder too old and took over 3.8 s
	 * after the holder froze. The silence now counts from this instance's first unknown observation.
	 */
	@Test
	void presumeLastKnownCountsTheSilenceFromWhenThisInstanceFirstSawIt() throws Exception {
		List<PollingManager> m = presumingPairWithTheFirstHolding(); // the second's last answer: t = 0
		// instance 1 stalls for 15 s; the holder goes on renewing, then freezes
		this.time.advance(Duration.ofSeconds(7));
		assertThat(m.get(0).decide(CLUSTER).reason()).isEqualTo(Reason.RENEWED);
		this.time.advance(Duration.ofSeconds(7));
		assertThat(m.get(0).decide(CLUSTER).reason()).isEqualTo(Reason.RENEWED);
		blockPeer(0);
		this.time.advance(Duration.ofSeconds(1));
		assertThat(m.get(1).decide(CLUSTER).reason()).as("15 s after the last answer, 1 s into the silence")
			.isEqualTo(Reason.PEER_PRESUMED_ACTIVE);
		assertTakesOverWhenTheWaitTimeIsOver(m.get(1));
	}

	/**
	 * A paused instance keeps asking the peers at its ticks. Without that, its latest answer from the
	 * peer that took the cluster over was from before the pause ("idle"), and under presume-last-known
	 * it took the cluster back at once after resume while that peer was frozen.
	 */
	@Test
	void presumeLastKnownAfterResumeJudgesThePeerByAnAnswerFromThePause() throws Exception {
		List<PollingManager> m = presumingPairWithTheFirstHolding();
		PollingManager a = m.get(0);
		PollingManager b = m.get(1);
		a.pause(CLUSTER);
		assertThat(b.decide(CLUSTER).isGranted()).isTrue();
		this.time.advance(Duration.ofSeconds(1));
		Decision paused = a.decide(CLUSTER);
		assertThat(paused.reason()).isEqualTo(Reason.PAUSED);
		assertThat(paused.peers()).as("peers asked while paused")
			.anySatisfy((o) -> {
				assertThat(o.instanceId()).isEqualTo("b");
				assertThat(o.state()).isEqualTo(PeerState.ANSWERED);
				assertThat(o.isHolding(Duration.ofSeconds(10))).isTrue();
			});
		blockPeer(1); // the new holder freezes
		a.resume(CLUSTER);
		assertThat(a.decide(CLUSTER).reason()).isEqualTo(Reason.PEER_PRESUMED_ACTIVE);
		this.time.advance(Duration.ofSeconds(9));
		assertThat(a.decide(CLUSTER).reason()).isEqualTo(Reason.PEER_PRESUMED_ACTIVE);
		this.time.advance(Duration.ofSeconds(1));
		assertThat(a.decide(CLUSTER).reason()).isEqualTo(Reason.NO_ACTIVE_PEER);
	}

	/**
	 * What follows a detected stop of the JVM (the detection itself, with real signals, is in
	 * {@code e2e.StoppedHolderTest}): the hold from before is void, so a peer takes over at once; and
	 * for three peer timeouts the resumed instance does not acquire, because a peer that is
	 * "unknown" right after the stop may only be so because this JVM did not run (the chaos run: a
	 * resumed instance took a cluster 60 ms after SIGCONT on a request still pending from before
	 * its stop, while the peer held the cluster).
	 */
	@Test
	void aStopVoidsTheHoldAndTheResumedInstanceDoesNotAcquireRightAfterIt() throws Exception {
		long peerTimeoutMillis = 1500; // 500 ms let a starved machine refuse the later decision as too slow
		List<PollingManager> m = cluster(2, (s) -> s.withPeerTimeout(Duration.ofMillis(peerTimeoutMillis)));
		PollingManager a = m.get(0);
		PollingManager b = m.get(1);
		assertThat(a.decide(CLUSTER).isGranted()).isTrue();
		long stoppedAt = System.nanoTime();
		a.stopDetector().recordStop(Duration.ofSeconds(5).toNanos());
		assertThat(a.isHolding(CLUSTER)).as("a hold from before the stop").isFalse();
		Decision takeover = b.decide(CLUSTER);
		assertThat(takeover.reason()).isEqualTo(Reason.NO_ACTIVE_PEER);
		assertThat(takeover.peers()).as("a takes no part in balancing while it does not acquire")
			.anySatisfy((o) -> {
				assertThat(o.instanceId()).isEqualTo("a");
				assertThat(o.heldClusters()).isEqualTo(-1);
			});

		blockPeer(1); // b does not answer: unknown, which proceed counts as idle
		assertThat(a.decide(CLUSTER).reason()).as("right after the stop").isEqualTo(Reason.STOPPED);
		long graceMillis = 3 * peerTimeoutMillis;
		Thread.sleep(Math.max(0, graceMillis + 50 - (System.nanoTime() - stoppedAt) / 1_000_000));
		assertThat(a.decide(CLUSTER).reason()).as("three peer timeouts later, proceed applies again")
			.isEqualTo(Reason.NO_ACTIVE_PEER);
	}

	/** Under presume-last-known too: a peer restarted during the stop never heard from the holder. */
	@Test
	void aStopVoidsTheHoldUnderPresumeLastKnownToo() {
		List<PollingManager> m = cluster(2, (s) -> s.withUnreachablePeerPolicy(UnreachablePeerPolicy.PRESUME_LAST_KNOWN));
		assertThat(m.get(0).decide(CLUSTER).isGranted()).isTrue();
		m.get(0).stopDetector().recordStop(Duration.ofSeconds(5).toNanos());
		assertThat(m.get(0).isHolding(CLUSTER)).isFalse();
		assertThat(m.get(1).decide(CLUSTER).reason()).isEqualTo(Reason.NO_ACTIVE_PEER);
	}

	@Test
	void ofTwoHoldersAfterASplitTheOneWithTheHigherIdYields() throws Exception {
		List<PollingManager> m = cluster(2, UnaryOperator.identity());
		PollingManager a = m.get(0);
		PollingManager b = m.get(1);
		assertThat(a.decide(CLUSTER).isGranted()).isTrue();
		// A split: b cannot see a and, under PROCEED, takes the cluster too.
		ObjectName name = blockPeer(0);
		assertThat(b.decide(CLUSTER).isGranted()).isTrue();
		assertThat(a.isHolding(CLUSTER)).isTrue();
		assertThat(b.isHolding(CLUSTER)).isTrue();
		// The split heals: both see each other holding; b yields to the lower id, a keeps the cluster.
		this.gate.close();
		this.instances.get(0).server().mbeanServer().unregisterMBean(name);
		mirrorMBean(0, a);
		assertThat(b.decide(CLUSTER).reason()).isEqualTo(Reason.YIELDED_TO_PEER);
		assertThat(b.isHolding(CLUSTER)).isFalse();
		assertThat(a.decide(CLUSTER).reason()).isEqualTo(Reason.RENEWED);
		assertThat(b.decide(CLUSTER).reason()).isEqualTo(Reason.PEER_ACTIVE);
	}

	@Test
	void runsStandaloneWithoutPeers() {
		try (PollingManager manager = TestBuilders.ignoringStarvation(PollingManager.builder())
			.settings(PollingSettings.defaults())
			.cluster(ClusterDefinition.of(CLUSTER, Duration.ofSeconds(10)))
			.build()) {
			assertThat(manager.isStandalone()).isTrue();
			assertThat(manager.decide(CLUSTER).reason()).isEqualTo(Reason.STANDALONE);
			assertThat(manager.tryStartPolling(CLUSTER)).isTrue();
			assertThat(manager.isHolding(CLUSTER)).isTrue();
		}
	}

	@Test
	void failsFastOnAnUnknownClusterListingTheKnownIds() {
		try (PollingManager manager = TestBuilders.ignoringStarvation(PollingManager.builder())
			.cluster(ClusterDefinition.of("POSTFACH1_CLUSTER", Duration.ofSeconds(10)))
			.cluster(ClusterDefinition.of("POSTFACH2_CLUSTER", Duration.ofSeconds(10)))
			.build()) {
			assertThatThrownBy(() -> manager.decide("POSTFACH3_CLUSTER")).isInstanceOf(UnknownClusterException.class)
				.hasMessageContaining("'POSTFACH3_CLUSTER'")
				.hasMessageContaining("[POSTFACH1_CLUSTER, POSTFACH2_CLUSTER]");
		}
	}

	private static void awaitQuietly(CountDownLatch latch) {
		try {
			latch.await(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** Replaces the instance's cluster MBean by one whose getter blocks until the gate opens. */
	private ObjectName blockPeer(int index) throws Exception {
		ObjectName name = JmxNames.clusterName("dev.polling", CLUSTER);
		var server = this.instances.get(index).server().mbeanServer();
		server.unregisterMBean(name);
		server.registerMBean(new FakeClusterMBeans.Blocking(this.gate), name);
		return name;
	}

	/** Registers an MBean that answers from the manager's public state, in place of its own (replaced) one. */
	private void mirrorMBean(int index, PollingManager manager) throws Exception {
		var server = this.instances.get(index).server().mbeanServer();
		ObjectName name = JmxNames.clusterName("dev.polling", CLUSTER);
		server.registerMBean(new StandardMBean(new IdlePeerMBean() {

			@Override
			public String getClusterId() {
				return CLUSTER;
			}

			@Override
			public String getClusterName() {
				return CLUSTER;
			}

			@Override
			public String getInstanceId() {
				return manager.settings().instanceId();
			}

			@Override
			public long getElapsedMillis() {
				return manager.status(CLUSTER).elapsed() == null ? Long.MAX_VALUE : manager.status(CLUSTER).elapsed().toMillis();
			}

			@Override
			public long[] getCoordinationState() {
				return new long[] { getElapsedMillis(), -1 };
			}

			@Override
			public String getLastActivity() {
				return "";
			}

			@Override
			public boolean isHolding() {
				return manager.isHolding(CLUSTER);
			}

		}, PollingClusterMXBean.class, true), name);
	}

}
