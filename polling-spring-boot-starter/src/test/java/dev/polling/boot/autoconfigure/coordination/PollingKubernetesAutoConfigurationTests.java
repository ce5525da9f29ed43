package dev.polling.boot.autoconfigure.coordination;

import java.net.InetAddress;
import java.time.Duration;
import java.util.HashMap;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.polling.boot.autoconfigure.PollingAutoConfiguration;
import dev.polling.core.Decision;
import dev.polling.core.Decision.Reason;
import dev.polling.core.PollingManager;
import dev.polling.kubernetes.LeaseCoordinator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code polling.coordination.kind=kubernetes} against fabric8's mock API server in CRUD mode: the
 * clusters take Lease objects through the application's client, two instances agree on one holder,
 * each cluster's wait time is its lease duration unless one is configured, and bad settings or a
 * missing module stop the start naming the property. Tests that need a grant configure a lease
 * duration of a few seconds: a fresh instance takes a missing Lease only after one lease duration, on
 * the real clock here.
 */
class PollingKubernetesAutoConfigurationTests {

	private KubernetesMockServer server;

	private KubernetesClient client;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(PollingKubernetesAutoConfiguration.class, PollingAutoConfiguration.class))
		.withPropertyValues("polling.coordination.kind=kubernetes", "polling.clusters.MAILBOX_1.wait-time=10s",
				"polling.clusters.MAILBOX_2.wait-time=20s");

	@BeforeEach
	void startServer() throws Exception {
		this.server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), new KubernetesCrudDispatcher(), false);
		this.server.init(InetAddress.getByName("127.0.0.1"), 0);
		this.client = newClient();
	}

	/** A client of the mock server; each context gets its own (a context closes its client bean). */
	private KubernetesClient newClient() {
		Config config = new ConfigBuilder(Config.empty()).withMasterUrl("http://127.0.0.1:" + this.server.getPort() + "/")
			.withNamespace("polling-test")
			.withRequestRetryBackoffLimit(0)
			.build();
		return new KubernetesClientBuilder().withConfig(config).build();
	}

	@AfterEach
	void stopServer() {
		this.client.close();
		this.server.destroy();
	}

	@Test
	void theClustersTakeLeasesThroughTheApplicationsClientAndTwoInstancesAgreeOnOneHolder() {
		ApplicationContextRunner instance = this.runner.withBean(KubernetesClient.class, this::newClient)
			.withPropertyValues("polling.coordination.failover-period=3s");
		instance.withPropertyValues("polling.instance-id=pod-a").run((a) -> {
			PollingManager first = a.getBean(PollingManager.class);
			Decision decision = firstGrant(first, "MAILBOX_1");
			assertThat(decision.peers().get(0).peerId()).isEqualTo("coordinator");
			assertThat(decision.peers().get(0).address()).contains("Kubernetes Lease").contains("polling-test");
			assertThat(first.fencingToken("MAILBOX_1")).isPresent();
			Lease lease = lease("MAILBOX_1");
			assertThat(lease.getSpec().getHolderIdentity()).isEqualTo("pod-a");
			assertThat(lease.getSpec().getLeaseDurationSeconds()).isEqualTo(3);
			instance.withPropertyValues("polling.instance-id=pod-b").run((b) -> {
				PollingManager second = b.getBean(PollingManager.class);
				for (int tick = 0; tick < 20; tick++) {
					assertThat(first.decide("MAILBOX_1").reason()).isEqualTo(Reason.RENEWED);
					Decision refused = second.decide("MAILBOX_1");
					assertThat(refused.reason()).isEqualTo(Reason.PEER_ACTIVE);
					assertThat(refused.peers().get(0).instanceId()).isEqualTo("pod-a");
				}
				firstGrant(second, "MAILBOX_2");
				// pod-a looks at MAILBOX_2 for longer than its lease duration while pod-b renews: pod-a is not fresh any more
				long until = System.nanoTime() + Duration.ofMillis(3500).toNanos();
				while (System.nanoTime() < until) {
					assertThat(second.decide("MAILBOX_2").reason()).isEqualTo(Reason.RENEWED);
					assertThat(first.decide("MAILBOX_2").peers().get(0).instanceId()).isEqualTo("pod-b");
					Thread.sleep(200);
				}
			});
			// pod-b's shutdown released MAILBOX_2: pod-a takes it at once, without waiting for the lease
			assertThat(first.decide("MAILBOX_2").reason()).isEqualTo(Reason.NO_ACTIVE_PEER);
		});
	}

	@Test
	void eachClustersWaitTimeIsItsLeaseDurationUnlessOneIsConfigured() {
		this.runner.withBean(KubernetesClient.class, this::newClient).run((context) -> {
			PollingManager manager = context.getBean(PollingManager.class);
			// a fresh instance reserves a missing Lease, written with its lease duration, and takes it only after it
			assertThat(manager.decide("MAILBOX_1").isGranted()).isFalse();
			assertThat(manager.decide("MAILBOX_2").isGranted()).isFalse();
			assertThat(lease("MAILBOX_1").getSpec().getHolderIdentity()).isEqualTo(manager.settings().instanceId());
			assertThat(lease("MAILBOX_1").getSpec().getRenewTime()).isNull();
			assertThat(lease("MAILBOX_1").getSpec().getLeaseDurationSeconds()).isEqualTo(10);
			assertThat(lease("MAILBOX_2").getSpec().getLeaseDurationSeconds()).isEqualTo(20);
		});
	}

	@Test
	void aConfiguredLeaseDurationAppliesToEveryCluster() {
		this.runner.withBean(KubernetesClient.class, this::newClient)
			.withPropertyValues("polling.coordination.failover-period=2s", "polling.coordination.kubernetes.lease-name-prefix=orders-")
			.run((context) -> {
				PollingManager manager = context.getBean(PollingManager.class);
				firstGrant(manager, "MAILBOX_1");
				firstGrant(manager, "MAILBOX_2");
				assertThat(this.client.leases().inNamespace("polling-test").list().getItems())
					.allSatisfy((lease) -> {
						assertThat(lease.getMetadata().getName()).startsWith("orders-");
						assertThat(lease.getSpec().getLeaseDurationSeconds()).isEqualTo(2);
					});
			});
	}

	@Test
	void aRenewDeadlineNotShorterThanTheLeaseStopsTheStartNamingTheProperty() {
		this.runner.withBean(KubernetesClient.class, this::newClient)
			.withPropertyValues("polling.coordination.kubernetes.renew-deadline=15s")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).rootCause()
					.hasMessageContaining("polling.coordination.kubernetes.renew-deadline")
					.hasMessageContaining("'15s'")
					.hasMessageContaining("not shorter than the lease duration (10s, the wait time of cluster 'MAILBOX_1'");
			});
	}

	@Test
	void twoClusterIdsOnOneLeaseNameStopTheStartNamingBoth() {
		this.runner.withBean(KubernetesClient.class, this::newClient)
			.withPropertyValues("polling.clusters.MAILABRUF_CLUSTER.wait-time=10s", "polling.clusters.mailabruf-cluster-72170219.wait-time=10s")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).rootCause()
					.hasMessageContaining("polling.clusters")
					.hasMessageContaining("cluster ids 'MAILABRUF_CLUSTER' and 'mailabruf-cluster-72170219' map to the same Lease name "
							+ "'polling-mailabruf-cluster-72170219'");
			});
	}

	@Test
	void withoutTheModuleTheStartFailsNamingTheProperty() {
		this.runner.withClassLoader(new FilteredClassLoader(LeaseCoordinator.class)).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("polling.coordination.kind")
				.hasMessageContaining("dev.polling:polling-kubernetes");
		});
	}

	@Test
	void clustersThatUseAnotherKindBuildNoClient() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(PollingKubernetesAutoConfiguration.class, PollingAutoConfiguration.class))
			.withPropertyValues("polling.clusters.MAILBOX_1.wait-time=10s")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).doesNotHaveBean(KubernetesClient.class);
				assertThat(context.getBean(PollingManager.class).decide("MAILBOX_1").reason()).isEqualTo(Reason.STANDALONE);
			});
	}

	/**
	 * A fresh instance's first grant of a cluster: it finds no Lease, reserves it, and takes it once the
	 * reservation has stood for the lease duration (a holder of a Lease deleted just before may act until then).
	 */
	private static Decision firstGrant(PollingManager manager, String cluster) throws InterruptedException {
		Decision decision = manager.decide(cluster);
		assertThat(decision.isGranted()).as("a fresh instance takes a missing Lease at once").isFalse();
		long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
		while (!decision.isGranted() && System.nanoTime() < deadline) {
			Thread.sleep(100);
			decision = manager.decide(cluster);
		}
		assertThat(decision.reason()).isEqualTo(Reason.NO_ACTIVE_PEER);
		return decision;
	}

	private Lease lease(String cluster) {
		return this.client.leases().inNamespace("polling-test").list().getItems().stream()
			.filter((lease) -> lease.getMetadata().getName().startsWith("polling-" + cluster.toLowerCase().replace('_', '-')))
			.findFirst()
			.orElseThrow(() -> new AssertionError("no lease for " + cluster));
	}

}
