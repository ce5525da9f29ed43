package dev.polling.sample;

import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.HashMap;

import com.icegreen.greenmail.junit5.GreenMailExtension;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.polling.core.Decision;
import dev.polling.core.PollingManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample with each coordinator by one property ({@code polling.coordination}): the three
 * mailbox clusters decide through the chosen store, and a mail still becomes one order. JMX and
 * JDBC are the sample's own configuration (the mailboxes and the follow-up cluster); here ShedLock
 * on the sample's database, and Kubernetes Leases on fabric8's mock API server (the one part a
 * real deployment has instead: the API server of its cluster).
 */
class CoordinationChoiceTests {

	@RegisterExtension
	static final GreenMailExtension mailServer = TestMails.mailServerWithTheSampleMailboxes();

	@DynamicPropertySource
	static void mailServer(DynamicPropertyRegistry registry) {
		TestMails.registerPorts(registry, mailServer);
	}

	static void aMailBecomesOneOrderThroughTheCoordinator(PollingManager polling, JdbcClient jdbc, String store) throws Exception {
		// a Lease coordinator grants a fresh process nothing before it has watched the Lease for one lease
		// duration (2 s below); the other stores grant at once
		Decision decision = await().atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(200))
			.until(() -> polling.decide("MAILBOX_1"), Decision::isGranted);
		assertThat(decision.peers()).singleElement().satisfies((observation) -> {
			assertThat(observation.peerId()).isEqualTo("coordinator");
			assertThat(observation.address()).contains(store);
		});
		TestMails.send(mailServer, "mailbox-1", "<coordinated@shop.example>", "Order 9: 1 x widget");
		await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(jdbc.sql("SELECT COUNT(*) FROM orders WHERE message_id = ?")
			.param("coordinated@shop.example")
			.query(Long.class)
			.single()).isEqualTo(1L));
	}

	@Nested
	@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.NONE,
			properties = { "polling.coordination.kind=shedlock", "spring.datasource.url=jdbc:h2:mem:coordination-shedlock;DB_CLOSE_DELAY=-1",
					"sample.poll-delay-millis=200", "polling.instance-id=shedlock-instance" })
	@DirtiesContext
	class ShedLock {

		@Autowired
		private PollingManager polling;

		@Autowired
		private JdbcClient jdbc;

		@Test
		void theMailboxesAreLockedThroughShedLock() throws Exception {
			aMailBecomesOneOrderThroughTheCoordinator(this.polling, this.jdbc, "ShedLock JdbcTemplateLockProvider");
			assertThat(this.jdbc.sql("SELECT COUNT(*) FROM shedlock WHERE name LIKE 'polling-MAILBOX_%'").query(Long.class).single())
				.isEqualTo(3L);
		}

	}

	@Nested
	@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.NONE,
			properties = { "polling.coordination.kind=kubernetes", "spring.datasource.url=jdbc:h2:mem:coordination-k8s;DB_CLOSE_DELAY=-1",
					"sample.poll-delay-millis=200", "polling.instance-id=pod-1", "polling.coordination.failover-period=2s" })
	@DirtiesContext
	class Kubernetes {

		@Autowired
		private PollingManager polling;

		@Autowired
		private JdbcClient jdbc;

		@Autowired
		private KubernetesClient client;

		@Test
		void theMailboxesTakeLeases() throws Exception {
			aMailBecomesOneOrderThroughTheCoordinator(this.polling, this.jdbc, "Kubernetes Lease");
			assertThat(this.client.leases().inNamespace("sample").list().getItems())
				.filteredOn((lease) -> lease.getMetadata().getName().startsWith("polling-mailbox-"))
				.hasSize(3)
				.allSatisfy((lease) -> assertThat(lease.getSpec().getHolderIdentity()).isEqualTo("pod-1"));
		}

		@TestConfiguration(proxyBeanMethods = false)
		static class ApiServer {

			@Bean
			KubernetesClient kubernetesClient() {
				Config config = new ConfigBuilder(Config.empty()).withMasterUrl("http://127.0.0.1:" + MockApiServer.port() + "/")
					.withNamespace("sample")
					.withRequestRetryBackoffLimit(0)
					.build();
				return new KubernetesClientBuilder().withConfig(config).build();
			}

		}

	}

	/** fabric8's mock API server in CRUD mode, one for the class. */
	static final class MockApiServer {

		private static KubernetesMockServer server;

		static synchronized int port() {
			if (server == null) {
				server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), new KubernetesCrudDispatcher(), false);
				try {
					server.init(InetAddress.getByName("127.0.0.1"), 0);
				}
				catch (IOException ex) {
					throw new IllegalStateException(ex);
				}
			}
			return server.getPort();
		}

	}

	@AfterAll
	static void stopApiServer() {
		if (MockApiServer.server != null) {
			MockApiServer.server.destroy();
		}
	}

}
