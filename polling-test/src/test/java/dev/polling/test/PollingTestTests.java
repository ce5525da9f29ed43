package dev.polling.test;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.ContextCustomizer;

import dev.polling.boot.annotation.PollingCycle;
import dev.polling.core.Decision;
import dev.polling.core.PeerState;
import dev.polling.core.PollingManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * {@link PollingTest} puts a Spring Boot application in each situation of a cluster in one JVM: it
 * holds a cluster, a peer holds it, the peers do not answer; and the script can change during a test.
 */
class PollingTestTests {

	@SpringBootTest(classes = Application.class,
			properties = { "polling.instance-id=scripted", "polling.jmx.domain=dev.polling.pollingtest", "polling.clusters.A.wait-time=10s",
					"polling.clusters.B.wait-time=10s", "polling.clusters.C.wait-time=10s" })
	@PollingTest(holding = "A", peerHolding = "B", peerUnreachable = "C")
	@Nested
	class Scripted {

		@Autowired
		PollingManager manager;

		@Autowired
		ScriptedPeers peers;

		@Autowired
		Poller poller;

		@AfterEach
		void restoreTheScript() {
			this.peers.peerHolds("B").peerUnreachable("C").holdHere("A");
		}

		@Test
		void holdsTheClustersNamedHoldingFromTheStart() {
			assertThat(this.manager.isHolding("A")).isTrue();
			assertThat(this.manager.isStandalone()).isFalse();
			assertThat(this.manager.peers()).containsOnlyKeys(ScriptedPeers.PEER_ID);
			assertThat(this.manager.decide("A").reason()).isEqualTo(Decision.Reason.RENEWED);
		}

		@Test
		void isRefusedAClusterAPeerHoldsAndSkipsItsCycle() {
			Decision decision = this.manager.decide("B");
			assertThat(decision.reason()).isEqualTo(Decision.Reason.PEER_ACTIVE);
			assertThat(decision.peers()).singleElement().satisfies((peer) -> {
				assertThat(peer.state()).isEqualTo(PeerState.ANSWERED);
				assertThat(peer.instanceId()).isEqualTo(ScriptedPeers.PEER_ID);
			});
			int before = this.poller.cyclesOfB();
			this.poller.pollB();
			assertThat(this.poller.cyclesOfB()).isEqualTo(before);
			assertThat(this.peers.requests("B")).isPositive();
		}

		@Test
		void countsAPeerThatDoesNotAnswerAsTheDefaultPolicySays() {
			Decision decision = this.manager.decide("C");
			assertThat(decision.isGranted()).isTrue(); // proceed: a peer that does not answer counts as idle
			assertThat(decision.peers()).allSatisfy((peer) -> assertThat(peer.state()).isEqualTo(PeerState.UNRESPONSIVE));
		}

		@Test
		void changesTheScriptDuringATest() {
			this.peers.peerHolds("A");
			assertThat(this.manager.isHolding("A")).isFalse();
			assertThat(this.manager.decide("A").reason()).isEqualTo(Decision.Reason.PEER_ACTIVE);

			this.peers.holdHere("B");
			assertThat(this.manager.isHolding("B")).isTrue();
			int before = this.poller.cyclesOfB();
			this.poller.pollB();
			assertThat(this.poller.cyclesOfB()).isEqualTo(before + 1);
		}

	}

	@SpringBootTest(classes = Application.class,
			properties = { "polling.instance-id=presuming", "polling.jmx.domain=dev.polling.pollingtest.presume",
					"polling.jmx.unreachable-peer-policy=presume-last-known", "polling.clusters.A.wait-time=10s",
					"polling.clusters.B.wait-time=10s", "polling.clusters.C.wait-time=10s" })
	@PollingTest(peerHolding = "B")
	@Nested
	class PresumeLastKnown {

		@Autowired
		PollingManager manager;

		@Autowired
		ScriptedPeers peers;

		@Test
		void presumesAHolderThatFellSilentStillHolds() {
			assertThat(this.manager.decide("B").reason()).isEqualTo(Decision.Reason.PEER_ACTIVE);
			this.peers.peerUnreachable("B");
			assertThat(this.manager.decide("B").reason()).isEqualTo(Decision.Reason.PEER_PRESUMED_ACTIVE);
			this.peers.peersIdle("B");
			assertThat(this.manager.decide("B").isGranted()).isTrue();
		}

	}

	@Test
	void refusesAClusterInTwoSituations() {
		assertThatIllegalStateException().isThrownBy(() -> customizer(TwoSituations.class))
			.withMessage("@PollingTest names cluster 'A' in both holding and peerHolding; a cluster can be in one situation at a time");
	}

	@Test
	void failsTheContextForAClusterTheApplicationDoesNotDefine() {
		ContextCustomizer customizer = customizer(UnknownCluster.class);
		ApplicationContextInitializer<ConfigurableApplicationContext> initializer = (context) -> customizer.customizeContext(context,
				null);
		assertThatIllegalStateException()
			.isThrownBy(() -> new SpringApplicationBuilder(Application.class).web(WebApplicationType.NONE)
				.properties("spring.main.banner-mode=off", "polling.jmx.domain=dev.polling.pollingtest.unknown",
						"polling.clusters.A.wait-time=10s", "polling.clusters.B.wait-time=10s", "polling.clusters.C.wait-time=10s")
				.initializers(initializer)
				.run())
			.withMessage("@PollingTest names cluster 'MAILBOX', which the application does not define; known clusters: [A, B, C]");
	}

	private static ContextCustomizer customizer(Class<?> testClass) {
		return new PollingTestContextCustomizerFactory().createContextCustomizer(testClass, List.of());
	}

	@PollingTest(holding = "A", peerHolding = "A")
	static class TwoSituations {

	}

	@PollingTest(peerHolding = "MAILBOX")
	static class UnknownCluster {

	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class Application {

		@Bean
		Poller poller() {
			return new Poller();
		}

	}

	static class Poller {

		private final AtomicInteger cyclesOfB = new AtomicInteger();

		@PollingCycle("B")
		public void pollB() {
			this.cyclesOfB.incrementAndGet();
		}

		public int cyclesOfB() {
			return this.cyclesOfB.get();
		}

	}

}
