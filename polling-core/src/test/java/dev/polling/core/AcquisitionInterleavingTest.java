package dev.polling.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.polling.core.Decision.Reason;
import dev.polling.core.test.ManualTime;
import dev.polling.core.test.SteppingPeer;

/**
 * Operations that meet an acquisition or a renewal at a chosen point: the peer holds the decision's
 * read until the test has acted, so each interleaving happens exactly, every run. The grant must be
 * conditional on the state the acquisition started from, never a blind write.
 */
class AcquisitionInterleavingTest {

	private static final String CLUSTER = "MAILABRUF_CLUSTER";

	private SteppingPeer peer;

	private PollingManager manager;

	@BeforeEach
	void start() {
		this.peer = new SteppingPeer("p", CLUSTER);
		this.manager = TestBuilders.ignoringStarvation(PollingManager.builder())
			.settings(PollingSettings.defaults().withInstanceId("a").withPeerTimeout(Duration.ofSeconds(2)))
			.cluster(ClusterDefinition.of(CLUSTER, Duration.ofSeconds(10)))
			.peer(this.peer.asPeer())
			.build();
	}

	@AfterEach
	void stop() {
		this.peer.close();
		this.manager.close();
	}

	/** Starts a decision and returns once it waits for the peer's answer in its second round (after announcing). */
	private CompletableFuture<Decision> acquisitionWaitingInItsSecondRound() throws InterruptedException {
		this.peer.holdRead(2);
		CompletableFuture<Decision> decision = CompletableFuture.supplyAsync(() -> this.manager.decide(CLUSTER));
		this.peer.awaitHeldRead();
		assertThat(this.manager.status(CLUSTER).holding()).as("announced, not yet granted").isFalse();
		return decision;
	}

	private Decision answer(CompletableFuture<Decision> decision) throws Exception {
		this.peer.release();
		return decision.get(10, TimeUnit.SECONDS);
	}

	@Test
	void aReleaseDuringAnAcquisitionLeavesNoHold() throws Exception {
		CompletableFuture<Decision> decision = acquisitionWaitingInItsSecondRound();
		this.manager.release(CLUSTER);
		assertThat(answer(decision).isGranted()).isFalse();
		assertThat(this.manager.isHolding(CLUSTER)).isFalse();
		assertThat(this.manager.lastActivity(CLUSTER)).as("peers read no activity").isEmpty();
	}

	@Test
	void aPauseDuringAnAcquisitionGrantsNothingAndReportsNoActivity() throws Exception {
		CompletableFuture<Decision> decision = acquisitionWaitingInItsSecondRound();
		this.manager.pause(CLUSTER);
		Decision result = answer(decision);
		assertNotHoldingAfter(result, Reason.PAUSED);
		assertThat(this.manager.lastActivity(CLUSTER)).as("a paused instance reports no activity").isEmpty();
	}

	@Test
	void closeDuringAnAcquisitionReturnsAtOnceAndTheAcquisitionIsNotGranted() throws Exception {
		CompletableFuture<Decision> decision = acquisitionWaitingInItsSecondRound();
		CompletableFuture<Void> closing = CompletableFuture.runAsync(this.manager::close);
		// close does not wait for the decision: it closes the hold state, which makes the grant fail
		closing.get(10, TimeUnit.SECONDS);
		assertThat(decision).as("the decision still waits for the peer").isNotDone();
		Decision result = answer(decision);
		assertNotHoldingAfter(result, Reason.CLOSED);
	}

	@Test
	void aStopBetweenTheFinalRoundAndTheGrantVoidsTheGrant() throws Exception {
		CompletableFuture<Decision> decision = acquisitionWaitingInItsSecondRound();
		// the JVM did not run for longer than the stop threshold while the answer was on its way
		this.manager.stopDetector().recordStop(Duration.ofSeconds(3).toNanos());
		Decision result = answer(decision);
		assertNotHoldingAfter(result, Reason.STOPPED);
	}

	@Test
	void aHoldReleasedWhileItsHolderRenewsIsReportedAsReleasedNotAsStopped() throws Exception {
		assertThat(this.manager.decide(CLUSTER).reason()).isEqualTo(Reason.NO_ACTIVE_PEER);
		this.peer.holdRead(1);
		CompletableFuture<Decision> renewal = CompletableFuture.supplyAsync(() -> this.manager.decide(CLUSTER));
		this.peer.awaitHeldRead();
		this.manager.release(CLUSTER);
		Decision result = answer(renewal);
		assertNotHoldingAfter(result, Reason.RELEASED);
	}

	@Test
	void listenersAreCalledAfterTheDecisionLockIsReleased() throws Exception {
		CompletableFuture<Decision> nested = new CompletableFuture<>();
		AtomicReference<PollingManager> self = new AtomicReference<>();
		try (PollingManager listened = TestBuilders.ignoringStarvation(PollingManager.builder())
			.settings(PollingSettings.defaults().withInstanceId("b").withPeerTimeout(Duration.ofSeconds(2)))
			.cluster(ClusterDefinition.of(CLUSTER, Duration.ofSeconds(10)))
			.peer(this.peer.asPeer())
			.listener(new PollingListener() {

				private final AtomicBoolean first = new AtomicBoolean(true);

				@Override
				public void onDecision(Decision decision) {
					if (this.first.getAndSet(false)) {
						// a listener that waits for another decision of the same cluster (a metrics registry
						// lock, say) must not deadlock against the decision that called it
						CompletableFuture<Decision> other = CompletableFuture.supplyAsync(() -> self.get().decide(CLUSTER));
						try {
							nested.complete(other.get(5, TimeUnit.SECONDS));
						}
						catch (Exception ex) {
							nested.completeExceptionally(ex);
						}
					}
				}

			})
			.build()) {
			self.set(listened);
			listened.decide(CLUSTER);
			assertThat(nested.get(10, TimeUnit.SECONDS).reason()).isEqualTo(Reason.RENEWED);
		}
	}

	/** The settle time passes on the injected clock, so tests and simulations control it. */
	@Test
	void theSettleTimeIsWaitedOnTheInjectedClock() {
		ManualTime time = new ManualTime();
		try (PollingManager manual = TestBuilders.ignoringStarvation(PollingManager.builder())
			.settings(PollingSettings.defaults().withInstanceId("c").withPeerTimeout(Duration.ofSeconds(2))
				.withSettleTime(Duration.ofMillis(300)))
			.cluster(ClusterDefinition.of(CLUSTER, Duration.ofSeconds(10)))
			.peer(this.peer.asPeer())
			.timeSource(time)
			.build()) {
			long before = time.nanoTime();
			Decision decision = manual.decide(CLUSTER);
			assertThat(decision.reason()).isEqualTo(Reason.NO_ACTIVE_PEER);
			assertThat(Duration.ofNanos(time.nanoTime() - before)).isEqualTo(Duration.ofMillis(300));
		}
	}

	/** The decision granted nothing, for the reason, and the manager does not hold the cluster. */
	private void assertNotHoldingAfter(Decision result, Reason reason) {
		assertThat(result.isGranted()).isFalse();
		assertThat(result.reason()).isEqualTo(reason);
		assertThat(this.manager.isHolding(CLUSTER)).isFalse();
	}

}
