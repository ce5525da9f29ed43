package dev.polling.boot.metrics;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import dev.polling.boot.autoconfigure.jdbc.DeliveryMetrics;
import dev.polling.boot.autoconfigure.jdbc.QueueMetrics;
import dev.polling.core.PollingManager;
import dev.polling.jdbc.delivery.DeliveryListener;
import dev.polling.jdbc.inbox.Inbox;
import dev.polling.jdbc.queue.QueueListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.util.TestSocketUtils.findAvailableTcpPort;

/**
 * The meter table of docs/operations.md ("Metrics") against the meters a real application registers
 * (issue 31 item 9): a {@code SpringApplication} with observations, the cluster, the inbox, the work
 * queue, the delivery guard and the jobs on H2, and a {@link SimpleMeterRegistry}. A meter added
 * without the docs, a documented meter that does not exist, and one measurement under two names
 * (the observation's own timers beside {@code polling.decision.duration}) all fail it.
 * <p>
 * Some counters are created at their first event. The decision and the inbox receipt are real; the
 * queue's and the delivery guard's events (a fencing rejection, lost claims, a send in doubt) are
 * reported to the application's binders through every callback of their listener interfaces, so a
 * callback added later with a meter of its own is covered too.
 */
class DocumentedMetersTests {

	private static final String CLUSTER = "MAILBOX";

	@Test
	void theDocsListEveryMeterTheStarterRegistersAndNothingElse() throws Exception {
		int closed = findAvailableTcpPort();
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(MeteredApplication.class)
			.web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off", "spring.datasource.generate-unique-name=true",
					"polling.jmx.domain=dev.polling.documentedmeterstest", "polling.instance-id=a",
					"polling.clusters." + CLUSTER + ".wait-time=10s", "polling.jmx.peers.gone.host=127.0.0.1",
					"polling.jmx.peers.gone.port=" + closed, "polling.jdbc.inbox.enabled=true",
					"polling.jdbc.queue.enabled=true", "polling.jdbc.delivery.enabled=true",
					"polling.jdbc.jobs.enabled=true")
			.run()) {
			context.getBean(PollingManager.class).decide(CLUSTER);
			context.getBean(Inbox.class).receive("mail", "message-1");
			QueueMetrics queue = context.getBean(QueueMetrics.class);
			reportEveryEvent(QueueListener.class, queue, "orders");
			queue.refresh();
			DeliveryMetrics delivery = context.getBean(DeliveryMetrics.class);
			reportEveryEvent(DeliveryListener.class, delivery, "smtp");
			delivery.refresh();

			Set<String> registered = new TreeSet<>();
			for (Meter meter : context.getBean(SimpleMeterRegistry.class).getMeters()) {
				if (meter.getId().getName().startsWith("polling.")) {
					registered.add(meter.getId().getName());
				}
			}
			Set<String> documented = documentedMeters();
			assertThat(registered).as("registered but not in docs/operations.md, Metrics")
				.isSubsetOf(documented);
			assertThat(documented).as("in docs/operations.md, Metrics, but never registered").isSubsetOf(registered);
			// the decision's observation and its peer requests still reach the observation handlers (spans)
			assertThat(context.getBean(RecordingHandler.class).stopped).contains("polling.decision", "polling.peer.request");
		}
	}

	/** Calls each callback of the listener interface on the binder, with the name and a count of 1. */
	private static <T> void reportEveryEvent(Class<T> listener, T binder, String name) throws Exception {
		for (Method method : listener.getMethods()) {
			Object[] arguments = new Object[method.getParameterCount()];
			Class<?>[] types = method.getParameterTypes();
			for (int i = 0; i < types.length; i++) {
				arguments[i] = (types[i] == String.class) ? name : (types[i] == int.class) ? 1 : null;
				assertThat(arguments[i]).as("a sample argument for %s of %s", types[i], method).isNotNull();
			}
			method.invoke(binder, arguments);
		}
	}

	/** The meter names in the first column of the tables under "## Metrics" in docs/operations.md. */
	static Set<String> documentedMeters() throws IOException {
		Path operations = Path.of("../docs/operations.md");
		if (!Files.exists(operations)) {
			operations = Path.of("docs/operations.md");
		}
		List<String> lines = Files.readAllLines(operations);
		int start = lines.indexOf("## Metrics");
		assertThat(start).as("a section '## Metrics' in %s", operations).isNotNegative();
		Pattern row = Pattern.compile("^\\| `(polling\\.[a-z.]+)` \\|");
		Set<String> names = new TreeSet<>();
		for (String line : lines.subList(start + 1, lines.size())) {
			if (line.startsWith("## ")) {
				break;
			}
			Matcher matcher = row.matcher(line);
			if (matcher.find()) {
				names.add(matcher.group(1));
			}
		}
		assertThat(names).as("meter names in the tables of '## Metrics'").isNotEmpty();
		return names;
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class MeteredApplication {

		@Bean
		SimpleMeterRegistry simpleMeterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean
		RecordingHandler recordingHandler() {
			return new RecordingHandler();
		}

	}

	/** Stands in for a tracer bridge: an observation handler that records the observations it sees end. */
	static class RecordingHandler implements ObservationHandler<Observation.Context> {

		final List<String> stopped = new CopyOnWriteArrayList<>();

		@Override
		public void onStop(Observation.Context context) {
			this.stopped.add(context.getName());
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return true;
		}

	}

}
