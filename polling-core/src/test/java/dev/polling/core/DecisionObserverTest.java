package dev.polling.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.polling.core.test.FaultyPeers;

/**
 * The observer's spans are paired: every decision that starts ends (or fails) once, every peer
 * request ends exactly once with what the decision learnt, also a request to a hung peer that
 * the decision stopped waiting for (and whose late completion must not end it twice), and the
 * requests of a decision start and end inside it.
 */
class DecisionObserverTest {

	private static final String CLUSTER = "MAILBOX";

	private final FaultyPeers faulty = new FaultyPeers();

	private final List<String> events = new CopyOnWriteArrayList<>();

	private PollingManager manager;

	@AfterEach
	void close() {
		if (this.manager != null) {
			this.manager.close();
		}
		this.faulty.close();
	}

	@Test
	void everyDecisionAndEveryPeerRequestEndsOnceAndTheRequestsFallInsideTheirDecision() throws Exception {
		PeerDefinition hung = PeerDefinition.of("hung", "127.0.0.1", this.faulty.hungPort());
		PeerDefinition gone = PeerDefinition.of("gone", "127.0.0.1", this.faulty.refusingPort());
		this.manager = TestBuilders.ignoringStarvation(PollingManager.builder())
			.settings(PollingSettings.defaults().withInstanceId("me").withPeerTimeout(Duration.ofSeconds(2)))
			.cluster(ClusterDefinition.of(CLUSTER, Duration.ofSeconds(10)))
			.peers(List.of(hung, gone))
			.observer(this::starting)
			.build();
		Decision decision = this.manager.decide(CLUSTER);
		Thread.sleep(1000); // a late completion of the hung request would arrive meanwhile

		assertThat(this.events.get(0)).isEqualTo("decision start");
		assertThat(this.events.get(this.events.size() - 1)).isEqualTo("decision end " + decision.reason());
		assertThat(this.events).filteredOn((e) -> e.startsWith("decision")).hasSize(2);
		// the hung peer is unknown after the first round and not asked again; the refusing one is
		assertThat(this.events).filteredOn((e) -> e.equals("request start hung")).hasSize(1);
		assertThat(this.events).filteredOn((e) -> e.startsWith("request end hung")).containsExactly("request end hung UNRESPONSIVE");
		assertThat(this.events).filteredOn((e) -> e.equals("request start gone")).hasSize(2);
		assertThat(this.events).filteredOn((e) -> e.startsWith("request end gone")).containsExactly("request end gone REFUSED",
				"request end gone REFUSED");
	}

	@Test
	void aFailingObserverDoesNotStopTheDecision() {
		this.manager = PollingManager.builder()
			.settings(PollingSettings.defaults().withInstanceId("me"))
			.cluster(ClusterDefinition.of(CLUSTER, Duration.ofSeconds(10)))
			.observer((clusterId) -> {
				throw new IllegalStateException("observer broken");
			})
			.build();
		assertThat(this.manager.decide(CLUSTER).isGranted()).isTrue();
		assertThat(this.manager.decide(CLUSTER).isGranted()).as("renewed").isTrue();
	}

	private DecisionObserver.DecisionSpan starting(String clusterId) {
		this.events.add("decision start");
		return new DecisionObserver.DecisionSpan() {

			@Override
			public DecisionObserver.PeerRequestSpan peerRequestStarting(PeerDefinition peer) {
				DecisionObserverTest.this.events.add("request start " + peer.id());
				return (o) -> DecisionObserverTest.this.events.add("request end " + peer.id() + " " + o.state());
			}

			@Override
			public void ended(Decision decision) {
				DecisionObserverTest.this.events.add("decision end " + decision.reason());
			}

			@Override
			public void failed(RuntimeException failure) {
				DecisionObserverTest.this.events.add("decision failed " + failure);
			}

		};
	}

}
