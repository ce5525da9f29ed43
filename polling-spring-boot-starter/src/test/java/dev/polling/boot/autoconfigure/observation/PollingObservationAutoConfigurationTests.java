package dev.polling.boot.autoconfigure.observation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.util.TestSocketUtils.findAvailableTcpPort;

import dev.polling.boot.autoconfigure.PollingAutoConfiguration;
import dev.polling.boot.observation.DefaultPollingDecisionObservationConvention;
import dev.polling.boot.observation.DefaultPollingPeerRequestObservationConvention;
import dev.polling.boot.observation.PollingDecisionContext;
import dev.polling.boot.observation.PollingDecisionObservationConvention;
import dev.polling.boot.observation.PollingObservations;
import dev.polling.boot.observation.PollingPeerRequestContext;
import dev.polling.core.Decision;
import dev.polling.core.DecisionObserver;
import dev.polling.core.PollingManager;
import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Decisions and peer requests as Micrometer observations, between two instances with real JMX
 * servers, each with an observation registry of its own that records what it is handed.
 */
class PollingObservationAutoConfigurationTests {

	private static final String CLUSTER = "MAILBOX";

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(PollingObservationAutoConfiguration.class, PollingAutoConfiguration.class))
		.withPropertyValues("polling.clusters." + CLUSTER + ".wait-time=10s", "polling.jmx.domain=dev.polling.observationtest");

	@Test
	void eachDecisionIsAnObservationWithItsPeerRequestsAsChildren() throws Exception {
		int portA = findAvailableTcpPort();
		int portB = findAvailableTcpPort();
		String[] peers = { "polling.jmx.peers.a.host=127.0.0.1", "polling.jmx.peers.a.port=" + portA, "polling.jmx.peers.b.host=127.0.0.1",
				"polling.jmx.peers.b.port=" + portB };
		this.runner.withUserConfiguration(Recording.class)
			.withPropertyValues(peers)
			.withPropertyValues("polling.instance-id=b", "polling.jmx.server.port=" + portB)
			.run((b) -> this.runner.withUserConfiguration(Recording.class)
				.withPropertyValues(peers)
				.withPropertyValues("polling.instance-id=a", "polling.jmx.server.port=" + portA)
				.run((a) -> {
					assertThat(a).hasSingleBean(PollingObservations.class);
					Decision granted = a.getBean(PollingManager.class).decide(CLUSTER);
					assertThat(granted.reason()).isEqualTo(Decision.Reason.NO_ACTIVE_PEER);
					Decision refused = b.getBean(PollingManager.class).decide(CLUSTER);
					assertThat(refused.reason()).isEqualTo(Decision.Reason.PEER_ACTIVE);

					Recording seenByA = a.getBean(Recording.class);
					Observation.Context decision = seenByA.only(DefaultPollingDecisionObservationConvention.NAME);
					assertThat(decision).isInstanceOf(PollingDecisionContext.class);
					assertThat(decision.getContextualName()).isEqualTo("polling decide MAILBOX");
					assertThat(low(decision)).containsEntry("polling.cluster", CLUSTER)
						.containsEntry("polling.outcome", "GRANTED")
						.containsEntry("polling.reason", "NO_ACTIVE_PEER");
					assertThat(decision.getHighCardinalityKeyValues().stream().map(KeyValue::getValue)).contains("a");
					// the second round asks b again; every request is a child of the decision and ended before it
					List<Observation.Context> requests = seenByA.named(DefaultPollingPeerRequestObservationConvention.NAME);
					List<Observation.Context> toB = requests.stream()
						.filter((r) -> ((PollingPeerRequestContext) r).getPeer().id().equals("b"))
						.toList();
					assertThat(toB).hasSize(2).allSatisfy((request) -> {
						assertThat(request.getParentObservation()).isNotNull();
						assertThat(request.getParentObservation().getContextView()).isSameAs(decision);
						assertThat(low(request)).containsEntry("polling.peer.state", "ANSWERED")
							.containsEntry("polling.peer.fault", "NONE")
							.containsEntry("polling.cluster", CLUSTER);
						assertThat(request.getHighCardinalityKeyValues().stream().map(KeyValue::getValue)).contains("b",
								"127.0.0.1:" + portB);
					});
					assertThat(seenByA.stopped.indexOf(decision)).isGreaterThan(seenByA.stopped.indexOf(toB.get(1)));

					Observation.Context bDecision = b.getBean(Recording.class).only(DefaultPollingDecisionObservationConvention.NAME);
					assertThat(low(bDecision)).containsEntry("polling.outcome", "REFUSED").containsEntry("polling.reason", "PEER_ACTIVE");
				}));
	}

	@Test
	void aPeerThatRefusesConnectionsIsAnEndedRequestWithItsState() throws IOException {
		int closed = findAvailableTcpPort();
		this.runner.withUserConfiguration(Recording.class)
			.withPropertyValues("polling.instance-id=a", "polling.jmx.peers.gone.host=127.0.0.1", "polling.jmx.peers.gone.port=" + closed)
			.run((context) -> {
				context.getBean(PollingManager.class).decide(CLUSTER);
				// asked in both rounds (a refusal is no unknown), each request ended with the refusal; a request's
				// observation ends on the thread that got the answer, which may be just after the decision returned
				org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
					.until(() -> context.getBean(Recording.class).named(DefaultPollingPeerRequestObservationConvention.NAME).size() >= 2);
				List<Observation.Context> requests = context.getBean(Recording.class).named(DefaultPollingPeerRequestObservationConvention.NAME);
				assertThat(requests).hasSize(2)
					.allSatisfy((request) -> assertThat(low(request)).containsEntry("polling.peer.state", "REFUSED")
						.containsEntry("polling.peer.fault", "CONNECTION_REFUSED"));
			});
	}

	@Test
	void aCustomConventionNamesTheDecisions() {
		this.runner.withUserConfiguration(Recording.class, CustomConvention.class)
			.withPropertyValues("polling.instance-id=a")
			.run((context) -> {
				context.getBean(PollingManager.class).decide(CLUSTER);
				Observation.Context decision = context.getBean(Recording.class).only("custom.decision");
				assertThat(low(decision)).containsEntry("cluster", CLUSTER);
			});
	}

	@Test
	void backsOffWithoutAnObservationRegistryOrWhenSwitchedOff() {
		this.runner.withPropertyValues("polling.instance-id=a").run((context) -> {
			assertThat(context).doesNotHaveBean(DecisionObserver.class);
			assertThat(context.getBean(PollingManager.class).decide(CLUSTER).isGranted()).isTrue();
		});
		this.runner.withUserConfiguration(Recording.class)
			.withPropertyValues("polling.instance-id=a", "polling.observations.enabled=false")
			.run((context) -> {
				assertThat(context).doesNotHaveBean(DecisionObserver.class);
				context.getBean(PollingManager.class).decide(CLUSTER);
				assertThat(context.getBean(Recording.class).stopped).isEmpty();
			});
	}

	private static Map<String, String> low(Observation.Context context) {
		return context.getLowCardinalityKeyValues().stream().collect(Collectors.toMap(KeyValue::getKey, KeyValue::getValue));
	}

	/** An observation registry whose handler records every observation it sees stop, in order. */
	@Configuration(proxyBeanMethods = false)
	static class Recording implements ObservationHandler<Observation.Context> {

		final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();

		@Bean
		ObservationRegistry observationRegistry() {
			ObservationRegistry registry = ObservationRegistry.create();
			registry.observationConfig().observationHandler(this);
			return registry;
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return true;
		}

		@Override
		public void onStop(Observation.Context context) {
			this.stopped.add(context);
		}

		List<Observation.Context> named(String name) {
			return this.stopped.stream().filter((c) -> name.equals(c.getName())).toList();
		}

		Observation.Context only(String name) {
			List<Observation.Context> named = named(name);
			assertThat(named).as("observations named %s among %s", name, this.stopped).hasSize(1);
			return named.get(0);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class CustomConvention {

		@Bean
		PollingDecisionObservationConvention customDecisionConvention() {
			return new PollingDecisionObservationConvention() {

				@Override
				public String getName() {
					return "custom.decision";
				}

				@Override
				public KeyValues getLowCardinalityKeyValues(PollingDecisionContext context) {
					return KeyValues.of("cluster", context.getClusterId());
				}

			};
		}

	}

}
