package dev.polling.boot.autoconfigure;

import java.time.Duration;

import org.assertj.core.api.AbstractCharSequenceAssert;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

import dev.polling.boot.annotation.PollingAction;
import dev.polling.boot.annotation.PollingCycle;
import dev.polling.core.PollingManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static dev.polling.boot.autoconfigure.SilentSetupTests.run;

/**
 * Mistakes a new user plausibly makes, through a real {@code SpringApplication} and Spring Boot's
 * failure analysis: each one fails the start with the Property/Value/Reason/Fix block, or is
 * reported with a warning; none gives two pollers silently.
 */
@ExtendWith(OutputCaptureExtension.class)
class ConfigurationMistakesTests {

	private static final String DOMAIN = "polling.jmx.domain=dev.polling.mistakestest";

	private static final String CLUSTER = "polling.clusters.MAILABRUF_CLUSTER.wait-time=10s";

	// ---------------------------------------------------------------- 1. units

	@Test
	void aPeerTimeoutWithoutUnitMeansSeconds() {
		try (ConfigurableApplicationContext context = run(EmptyApplication.class, DOMAIN, CLUSTER, "polling.jmx.peer-timeout=2")) {
			assertThat(context.getBean(PollingManager.class).settings().peerTimeout()).isEqualTo(Duration.ofSeconds(2));
		}
	}

	@Test
	void aPeerTimeoutBelowTheMinimumFailsTheStart(CapturedOutput output) {
		assertFailedStart(output, EmptyApplication.class, DOMAIN, CLUSTER, "polling.jmx.peer-timeout=50ms")
			.contains("APPLICATION FAILED TO START")
			.contains("Property: polling.jmx.peer-timeout")
			.contains("Value: 50ms")
			.contains("Reason: the peer timeout is shorter than the minimum of 100ms")
			.contains("Fix: set polling.jmx.peer-timeout to e.g. 2s; write the unit (500ms, 2s): a plain number means seconds");
	}

	// ---------------------------------------------------------------- 4. polling.enabled=false

	@Test
	void warnsOnceThatAnnotatedMethodsRunUnguardedWhenPollingIsDisabled(CapturedOutput output) {
		try (ConfigurableApplicationContext context = run(PollerApplication.class, DOMAIN, CLUSTER, "polling.enabled=false")) {
			assertThat(context.getBeanProvider(PollingManager.class).getIfAvailable()).isNull();
		}
		assertThat(output.getOut().lines().filter((line) -> line.contains("polling.enabled=false: polling coordination is off")))
			.singleElement()
			.satisfies((line) -> assertThat(line).contains("WARN")
				.contains("run unguarded")
				.contains("@PollingCycle on " + Poller.class.getName() + ".poll() (bean 'poller')")
				.contains("@PollingAction on " + Poller.class.getName() + ".process() (bean 'poller')"));
	}

	@Test
	void namesPollingEnabledWhenAPollingManagerIsMissing(CapturedOutput output) {
		assertFailedStart(output, ManagerUserApplication.class, DOMAIN, CLUSTER, "polling.enabled=false")
			.contains("APPLICATION FAILED TO START")
			.contains("Property: polling.enabled")
			.contains("Value: false")
			.contains("there is no PollingManager bean, but parameter 0 of the constructor of "
					+ ManagerUser.class.getName() + " requires one")
			.contains("Fix: remove polling.enabled=false")
			.doesNotContain("required a bean of type");
	}

	@Test
	void namesPollingClustersWhenAPollingManagerIsMissingForWantOfClusters(CapturedOutput output) {
		assertFailedStart(output, ManagerUserApplication.class, DOMAIN)
			.contains("Property: polling.clusters").contains("Value: not set").contains("no polling cluster is defined");
	}

	// ---------------------------------------------------------------- 5. ids with special characters

	@Test
	void aClusterIdThatTheBinderChangedFailsWithTheBracketNotation(CapturedOutput output) {
		assertFailedStart(output, SpacedPollerApplication.class,
				"spring.config.location=classpath:mistakes/cluster-id-with-space.yml")
			.contains("APPLICATION FAILED TO START")
			.contains("Property: polling.clusters.MAIL BOX")
			.contains("Value: read as cluster 'MAILBOX'")
			.contains("@PollingCycle on " + SpacedPoller.class.getName() + ".poll()")
			.contains("Fix: write the key in brackets so that it is kept as written: polling.clusters.[MAIL BOX].wait-time")
			.contains("\"[MAIL BOX]\":");
		assertThat(output.getOut()).contains("WARN")
			.contains("Property 'polling.clusters.MAIL BOX.wait-time': Spring Boot reads the cluster id as 'MAILBOX'");
	}

	@Test
	void aClusterIdInBracketsIsKeptAsWritten() {
		try (ConfigurableApplicationContext context = run(SpacedPollerApplication.class,
				"spring.config.location=classpath:mistakes/cluster-id-with-space-bracketed.yml")) {
			assertThat(context.getBean(PollingManager.class).clusterIds()).containsExactly("MAIL BOX");
		}
	}

	// ---------------------------------------------------------------- 6. unknown keys

	@Test
	void warnsAboutUnknownKeysNamingTheNearestKnownOne(CapturedOutput output) {
		try (ConfigurableApplicationContext context = run(EmptyApplication.class, "spring.config.location=classpath:mistakes/typos.yml")) {
			assertThat(context.getBean(PollingManager.class).clusterIds()).containsExactly("MAILABRUF_CLUSTER", "TIMEOUT_CLUSTER");
		}
		assertThat(output.getOut()).contains("Property 'polling.jmx.peer-timout' (class path resource [mistakes/typos.yml]")
			.contains("is ignored: it is not a polling property; did you mean 'polling.jmx.peer-timeout'?")
			.contains("Property 'polling.clusterz.POSTFACH_CLUSTER.wait-time'")
			.contains("did you mean 'polling.clusters.POSTFACH_CLUSTER.wait-time'?")
			.contains("Property 'polling.clusters.TIMEOUT_CLUSTER.max-cycle-tme'")
			.contains("did you mean 'polling.clusters.TIMEOUT_CLUSTER.max-cycle-time'?");
		assertThat(output.getOut().lines().filter((line) -> line.contains(" is ignored: "))).hasSize(3);
	}

	@Test
	void reportsNothingForValidKeysMapKeysAndIsyPollingKeys(CapturedOutput output) {
		try (ConfigurableApplicationContext context = run(EmptyApplication.class,
				"spring.config.location=classpath:mistakes/valid-keys.yml")) {
			assertThat(context.getBean(PollingManager.class).clusterIds()).containsExactly("MAILABRUF_CLUSTER", "POST FACH");
		}
		assertThat(output.getOut()).doesNotContain(" is ignored: ").doesNotContain("Spring Boot reads the");
	}

	@Test
	void aClusterWhoseOnlyKeyIsMisspeltIsReportedAsMissingItsWaitTime(CapturedOutput output) {
		assertFailedStart(output, EmptyApplication.class, "spring.config.location=classpath:mistakes/wait-time-typo.yml")
			.contains("APPLICATION FAILED TO START")
			.contains("Property: polling.clusters.MAILBOX.wait-time")
			.contains("Value: not set")
			.contains("cluster 'MAILBOX' is set only by polling.clusters.MAILBOX.wait-tme, which the starter does not read")
			.contains("Fix: set polling.clusters.MAILBOX.wait-time to at least 10s")
			.contains("did you mean 'polling.clusters.MAILBOX.wait-time'?")
			.doesNotContain("No polling clusters are defined");
	}

	@Test
	void everyMistakeInAFileIsReportedWithItsFileAndLine(CapturedOutput output) {
		assertFailedStart(output, EmptyApplication.class, "spring.config.location=classpath:mistakes/short-wait-time.yml")
			.contains("APPLICATION FAILED TO START")
			.contains("Property: polling.clusters.MAILBOX.wait-time\n    Value: 5s\n    Origin: class path resource "
					+ "[mistakes/short-wait-time.yml] - 10:18\n")
			.contains("Fix: set polling.clusters.MAILBOX.wait-time to at least 10s")
			.contains("Property: polling.jmx.peers.SERVER2.port\n    Value: not set\n    Reason: peer 'SERVER2' has a host but no port")
			.contains("Fix: set polling.jmx.peers.SERVER2.port to the port of the peer's JMX server");
	}

	// ---------------------------------------------------------------- 7. the user's spelling

	@Test
	void aBindFailureNamesThePropertyAsWritten(CapturedOutput output) {
		assertFailedStart(output, EmptyApplication.class, DOMAIN, "polling.clusters.MAILBOX.wait-time=ten")
			.contains("Property: polling.clusters.MAILBOX.wait-time")
			.contains("Value: 'ten'")
			.contains("a plain number means seconds")
			.doesNotContain("polling.clusters.mailbox");
	}

	@Test
	void aValueOutOfRangeIsReportedWithItsRangeNotAsUnreadable(CapturedOutput output) {
		assertFailedStart(output, EmptyApplication.class, DOMAIN, "spring.datasource.generate-unique-name=true",
				"polling.jdbc.queue.lease.duration=500ms")
			.contains("Property: polling.jdbc.queue.lease.duration")
			.contains("Value: 500ms")
			.contains("Origin: \"polling.jdbc.queue.lease.duration\" from property source \"defaultProperties\"")
			.contains("Reason: the value must be between 1s and 1d")
			.contains("Fix: set polling.jdbc.queue.lease.duration to e.g. 30s")
			.doesNotContain("cannot be read as a duration");
	}

	/**
	 * Starts the application, asserts that it fails to start and gives what it printed.
	 * @param output the captured output
	 * @param application the application
	 * @param properties its properties
	 * @return the assertion on the output
	 */
	private static AbstractCharSequenceAssert<?, ? extends CharSequence> assertFailedStart(CapturedOutput output,
			Class<?> application, String... properties) {
		assertThatException().isThrownBy(() -> run(application, properties));
		return assertThat(output);
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class EmptyApplication {

	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class PollerApplication {

		@Bean
		Poller poller() {
			return new Poller();
		}

	}

	static class Poller {

		@PollingCycle("MAILABRUF_CLUSTER")
		void poll() {
		}

		@PollingAction("MAILABRUF_CLUSTER")
		void process() {
		}

	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(ManagerUser.class)
	static class ManagerUserApplication {

	}

	static class ManagerUser {

		ManagerUser(PollingManager manager) {
		}

	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class SpacedPollerApplication {

		@Bean
		SpacedPoller spacedPoller() {
			return new SpacedPoller();
		}

	}

	static class SpacedPoller {

		@PollingCycle("MAIL BOX")
		void poll() {
		}

	}

}
