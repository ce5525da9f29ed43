package dev.polling.boot.metrics;

import java.time.Duration;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import dev.polling.core.ClusterDefinition;
import dev.polling.core.PeerDefinition;
import dev.polling.core.PollingManager;
import dev.polling.core.PollingSettings;

import static org.assertj.core.api.Assertions.assertThat;

class PollingMetricsTests {

	@Test
	void countsDecisionsPeerRequestsAndTakeoversAndGaugesHoldingAndActivityAge() {
		PollingManager[] ref = new PollingManager[1];
		PollingMetrics metrics = new PollingMetrics(() -> ref[0]);
		try (PollingManager manager = PollingManager.builder()
			.settings(PollingSettings.defaults().withInstanceId("metrics").withPeerTimeout(Duration.ofSeconds(2)) /* 300 ms: stops of 236-414 ms detected under load */)
			.cluster(ClusterDefinition.of("MAILABRUF_CLUSTER", Duration.ofSeconds(10)))
			.peer(PeerDefinition.of("SERVER2", "127.0.0.1", 1))
			.listener(metrics)
			.build()) {
			ref[0] = manager;
			MeterRegistry registry = new SimpleMeterRegistry();
			metrics.bindTo(registry);
			assertThat(registry.get(PollingMetrics.HOLDING).tag("cluster", "MAILABRUF_CLUSTER").gauge().value()).isZero();
			assertThat(registry.get(PollingMetrics.ACTIVITY_AGE).timeGauge().value()).isNaN();
			assertThat(registry.get(PollingMetrics.TAKEOVERS).counter().count()).isZero();

			assertThat(manager.tryStartPolling("MAILABRUF_CLUSTER")).isTrue();
			assertThat(manager.tryStartPolling("MAILABRUF_CLUSTER")).isTrue();
			manager.pause("MAILABRUF_CLUSTER");
			assertThat(manager.tryStartPolling("MAILABRUF_CLUSTER")).isFalse();

			assertThat(registry.get(PollingMetrics.DECISIONS)
				.tags("cluster", "MAILABRUF_CLUSTER", "outcome", "granted", "reason", "no-active-peer")
				.counter()
				.count()).isEqualTo(1);
			assertThat(registry.get(PollingMetrics.DECISIONS).tags("outcome", "granted", "reason", "renewed").counter().count())
				.isEqualTo(1);
			assertThat(registry.get(PollingMetrics.DECISIONS).tags("outcome", "refused", "reason", "paused").counter().count())
				.isEqualTo(1);
			assertThat(registry.get(PollingMetrics.DECISION_DURATION).tags("outcome", "granted").timer().count()).isEqualTo(2);
			assertThat(registry.get(PollingMetrics.PEER_REQUESTS).tags("peer", "SERVER2", "state", "refused").timer().count())
				.isPositive();
			// the only peer refused the connection: nobody held the cluster, so acquiring it is no takeover
			assertThat(registry.get(PollingMetrics.TAKEOVERS).counter().count()).isZero();
			assertThat(registry.get(PollingMetrics.PAUSED).gauge().value()).isEqualTo(1);
			assertThat(registry.get(PollingMetrics.HOLDING).gauge().value()).isZero();
			manager.resume("MAILABRUF_CLUSTER");
			assertThat(manager.tryStartPolling("MAILABRUF_CLUSTER")).isTrue();
			assertThat(registry.get(PollingMetrics.HOLDING).gauge().value()).isEqualTo(1);
			assertThat(registry.get(PollingMetrics.ACTIVITY_AGE).timeGauge().value()).isGreaterThanOrEqualTo(0).isLessThan(10);
			assertThat(registry.get(PollingMetrics.TAKEOVERS).counter().count()).isZero();
		}
	}

	@Test
	void ignoresEventsBeforeItIsBound() {
		PollingMetrics metrics = new PollingMetrics(() -> null);
		try (PollingManager manager = PollingManager.builder()
			.settings(PollingSettings.defaults().withInstanceId("metrics"))
			.cluster(ClusterDefinition.of("MAILABRUF_CLUSTER", Duration.ofSeconds(10)))
			.listener(metrics)
			.build()) {
			assertThat(manager.tryStartPolling("MAILABRUF_CLUSTER")).isTrue();
			MeterRegistry registry = new SimpleMeterRegistry();
			metrics.bindTo(registry);
			assertThat(registry.find(PollingMetrics.DECISIONS).counters()).isEmpty();
		}
	}

}
