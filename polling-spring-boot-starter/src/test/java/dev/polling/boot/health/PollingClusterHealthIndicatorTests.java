package dev.polling.boot.health;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

import dev.polling.core.ClusterDefinition;
import dev.polling.core.PeerDefinition;
import dev.polling.core.PollingManager;
import dev.polling.core.PollingSettings;

import static org.assertj.core.api.Assertions.assertThat;

class PollingClusterHealthIndicatorTests {

	@Test
	void isUpOnStandbyAndOnTheHolderWithHoldingDetails() {
		try (PollingManager manager = PollingManager.builder()
			.settings(PollingSettings.defaults().withInstanceId("health").withPeerTimeout(Duration.ofMillis(300)))
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
			assertThat(holder.getStatus()).isEqualTo(Status.UP);
			assertThat(holder.getDetails()).containsEntry("holding", true)
				.containsEntry("lastDecision", "granted (no-active-peer)")
				.containsEntry("peers", Map.of("SERVER2", "refused"))
				.containsKey("lastActivity");
			manager.pause("MAILABRUF_CLUSTER");
			assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
			assertThat(indicator.health().getDetails()).containsEntry("paused", true).containsEntry("holding", false);
		}
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
