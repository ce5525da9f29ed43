package dev.polling.boot.actuate;

import java.security.Principal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.SanitizableData;
import org.springframework.boot.actuate.endpoint.Sanitizer;
import org.springframework.boot.actuate.endpoint.SanitizingFunction;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

import dev.polling.boot.actuate.PollingEndpoint.ClusterDescriptor;
import dev.polling.boot.actuate.PollingEndpoint.HolderDescriptor;
import dev.polling.boot.actuate.PollingEndpointWebExtension.UnknownSelectorDescriptor;
import dev.polling.boot.actuate.PollingEndpoint.PollingDescriptor;
import dev.polling.core.ClusterDefinition;
import dev.polling.core.discovery.DnsDiscovery;
import dev.polling.core.PeerClient;
import dev.polling.core.PeerDefinition;
import dev.polling.core.PeerFault;
import dev.polling.core.PeerObservation;
import dev.polling.core.PeerState;
import dev.polling.core.PollingManager;
import dev.polling.core.PollingSettings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.boot.actuate.endpoint.SecurityContext.NONE;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class PollingEndpointTests {

	private static final String PASSWORD = "endpoint-Secret-9";

	private final PollingManager manager = PollingManager.builder()
		.settings(PollingSettings.defaults().withInstanceId("endpoint").withPeerTimeout(Duration.ofSeconds(2)))
		.cluster(ClusterDefinition.of("MAILABRUF_CLUSTER", Duration.ofSeconds(10)).withName("XY-Nachrichten"))
		.peer(PeerDefinition.of("SERVER2", "127.0.0.1", 1).withCredentials("polling", PASSWORD))
		.build();

	private final PollingEndpoint endpoint = new PollingEndpoint(this.manager);

	@AfterEach
	void close() {
		this.manager.close();
	}

	@Test
	void describesEveryClusterWithItsPeers() {
		PollingDescriptor polling = this.endpoint.polling(NONE);
		assertThat(polling.instanceId()).isEqualTo("endpoint");
		assertThat(polling.standalone()).isFalse();
		assertThat(polling.unreachablePeerPolicy()).isEqualTo("proceed");
		ClusterDescriptor cluster = polling.clusters().get("MAILABRUF_CLUSTER");
		assertThat(cluster.name()).isEqualTo("XY-Nachrichten");
		assertThat(cluster.waitTime()).isEqualTo("PT10S");
		assertThat(cluster.holding()).isFalse();
		assertThat(cluster.lastDecision()).isNull();
		assertThat(cluster.peers()).singleElement().satisfies((peer) -> {
			assertThat(peer.id()).isEqualTo("SERVER2");
			assertThat(peer.address()).isEqualTo("127.0.0.1:1");
			assertThat(peer.username()).as("masked by default").isEqualTo(SanitizableData.SANITIZED_VALUE);
			assertThat(peer.state()).isNull();
		});
	}

	@Test
	void showsThePeersFoundThroughDns() throws Exception {
		java.net.InetAddress first = java.net.InetAddress.getByName("127.0.0.5");
		java.net.InetAddress second = java.net.InetAddress.getByName("127.0.0.6");
		try (PollingManager discovering = PollingManager.builder()
			.settings(PollingSettings.defaults().withInstanceId("endpoint").withPeerTimeout(Duration.ofMillis(300)))
			.cluster(ClusterDefinition.of("MAILABRUF_CLUSTER", Duration.ofSeconds(10)))
			.discovery(DnsDiscovery.of("orders-polling.test", 1).withCredentials("polling", PASSWORD))
			.peerResolver((name) -> List.of(first, second))
			.build()) {
			org.awaitility.Awaitility.await().until(() -> discovering.discoveredPeers().size() == 2);
			discovering.decide("MAILABRUF_CLUSTER");
			PollingDescriptor polling = new PollingEndpoint(discovering).polling(NONE);
			assertThat(polling.standalone()).isFalse();
			assertThat(polling.discovery()).isNotNull();
			assertThat(polling.discovery().name()).isEqualTo("orders-polling.test");
			assertThat(polling.discovery().peers()).extracting(PollingEndpoint.DiscoveredPeerDescriptor::id)
				.containsExactly("127.0.0.5:1", "127.0.0.6:1");
			assertThat(polling.discovery().peers()).allSatisfy((peer) -> {
				assertThat(peer.missingSince()).isNull();
				assertThat(peer.self()).isFalse();
			});
			assertThat(polling.clusters().get("MAILABRUF_CLUSTER").peers()).extracting((peer) -> peer.address() + " " + peer.state())
				.containsExactly("127.0.0.5:1 refused", "127.0.0.6:1 refused");
			assertThat(polling.clusters().get("MAILABRUF_CLUSTER").lastDecision().reason()).isEqualTo("discovery-pending");
			assertThat(JsonMapper.builder().build().writeValueAsString(polling)).contains("127.0.0.6").doesNotContain(PASSWORD);
		}
	}

	@Test
	void showsTheLastDecisionAndWhatEachPeerSaid() {
		assertThat(this.manager.tryStartPolling("MAILABRUF_CLUSTER")).isTrue();
		ClusterDescriptor cluster = this.endpoint.cluster(NONE, "MAILABRUF_CLUSTER");
		assertThat(cluster.holding()).isTrue();
		assertThat(cluster.lastActivity()).isNotNull();
		assertThat(cluster.elapsedMillis()).isNotNull();
		assertThat(cluster.lastDecision().outcome()).isEqualTo("granted");
		assertThat(cluster.lastDecision().reason()).isEqualTo("no-active-peer");
		assertThat(cluster.peers()).singleElement().satisfies((peer) -> {
			assertThat(peer.state()).isEqualTo("refused");
			assertThat(peer.fault()).isEqualTo("connection-refused");
			assertThat(peer.latencyMillis()).isNotNull();
		});
	}

	@Test
	void neverSerializesAPassword() {
		this.manager.tryStartPolling("MAILABRUF_CLUSTER");
		PollingEndpoint showing = new PollingEndpoint(this.manager,
				new PollingValueSanitizer(new Sanitizer(), Show.ALWAYS, Set.of()));
		String json = JsonMapper.builder().build().writeValueAsString(showing.polling(NONE));
		assertThat(json).contains("\"username\":\"polling\"").doesNotContain(PASSWORD).doesNotContainIgnoringCase("password");
	}

	@Test
	void masksUserNamesAndErrorTextsUnlessShowValuesAllowsThem() {
		this.manager.tryStartPolling("MAILABRUF_CLUSTER");
		// the default, as for Spring Boot's env endpoint: masked
		assertThat(this.endpoint.cluster(NONE, "MAILABRUF_CLUSTER").peers()).singleElement().satisfies((peer) -> {
			assertThat(peer.username()).isEqualTo(SanitizableData.SANITIZED_VALUE);
			assertThat(peer.detail()).isIn(null, SanitizableData.SANITIZED_VALUE);
			assertThat(peer.fault()).as("what kind of fault is no secret").isEqualTo("connection-refused");
		});
		// when-authorized: shown to a user in the role, masked for others
		PollingEndpoint whenAuthorized = new PollingEndpoint(this.manager,
				new PollingValueSanitizer(new Sanitizer(), Show.WHEN_AUTHORIZED, Set.of("OPS")));
		assertThat(whenAuthorized.cluster(user("OPS"), "MAILABRUF_CLUSTER").peers().get(0).username()).isEqualTo("polling");
		assertThat(whenAuthorized.cluster(user("DEV"), "MAILABRUF_CLUSTER").peers().get(0).username())
			.isEqualTo(SanitizableData.SANITIZED_VALUE);
		assertThat(whenAuthorized.cluster(NONE, "MAILABRUF_CLUSTER").peers().get(0).username())
			.isEqualTo(SanitizableData.SANITIZED_VALUE);
		// the application's sanitizing functions apply even where values are shown
		SanitizingFunction hideUsers = (data) -> data.getKey().equals("username") ? data.withValue("user-hidden") : data;
		PollingEndpoint always = new PollingEndpoint(this.manager,
				new PollingValueSanitizer(new Sanitizer(List.of(hideUsers)), Show.ALWAYS, Set.of()));
		assertThat(always.polling(NONE).clusters().get("MAILABRUF_CLUSTER").peers().get(0).username()).isEqualTo("user-hidden");
	}

	private static SecurityContext user(String role) {
		return new SecurityContext() {

			@Override
			public Principal getPrincipal() {
				return () -> "operator";
			}

			@Override
			public boolean isUserInRole(String candidate) {
				return candidate.equals(role);
			}

		};
	}

	@Test
	void namesTheHolderAsThisInstanceAPeerOrUnknown() {
		assertThat(this.endpoint.cluster(NONE, "MAILABRUF_CLUSTER").holder()).isEqualTo(new HolderDescriptor("unknown", null, null));
		this.manager.tryStartPolling("MAILABRUF_CLUSTER");
		assertThat(this.endpoint.cluster(NONE, "MAILABRUF_CLUSTER").holder())
			.isEqualTo(new HolderDescriptor("this-instance", null, "endpoint"));
		this.manager.pause("MAILABRUF_CLUSTER");
		this.manager.decide("MAILABRUF_CLUSTER");
		// the only peer refused the connection: nobody answered holding
		assertThat(this.endpoint.polling(NONE).clusters().get("MAILABRUF_CLUSTER").holder().kind()).isEqualTo("unknown");
	}

	@Test
	void namesThePeerThatAnsweredHolding() {
		PeerClient holdingPeer = new PeerClient() {

			@Override
			public CompletableFuture<PeerObservation> observe(PeerDefinition peer, ClusterDefinition cluster, Duration timeout) {
				return CompletableFuture.completedFuture(new PeerObservation(peer.id(), peer.address(), PeerState.ANSWERED,
						PeerFault.NONE, "server2", 5, -1, Duration.ZERO, Instant.now(), null));
			}

			@Override
			public void close() {
			}

		};
		try (PollingManager standby = PollingManager.builder()
			.settings(PollingSettings.defaults().withInstanceId("standby").withPeerTimeout(Duration.ofSeconds(2)))
			.cluster(ClusterDefinition.of("MAILABRUF_CLUSTER", Duration.ofSeconds(10)))
			.peer(PeerDefinition.of("SERVER2", "127.0.0.1", 1))
			.peerClient(holdingPeer)
			.build()) {
			assertThat(standby.tryStartPolling("MAILABRUF_CLUSTER")).isFalse();
			assertThat(new PollingEndpoint(standby).cluster(NONE, "MAILABRUF_CLUSTER").holder())
				.isEqualTo(new HolderDescriptor("peer", "SERVER2", "server2"));
		}
	}

	@Test
	void answersAnUnknownClusterOrStateOverHttpWithTheValidOnes() {
		PollingEndpointWebExtension web = new PollingEndpointWebExtension(this.endpoint);
		WebEndpointResponse<OperationResponseBody> unknownCluster = web.cluster(NONE, "NOPE");
		assertThat(unknownCluster.getStatus()).isEqualTo(404);
		assertThat(unknownCluster.getBody()).isEqualTo(new UnknownSelectorDescriptor("Unknown polling cluster 'NOPE'", "cluster", "NOPE",
				List.of("MAILABRUF_CLUSTER")));
		assertThat(web.cluster(NONE, "MAILABRUF_CLUSTER").getStatus()).isEqualTo(200);
		WebEndpointResponse<OperationResponseBody> unknownState = web.changeState(NONE, "MAILABRUF_CLUSTER", "released");
		assertThat(unknownState.getStatus()).isEqualTo(400);
		assertThat(unknownState.getBody())
			.isEqualTo(new UnknownSelectorDescriptor("Unknown state 'released'", "state", "released", List.of("active", "paused")));
		WebEndpointResponse<OperationResponseBody> unknownClusterChange = web.changeState(NONE, "NOPE", "paused");
		assertThat(unknownClusterChange.getStatus()).isEqualTo(404);
		assertThat(unknownClusterChange.getBody()).isEqualTo(new UnknownSelectorDescriptor("Unknown polling cluster 'NOPE'", "cluster",
				"NOPE", List.of("MAILABRUF_CLUSTER")));
		assertThat(web.changeState(NONE, "MAILABRUF_CLUSTER", "paused").getStatus()).isEqualTo(200);
		assertThat(this.manager.isPaused("MAILABRUF_CLUSTER")).isTrue();
	}

	@Test
	void answersNothingForAnUnknownCluster() {
		assertThat(this.endpoint.cluster(NONE, "NOPE")).isNull();
		assertThat(this.endpoint.changeState(NONE, "NOPE", "paused")).isNull();
	}

	@Test
	void pausesAndReactivatesAClusterByState() {
		this.manager.tryStartPolling("MAILABRUF_CLUSTER");
		ClusterDescriptor paused = this.endpoint.changeState(NONE, "MAILABRUF_CLUSTER", "paused");
		assertThat(paused.paused()).isTrue();
		assertThat(paused.holding()).isFalse();
		assertThat(this.manager.tryStartPolling("MAILABRUF_CLUSTER")).isFalse();
		assertThat(this.endpoint.changeState(NONE, "MAILABRUF_CLUSTER", "active").paused()).isFalse();
		assertThat(this.manager.tryStartPolling("MAILABRUF_CLUSTER")).isTrue();
		assertThatExceptionOfType(InvalidEndpointRequestException.class)
			.isThrownBy(() -> this.endpoint.changeState(NONE, "MAILABRUF_CLUSTER", "released"))
			.withMessageContaining("use [active, paused]");
	}

	/** Issue 29, defect 2: a pause during a running cycle hands over when the cycle ends; the endpoint shows it meanwhile. */
	@Test
	void aPauseDuringARunningCycleShowsTheHandoverUntilTheCycleEnds() throws Exception {
		java.util.concurrent.CountDownLatch running = new java.util.concurrent.CountDownLatch(1);
		java.util.concurrent.CountDownLatch finish = new java.util.concurrent.CountDownLatch(1);
		CompletableFuture<dev.polling.core.Decision> cycle = CompletableFuture
			.supplyAsync(() -> this.manager.runIfGranted("MAILABRUF_CLUSTER", () -> {
				running.countDown();
				try {
					finish.await(30, java.util.concurrent.TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}));
		assertThat(running.await(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
		ClusterDescriptor paused = this.endpoint.changeState(NONE, "MAILABRUF_CLUSTER", "paused");
		assertThat(paused.paused()).isTrue();
		assertThat(paused.cycleRunning()).isTrue();
		assertThat(paused.handingOver()).as("handing over after the running cycle").isTrue();
		assertThat(paused.holding()).as("held until the cycle ends").isTrue();
		finish.countDown();
		assertThat(cycle.get(30, java.util.concurrent.TimeUnit.SECONDS).isGranted()).isTrue();
		ClusterDescriptor after = this.endpoint.cluster(NONE, "MAILABRUF_CLUSTER");
		assertThat(after.handingOver()).isFalse();
		assertThat(after.holding()).isFalse();
		assertThat(after.paused()).isTrue();
	}

}
