package dev.polling.boot.health;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

import dev.polling.core.ClusterDefinition;
import dev.polling.core.PeerDefinition;
import dev.polling.core.PollingManager;
import dev.polling.core.PollingSettings;
import dev.polling.core.jmx.JmxServerSettings;
import dev.polling.core.jmx.PollingJmxServer;

import static org.assertj.core.api.Assertions.assertThat;

class PollingClusterHealthIndicatorTests {

	@Test
	void isUpBeforeTheFirstDecisionAndDegradedWhileNoPeerAnswersWithHoldingDetails() {
		try (PollingManager manager = PollingManager.builder()
			.settings(PollingSettings.defaults().withInstanceId("health").withPeerTimeout(Duration.ofSeconds(2)))
			.cluster(ClusterDefinition.of("MAILABRUF_CLUSTER", Duration.ofSeconds(10)))
			.peer(PeerDefinition.of("SERVER2", "127.0.0.1", 1))
			.build()) {
			PollingClusterHealthIndicator indicator = new PollingClusterHealthIndicator(manager, "MAILABRUF_CLUSTER");
			Health standby = indicator.health();
			assertThat(standby.getStatus()).isEqualTo(Status.UP);
			assertThat(standby.getDetails()).containsEntry("holding", false).containsEntry("paused", false)
				.containsEntry("peersReachable", "0/1");
			assertThat(manager.tryStartPolling("MAILABRUF_CLUSTER")).isTrue();
			Health holder = indicator.health();
			// the only peer refused the connection: this instance cannot tell whether it is alone
			assertThat(holder.getStatus()).isEqualTo(PollingHealthStatus.DEGRADED);
			assertThat(holder.getDetails()).containsEntry("holding", true)
				.containsEntry("lastDecision", "granted (no-active-peer)")
				.containsEntry("peers", Map.of("SERVER2", "refused"))
				.containsKey("lastActivity");
			manager.pause("MAILABRUF_CLUSTER");
			assertThat(indicator.health().getStatus()).isEqualTo(PollingHealthStatus.DEGRADED);
			assertThat(indicator.health().getDetails()).containsEntry("paused", true).containsEntry("holding", false);
		}
	}

	/** A rolling configuration change (issue 31 item 7): not DOWN (503) anywhere, the holder keeps polling. */
	@Test
	void isDegradedWithTheProblemOnBothSidesWhileAPeerRunsWithOtherSettings() throws Exception {
		try (PollingJmxServer serverA = PollingJmxServer.start(JmxServerSettings.loopback(0));
				PollingJmxServer serverB = PollingJmxServer.start(JmxServerSettings.loopback(0))) {
			List<PeerDefinition> peers = List.of(PeerDefinition.of("a", "127.0.0.1", serverA.port()),
					PeerDefinition.of("b", "127.0.0.1", serverB.port()));
			try (PollingManager a = manager("a", Duration.ofMillis(50), peers, serverA)) {
				assertThat(a.tryStartPolling("MAILABRUF_CLUSTER")).isTrue();
				try (PollingManager b = manager("b", Duration.ofMillis(80), peers, serverB)) {
					assertThat(b.tryStartPolling("MAILABRUF_CLUSTER")).isFalse();
					assertThat(a.tryStartPolling("MAILABRUF_CLUSTER")).as("the holder keeps it").isTrue();
					Health holder = new PollingClusterHealthIndicator(a, "MAILABRUF_CLUSTER").health();
					Health other = new PollingClusterHealthIndicator(b, "MAILABRUF_CLUSTER").health();
					assertThat(holder.getStatus()).isEqualTo(PollingHealthStatus.DEGRADED);
					assertThat(other.getStatus()).isEqualTo(PollingHealthStatus.DEGRADED);
					assertThat(holder.getDetails()).containsEntry("lastDecision", "granted (renewed-despite-settings-mismatch)")
						.containsEntry("holding", true);
					assertThat(other.getDetails()).containsEntry("lastDecision", "refused (settings-mismatch)")
						.containsEntry("holding", false);
					assertThat((String) holder.getDetails().get("problem")).contains("settle-time=50ms").contains("settle-time=80ms");
					assertThat((String) other.getDetails().get("problem")).contains("settle-time=50ms").contains("settle-time=80ms");
				}
			}
		}
	}

	private static PollingManager manager(String id, Duration settle, List<PeerDefinition> peers, PollingJmxServer server) {
		return PollingManager.builder()
			.settings(PollingSettings.defaults().withInstanceId(id).withPeerTimeout(Duration.ofSeconds(2)).withSettleTime(settle))
			.cluster(ClusterDefinition.of("MAILABRUF_CLUSTER", Duration.ofSeconds(10)))
			.peers(peers)
			.mbeanServer(server.mbeanServer())
			.build();
	}

	@Test
	void saysStandalone() {
		try (PollingManager manager = PollingManager.builder()
			.settings(PollingSettings.defaults().withInstanceId("health"))
			.cluster(ClusterDefinition.of("MAILABRUF_CLUSTER", Duration.ofSeconds(10)))
			.build()) {
			Health health = new PollingClusterHealthIndicator(manager, "MAILABRUF_CLUSTER").health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).containsEntry("standalone", true);
		}
	}

}
