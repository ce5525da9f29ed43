package dev.polling.console;

import java.time.Clock;
import java.time.Duration;
import java.util.List;

import javax.management.MBeanServerFactory;

import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.SecurityContext;

import dev.polling.boot.actuate.PollingValueSanitizer;
import dev.polling.core.ClusterDefinition;
import dev.polling.core.PollingManager;
import dev.polling.core.PollingSettings;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The endpoint without a web server, on a standalone manager: the change version moves with the
 * timeline and the cluster state, and a part that cannot be read (database down) becomes a problem
 * while the clusters are still shown.
 */
class ConsoleEndpointTests {

	@Test
	void theVersionMovesWithWhatTheOperatorSees() {
		try (Standalone standalone = Standalone.start()) {
			PollingManager manager = standalone.manager();
			ConsoleEndpoint endpoint = endpoint(manager, standalone.timeline(), List.of());
			String before = endpoint.changes().version();
			assertThat(endpoint.changes().version()).as("nothing happened").isEqualTo(before);
			manager.decide("C");
			String granted = endpoint.changes().version();
			assertThat(granted).isNotEqualTo(before);
			manager.decide("C");
			assertThat(endpoint.changes().version()).as("the same decision again").isEqualTo(granted);
			manager.pause("C");
			assertThat(endpoint.changes().version()).isNotEqualTo(granted);
		}
	}

	@Test
	void aPartThatCannotBeReadIsAProblemAndTheClustersStillShow() {
		ConsoleSection broken = new ConsoleSection() {

			@Override
			public String kind() {
				return "messages";
			}

			@Override
			public View view(boolean shown) {
				throw new IllegalStateException("Connection refused");
			}

			@Override
			public List<ConsoleProblems.Problem> problems(View view) {
				return List.of();
			}

			@Override
			public String fingerprint() {
				throw new IllegalStateException("Connection refused");
			}

			@Override
			public Outcome act(String id, String action) {
				throw new IllegalStateException("Connection refused");
			}

			@Override
			public EntryList entries(String state, String group, String key, long afterId, int limit, boolean shown) {
				throw new IllegalStateException("Connection refused");
			}

			@Override
			public java.util.Optional<java.util.Map<String, Object>> entry(long id, boolean shown) {
				throw new IllegalStateException("Connection refused");
			}

			@Override
			public Outcome bulk(String action, String group, long confirmedCount) {
				throw new IllegalStateException("Connection refused");
			}

		};
		try (Standalone standalone = Standalone.start()) {
			ConsoleEndpoint endpoint = endpoint(standalone.manager(), standalone.timeline(), List.of(broken));
			ConsoleEndpoint.State state = endpoint.state(SecurityContext.NONE);
			assertThat(state.clusters()).extracting(ConsoleEndpoint.ClusterView::id).containsExactly("C");
			assertThat(state.problems()).singleElement().satisfies((p) -> {
				assertThat(p.code()).isEqualTo("section-unavailable");
				assertThat(p.title()).isEqualTo("Could not read the messages: ******");
			});
			assertThat(endpoint.changes().version()).isNotBlank();
		}
	}

	/** A standalone manager with the timeline listening to it. */
	private record Standalone(PollingManager manager, ConsoleTimeline timeline) implements AutoCloseable {

		static Standalone start() {
			PollingManager[] built = new PollingManager[1];
			ConsoleTimeline timeline = new ConsoleTimeline(50, Clock.systemUTC(), (c) -> built[0].cluster(c).waitTime());
			built[0] = PollingManager.builder()
				.settings(PollingSettings.defaults().withInstanceId("solo"))
				.cluster(ClusterDefinition.of("C", Duration.ofSeconds(10)))
				.mbeanServer(MBeanServerFactory.newMBeanServer())
				.listener(timeline)
				.build();
			return new Standalone(built[0], timeline);
		}

		@Override
		public void close() {
			this.manager.close();
		}

	}

	private static ConsoleEndpoint endpoint(PollingManager manager, ConsoleTimeline timeline, List<ConsoleSection> sections) {
		return new ConsoleEndpoint(manager, timeline, new ConsoleProperties(), PollingValueSanitizer.masked(), Clock.systemUTC(),
				sections);
	}

}
