package dev.polling.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;

/** Bad settings fail in build() with one message naming the setting, its value and the fix; lease names. */
class LeaseCoordinatorConfigurationTest {

	// nothing listens there: building a coordinator sends no request
	private final KubernetesClient client = MockServerSupport.client(9, "apps");

	@AfterEach
	void close() {
		this.client.close();
	}

	@Test
	void defaults() {
		LeaseCoordinator coordinator = LeaseCoordinator.builder(this.client).leaseDuration(Duration.ofSeconds(15)).build();
		assertThat(coordinator.renewDeadline()).isEqualTo(Duration.ofSeconds(10));
		assertThat(coordinator.leaseDuration()).isEqualTo(Duration.ofSeconds(15));
		assertThat(coordinator.describe()).isEqualTo("Kubernetes Lease polling-* in namespace apps at http://127.0.0.1:9");
		assertThat(coordinator.leaseName("orders")).isEqualTo("polling-orders");
	}

	@Test
	void leaseDurationIsRequiredAndPositive() {
		assertThatThrownBy(() -> LeaseCoordinator.builder(this.client).build()).isInstanceOf(IllegalArgumentException.class)
			.hasMessage("leaseDuration is not set; set it to the failover period, e.g. leaseDuration(Duration.ofSeconds(15))");
		assertThatThrownBy(() -> LeaseCoordinator.builder(this.client).leaseDuration(Duration.ZERO).build())
			.isInstanceOf(IllegalArgumentException.class)
			.hasMessage("leaseDuration PT0S must be positive; e.g. 15s");
	}

	@Test
	void renewDeadlineMustBeShorterThanTheLeaseDuration() {
		assertThatThrownBy(() -> LeaseCoordinator.builder(this.client)
			.leaseDuration(Duration.ofSeconds(15))
			.renewDeadline(Duration.ofSeconds(15))
			.build()).isInstanceOf(IllegalArgumentException.class)
			.hasMessage("renewDeadline PT15S must be shorter than leaseDuration PT15S: a holder must step down before another "
					+ "instance may take over; leave it unset for two thirds of the leaseDuration (PT10S)");
		assertThatThrownBy(() -> LeaseCoordinator.builder(this.client)
			.leaseDuration(Duration.ofSeconds(15))
			.renewDeadline(Duration.ofSeconds(-1))
			.build()).hasMessageStartingWith("renewDeadline PT-1S must be positive");
	}

	@Test
	void leaseNamePrefixMustStartAnObjectName() {
		assertThatThrownBy(() -> LeaseCoordinator.builder(this.client)
			.leaseDuration(Duration.ofSeconds(15))
			.leaseNamePrefix("Polling_")
			.build()).isInstanceOf(IllegalArgumentException.class)
			.hasMessage("leaseNamePrefix 'Polling_' cannot start a Kubernetes object name: use at most 200 lower case letters, "
					+ "digits, '-' and '.', starting with a letter or digit, no '.' next to '-' or '.', e.g. 'polling-'");
		assertThatThrownBy(() -> LeaseCoordinator.builder(this.client).leaseDuration(Duration.ofSeconds(15)).leaseNamePrefix("a-.").build())
			.hasMessageStartingWith("leaseNamePrefix 'a-.' cannot start a Kubernetes object name");
		assertThat(LeaseCoordinator.builder(this.client).leaseDuration(Duration.ofSeconds(15)).leaseNamePrefix("").build()
			.leaseName("orders")).isEqualTo("orders");
	}

	@Test
	void namespaceDefaultsToTheClientsAndMustBeValid() {
		Config config = new ConfigBuilder(Config.empty()).withMasterUrl("http://127.0.0.1:9/").build();
		config.setNamespace(null);
		try (KubernetesClient without = new KubernetesClientBuilder().withConfig(config).build()) {
			assertThatThrownBy(() -> LeaseCoordinator.builder(without).leaseDuration(Duration.ofSeconds(15)).build())
				.isInstanceOf(IllegalArgumentException.class)
				.hasMessageStartingWith("namespace is not set and the Kubernetes client has none configured; set it");
			assertThat(LeaseCoordinator.builder(without).leaseDuration(Duration.ofSeconds(15)).namespace("ops").build().describe())
				.contains("in namespace ops");
		}
		assertThatThrownBy(() -> LeaseCoordinator.builder(this.client).leaseDuration(Duration.ofSeconds(15)).namespace("Ops_1").build())
			.isInstanceOf(IllegalArgumentException.class)
			.hasMessage("namespace 'Ops_1' is not a valid Kubernetes namespace: use at most 63 lower case letters, digits and '-', "
					+ "starting and ending with a letter or digit");
	}

	@Test
	void clusterIdsThatAreNoObjectNamesAreSanitizedAndKeptApart() {
		String upper = LeaseCoordinator.leaseName("polling-", "MAILABRUF_CLUSTER");
		String lower = LeaseCoordinator.leaseName("polling-", "mailabruf-cluster");
		assertThat(lower).isEqualTo("polling-mailabruf-cluster");
		assertThat(upper).matches("polling-mailabruf-cluster-[0-9a-f]{8}").isNotEqualTo(lower);
		assertThat(LeaseCoordinator.leaseName("polling-", "Mailabruf_Cluster")).isNotEqualTo(upper);
		assertThat(LeaseCoordinator.leaseName("", "_x_")).matches("x-[0-9a-f]{8}");
		assertThat(LeaseCoordinator.leaseName("p.", "___")).matches("p\\.[0-9a-f]{8}");
		assertThat(LeaseCoordinator.leaseName("p.", "-Q")).matches("p\\.q-[0-9a-f]{8}");
		assertThat(LeaseCoordinator.leaseName("polling-", "MAILABRUF_CLUSTER")).isEqualTo("polling-mailabruf-cluster-72170219");
		assertThat(LeaseCoordinator.leaseName("polling-", "a..b")).matches("polling-a--b-[0-9a-f]{8}");
		String longName = LeaseCoordinator.leaseName("polling-", "X".repeat(400));
		assertThat(longName).hasSizeLessThanOrEqualTo(253).matches("[a-z0-9]([-a-z0-9.]*[a-z0-9])?");
		assertThat(LeaseCoordinator.leaseName("polling-", "orders.eu")).isEqualTo("polling-orders.eu");
	}

	@Test
	void everyClusterIdGetsAValidLeaseName() {
		java.util.Random random = new java.util.Random(42);
		String alphabet = "aZ09-._ /ÄçX";
		for (String prefix : java.util.List.of("", "polling-", "p.", "a", "x".repeat(199) + "-")) {
			for (int i = 0; i < 2_000; i++) {
				StringBuilder id = new StringBuilder();
				int length = 1 + random.nextInt((i % 10 == 0) ? 400 : 12);
				for (int c = 0; c < length; c++) {
					id.append(alphabet.charAt(random.nextInt(alphabet.length())));
				}
				String name = LeaseCoordinator.leaseName(prefix, id.toString());
				assertThat(name).as("prefix '%s', id '%s'", prefix, id)
					.hasSizeLessThanOrEqualTo(253)
					.startsWith(prefix)
					.matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
			}
		}
	}

	@Test
	void clusterIdsThatMapToOneLeaseNameStopTheBuildNamingBoth() {
		assertThatThrownBy(() -> LeaseCoordinator.builder(this.client)
			.leaseDuration(Duration.ofSeconds(15))
			.clusterIds(java.util.List.of("orders", "MAILABRUF_CLUSTER", "mailabruf-cluster-72170219"))
			.build()).isInstanceOf(IllegalArgumentException.class)
			.hasMessage("cluster ids 'MAILABRUF_CLUSTER' and 'mailabruf-cluster-72170219' map to the same Lease name "
					+ "'polling-mailabruf-cluster-72170219' (an id that is no DNS-1123 name is sanitized and gets a hash suffix, which "
					+ "another id can equal); rename one of them");
		// with another prefix the same ids are apart only if the names differ; a repeated id is no collision
		assertThat(LeaseCoordinator.builder(this.client)
			.leaseDuration(Duration.ofSeconds(15))
			.clusterIds(java.util.List.of("orders", "MAILABRUF_CLUSTER", "mailabruf-cluster", "orders"))
			.build()
			.leaseName("mailabruf-cluster")).isEqualTo("polling-mailabruf-cluster");
	}

	@Test
	void distinctIdsGetDistinctLeaseNames() {
		// ids differing in case, punctuation, or beyond the length that fits: apart by the hash of the whole id
		java.util.Random random = new java.util.Random(7);
		java.util.Map<String, String> byName = new java.util.HashMap<>();
		String alphabet = "aAbB0_-.";
		for (int i = 0; i < 50_000; i++) {
			StringBuilder id = new StringBuilder((i % 100 == 0) ? "x".repeat(260) : "");
			int length = 1 + random.nextInt(8);
			for (int c = 0; c < length; c++) {
				id.append(alphabet.charAt(random.nextInt(alphabet.length())));
			}
			String name = LeaseCoordinator.leaseName("polling-", id.toString());
			String other = byName.putIfAbsent(name, id.toString());
			assertThat(other).as("ids '%s' and '%s' share %s", other, id, name).isIn(null, id.toString());
		}
	}

}
