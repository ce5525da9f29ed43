package dev.polling.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.polling.core.ClusterDefinition;
import dev.polling.core.Decision;
import dev.polling.core.Decision.Reason;
import dev.polling.core.PollingManager;
import dev.polling.core.PollingSettings;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;

/**
 * The coordinator under the core's decisions, on the mock API server; the core on the real clocks, each
 * coordinator on a clock of its own that the test moves (a fresh instance takes a missing Lease only
 * after the lease duration).
 */
class LeaseCoordinatorPollingManagerTest {

	private KubernetesMockServer server;

	private final List<KubernetesClient> clients = new ArrayList<>();

	private final List<PollingManager> managers = new ArrayList<>();

	@BeforeEach
	void start() {
		this.server = MockServerSupport.start(0);
	}

	@AfterEach
	void stop() {
		this.managers.forEach(PollingManager::close);
		this.clients.forEach(KubernetesClient::close);
		this.server.destroy();
	}

	private static final Duration LEASE = Duration.ofSeconds(15);

	private PollingManager instance(String id, MockServerSupport.ManualClock clock) {
		KubernetesClient client = MockServerSupport.client(this.server.getPort(), MockServerSupport.NAMESPACE);
		this.clients.add(client);
		LeaseCoordinator coordinator = LeaseCoordinator.builder(client).leaseDuration(LEASE).nanoTime(clock).wallClock(clock.wall()).build();
		// a peer timeout of 10 s: a coordinator call may take up to 20 s before the decision gives up on it
		// (COORDINATION_UNAVAILABLE). With the default 2 s (4 s), a fresh client's first request to the mock
		// server on a loaded CI machine took longer; the test is about the lease, not about its speed
		PollingManager manager = PollingManager.builder()
			.settings(PollingSettings.defaults().withInstanceId(id).withPeerTimeout(Duration.ofSeconds(10)))
			.cluster(ClusterDefinition.of("orders", Duration.ofSeconds(30)))
			.coordinator("orders", coordinator)
			.build();
		this.managers.add(manager);
		return manager;
	}

	@Test
	void oneInstanceHoldsWithAFencingTokenAndAnotherTakesOverAtOnceAfterItCloses() {
		MockServerSupport.ManualClock clockA = new MockServerSupport.ManualClock();
		MockServerSupport.ManualClock clockB = new MockServerSupport.ManualClock();
		PollingManager a = instance("a", clockA);
		PollingManager b = instance("b", clockB);
		// a, fresh, finds no Lease: it reserves it, b sees the reservation; a takes it after the lease duration
		assertThat(a.decide("orders").isGranted()).isFalse();
		assertThat(b.decide("orders").isGranted()).isFalse();
		clockA.advance(LEASE);
		clockB.advance(LEASE);
		assertThat(a.decide("orders").reason()).isEqualTo(Reason.NO_ACTIVE_PEER);
		long epoch = a.fencingToken("orders").orElseThrow();
		assertThat(a.decide("orders").reason()).isEqualTo(Reason.RENEWED);
		Decision refused = b.decide("orders");
		assertThat(refused.reason()).isEqualTo(Reason.PEER_ACTIVE);
		assertThat(refused.peers().get(0).instanceId()).isEqualTo("a");
		assertThat(b.fencingToken("orders")).isEmpty();
		// closing releases the lease: b takes it at its next decision, with the next epoch
		a.close();
		Decision taken = b.decide("orders");
		assertThat(taken.reason()).isEqualTo(Reason.NO_ACTIVE_PEER);
		assertThat(b.fencingToken("orders")).hasValue(epoch + 1);
	}

	@Test
	void aSecondProcessWithTheSameInstanceIdIsReportedAsSuch() {
		MockServerSupport.ManualClock clock = new MockServerSupport.ManualClock();
		PollingManager first = instance("same", clock);
		PollingManager second = instance("same", new MockServerSupport.ManualClock());
		assertThat(first.decide("orders").isGranted()).isFalse();
		clock.advance(LEASE);
		assertThat(first.decide("orders").isGranted()).isTrue();
		assertThat(second.decide("orders").reason()).isEqualTo(Reason.DUPLICATE_INSTANCE_ID);
	}

}
