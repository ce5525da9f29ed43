package dev.polling.boot.autoconfigure;

import java.io.IOException;

import java.time.Duration;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.ConfigurableApplicationContext;

import dev.polling.boot.health.PollingHealthStatus;

import dev.polling.core.PollingManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.springframework.test.util.TestSocketUtils.findAvailableTcpPort;

/**
 * Set-ups that gave two pollers or none without a word (issue 31), through a real
 * {@code SpringApplication}: each fails the start with one clear message or is named at start.
 */
@ExtendWith(OutputCaptureExtension.class)
class SilentSetupTests {

	private static final String DOMAIN = "polling.jmx.domain=dev.polling.silentsetuptest";

	private static final String CLUSTER = "polling.clusters.MAILABRUF_CLUSTER.wait-time=10s";

	// ---------------------------------------------------------------- 2. the instance's own peer entry

	@Test
	void anOwnPeerEntryWithAnotherPortThanTheJmxServerFailsTheStart(CapturedOutput output) throws IOException {
		int port = findAvailableTcpPort();
		int typo = (port == 65535) ? port - 1 : port + 1;
		assertThatException().isThrownBy(() -> run(DOMAIN, CLUSTER, "polling.instance-id=SERVER1",
				"polling.jmx.server.port=" + port, "polling.jmx.peers.SERVER1.host=localhost", "polling.jmx.peers.SERVER1.port=" + typo,
				"polling.jmx.peers.SERVER2.host=localhost", "polling.jmx.peers.SERVER2.port=" + port));
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("Property: polling.jmx.peers.SERVER1.port")
			.contains("Value: " + typo)
			.contains("this instance's own entry (polling.instance-id = SERVER1) names port " + typo
					+ " on a local address, but its JMX server listens on polling.jmx.server.port = " + port)
			.contains("Fix: set polling.jmx.peers.SERVER1.port to " + port + " (the port of this instance's JMX server)");
	}

	@Test
	void anOwnPeerEntryAsAUrlIsCheckedToo(CapturedOutput output) throws IOException {
		int port = findAvailableTcpPort();
		int typo = (port == 65535) ? port - 1 : port + 1;
		assertThatException().isThrownBy(() -> run(DOMAIN, CLUSTER, "polling.instance-id=SERVER1",
				"polling.jmx.server.port=" + port,
				"polling.jmx.peers.SERVER1.url=service:jmx:rmi:///jndi/rmi://127.0.0.1:" + typo + "/jmxrmi",
				"polling.jmx.peers.SERVER2.host=localhost", "polling.jmx.peers.SERVER2.port=" + port));
		assertThat(output).contains("Property: polling.jmx.peers.SERVER1.url")
			.contains("names port " + typo + " on a local address, but its JMX server listens on polling.jmx.server.port = " + port);
	}

	@Test
	void anOwnPeerEntryThatMatchesStarts() throws IOException {
		int port = findAvailableTcpPort();
		try (ConfigurableApplicationContext context = run(DOMAIN, CLUSTER, "polling.instance-id=SERVER1",
				"polling.jmx.server.port=" + port, "polling.jmx.peers.SERVER1.host=localhost", "polling.jmx.peers.SERVER1.port=" + port,
				"polling.jmx.peers.SERVER2.host=localhost", "polling.jmx.peers.SERVER2.port=" + (port == 65535 ? port - 1 : port + 1))) {
			assertThat(context.isActive()).isTrue();
			assertThat(context.getBean(PollingManager.class).settings().instanceId()).isEqualTo("SERVER1");
		}
	}

	// ---------------------------------------------------------------- 6. dotted cluster ids

	@Test
	void aDottedClusterIdWithoutBracketsFailsWithTheBracketNotation(CapturedOutput output) {
		assertThatException().isThrownBy(() -> run(DOMAIN, "polling.clusters.orders.mail.wait-time=20s"));
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("Property: polling.clusters.orders.mail.wait-time")
			.contains("Fix: write the cluster id in brackets: polling.clusters[orders.mail].wait-time (in YAML: \"[orders.mail]\":)")
			.doesNotContain("set polling.clusters.orders.wait-time");
	}

	@Test
	void aDottedClusterIdInYamlFailsWithTheBracketNotation(CapturedOutput output) {
		assertThatException().isThrownBy(() -> run("spring.config.location=classpath:mistakes/dotted-cluster-id.yml"));
		assertThat(output).contains("Property: polling.clusters.orders.mail.wait-time")
			.contains("polling.clusters[orders.mail].wait-time (in YAML: \"[orders.mail]\":)");
	}

	@Test
	void aDottedClusterIdBesideAValidClusterIsNamedWithTheBracketNotation(CapturedOutput output) {
		try (ConfigurableApplicationContext context = run(DOMAIN, "polling.clusters.orders.wait-time=20s",
				"polling.clusters.orders.mail.wait-time=20s")) {
			assertThat(context.getBean(PollingManager.class).clusterIds()).containsExactly("orders");
		}
		assertThat(output.getOut()).contains("Property 'polling.clusters.orders.mail.wait-time'")
			.contains("(in YAML write \"[orders.mail]\":); did you mean 'polling.clusters[orders.mail].wait-time'?");
	}

	@Test
	void aDottedClusterIdInBracketsIsKept() {
		try (ConfigurableApplicationContext context = run(DOMAIN, "polling.clusters[orders.mail].wait-time=20s")) {
			assertThat(context.getBean(PollingManager.class).clusterIds()).containsExactly("orders.mail");
		}
	}

	// ---------------------------------------------------------------- 5. durations without a unit

	@Test
	void aDurationWithoutUnitIsLoggedWithItsUnit(CapturedOutput output) {
		try (ConfigurableApplicationContext context = run(DOMAIN, "polling.clusters.MAILBOX.wait-time=20")) {
			assertThat(context.getBean(PollingManager.class).cluster("MAILBOX").waitTime())
				.isEqualTo(java.time.Duration.ofSeconds(20));
		}
		assertThat(output.getOut().lines().filter((line) -> line.contains("polling.clusters.MAILBOX.wait-time = 20 ")))
			.singleElement()
			.satisfies((line) -> assertThat(line).contains(" INFO ").contains("has no unit: read as 20 s (20s); write the unit"));
		assertThat(output.getOut()).doesNotContain("if 20 ms was meant");
	}

	@Test
	void anImplausibleDurationWithoutUnitIsNamedWithBothReadings(CapturedOutput output) {
		try (ConfigurableApplicationContext context = run("spring.config.location=classpath:mistakes/unitless-wait-time.yml")) {
			assertThat(context.getBean(PollingManager.class).clusterIds()).containsExactlyInAnyOrder("orders.mail", "MAILBOX");
		}
		assertThat(output.getOut().lines().filter((line) -> line.contains("polling.clusters.[orders.mail].wait-time = 20000 ")))
			.singleElement()
			.satisfies((line) -> assertThat(line).contains(" WARN ")
				.contains("(class path resource [mistakes/unitless-wait-time.yml]")
				.contains("read as 20000 s (5 h 33 min 20 s), more than the plausible 1 h for a wait time; "
						+ "if 20000 ms was meant write 20000ms, else write 20000s"));
		assertThat(output.getOut().lines().filter((line) -> line.contains("polling.jmx.peer-timeout = 2 ")))
			.singleElement()
			.satisfies((line) -> assertThat(line).contains(" INFO ").contains("has no unit: read as 2 s (2s)"));
		assertThat(output.getOut()).doesNotContain("polling.clusters.MAILBOX.wait-time =")
			.doesNotContain("max-cycle-time =");
	}

	// ---------------------------------------------------------------- 4. nothing asks for the cluster

	@Test
	void aClusterWithoutADecisionOneWaitTimeAfterTheStartIsNamedWithTheLikelyCauses(CapturedOutput output) {
		// no @EnableScheduling and no caller: nothing ever decides (10 s: the shortest wait time)
		try (ConfigurableApplicationContext context = run(DOMAIN, "polling.clusters.MAILBOX.wait-time=10s")) {
			Awaitility.await()
				.atMost(Duration.ofSeconds(40))
				.until(() -> output.getOut().contains("No polling decision for cluster 'MAILBOX'"));
			assertThat(output.getOut().lines().filter((line) -> line.contains("No polling decision for cluster 'MAILBOX'")))
				.singleElement()
				.satisfies((line) -> assertThat(line).contains(" WARN ")
					.contains("in its wait time (10s) since the start")
					.contains("no @EnableScheduling on a configuration class")
					.contains("the @PollingCycle(\"MAILBOX\") or @Scheduled method is not on a bean")
					.contains("the timer's interval is longer than the wait time 10s"));
			HealthIndicator mailbox = (HealthIndicator) context
				.getBean("pollingHealthContributor", CompositeHealthContributor.class)
				.getContributor("MAILBOX");
			Health health = mailbox.health(true);
			assertThat(health.getStatus()).isEqualTo(PollingHealthStatus.DEGRADED);
			assertThat(health.getDetails()).containsKey("problem");
			// the first decision ends it
			context.getBean(PollingManager.class).decide("MAILBOX");
			assertThat(mailbox.health(true).getDetails()).doesNotContainKey("problem");
		}
	}

	@Test
	void aClusterDecidedWithinItsWaitTimeIsNotNamed(CapturedOutput output) {
		try (ConfigurableApplicationContext context = run(DOMAIN, "polling.clusters.MAILBOX.wait-time=10s")) {
			context.getBean(PollingManager.class).decide("MAILBOX");
			Awaitility.await()
				.atMost(Duration.ofSeconds(40))
				.until(() -> checked(context));
			assertThat(output.getOut()).doesNotContain("No polling decision for cluster");
		}
	}

	private static boolean checked(ConfigurableApplicationContext context) {
		// the watch's scheduler ends after its one check per cluster
		return Thread.getAllStackTraces().keySet().stream().noneMatch((thread) -> thread.getName().startsWith("polling-start-check-"));
	}

	static ConfigurableApplicationContext run(String... properties) {
		return run(EmptyApplication.class, properties);
	}

	static ConfigurableApplicationContext run(Class<?> application, String... properties) {
		return new SpringApplicationBuilder(application).web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off")
			.properties(properties)
			.run();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class EmptyApplication {

	}

}
