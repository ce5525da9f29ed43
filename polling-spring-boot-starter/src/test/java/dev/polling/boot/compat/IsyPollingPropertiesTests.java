package dev.polling.boot.compat;

import java.time.Duration;
import java.util.Set;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import dev.polling.core.PeerDefinition;
import dev.polling.core.PollingManager;
import dev.polling.core.JmxContract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * isy-polling's {@code isy.polling.*} keys, through a real Spring Boot startup (the mapping runs
 * as an environment post-processor). One test per row of the property table in
 * docs/migration-from-isy-polling.md, plus the warnings and the failures.
 */
@ExtendWith(OutputCaptureExtension.class)
class IsyPollingPropertiesTests {

	private static final String[] ALL_KEYS = { "isy.polling.jmx.domain=de.bund.bva.propertiestest",
			"isy.polling.jmx.verbindungen.SERVER2.host=server2.example.org", "isy.polling.jmx.verbindungen.SERVER2.port=9010",
			"isy.polling.jmx.verbindungen.SERVER2.benutzer=userid", "isy.polling.jmx.verbindungen.SERVER2.passwort=geheim-42",
			"isy.polling.jmx.verbindungen.SERVER3.host=server3.example.org", "isy.polling.jmx.verbindungen.SERVER3.port=9011",
			"isy.polling.cluster.MAILABRUF_CLUSTER.name=XY-Nachrichten", "isy.polling.cluster.MAILABRUF_CLUSTER.wartezeit=600",
			"isy.polling.cluster.MAILABRUF_CLUSTER.jmxverbindungen=SERVER2, SERVER3",
			"isy.polling.cluster.POSTFACH1_CLUSTER.wartezeit=20" };

	@Test
	void mapsTheJmxDomainToPollingJmxDomain() {
		try (ConfigurableApplicationContext context = run(ALL_KEYS)) {
			assertThat(manager(context).settings().jmxDomain()).isEqualTo("de.bund.bva.propertiestest");
		}
	}

	@Test
	void mapsEachConnectionToAPeerWithHostPortUsernameAndPassword() {
		try (ConfigurableApplicationContext context = run(ALL_KEYS)) {
			PeerDefinition server2 = manager(context).peers().get("SERVER2");
			assertThat(server2.host()).isEqualTo("server2.example.org");
			assertThat(server2.port()).isEqualTo(9010);
			assertThat(server2.username()).isEqualTo("userid");
			assertThat(server2.password()).isEqualTo("geheim-42");
			PeerDefinition server3 = manager(context).peers().get("SERVER3");
			assertThat(server3.address()).isEqualTo("server3.example.org:9011");
			assertThat(server3.username()).isNull();
		}
	}

	@Test
	void mapsEachClusterWithNameWaitTimeInSecondsAndItsConnections() {
		try (ConfigurableApplicationContext context = run(ALL_KEYS)) {
			PollingManager manager = manager(context);
			assertThat(manager.clusterIds()).containsExactlyInAnyOrder("MAILABRUF_CLUSTER", "POSTFACH1_CLUSTER");
			assertThat(manager.cluster("MAILABRUF_CLUSTER").name()).isEqualTo("XY-Nachrichten");
			assertThat(manager.cluster("MAILABRUF_CLUSTER").waitTime()).isEqualTo(Duration.ofSeconds(600));
			assertThat(manager.cluster("MAILABRUF_CLUSTER").peerIds()).isEqualTo(Set.of("SERVER2", "SERVER3"));
			assertThat(manager.cluster("POSTFACH1_CLUSTER").name()).isEqualTo("POSTFACH1_CLUSTER");
			assertThat(manager.cluster("POSTFACH1_CLUSTER").waitTime()).isEqualTo(Duration.ofSeconds(20));
			assertThat(manager.cluster("POSTFACH1_CLUSTER").peerIds()).isEmpty();
		}
	}

	@Test
	void usesIsyPollingsJmxContractAndDefaultDomainWhenOnlyIsyPollingKeysAreGiven() {
		try (ConfigurableApplicationContext context = run("isy.polling.cluster.MAILABRUF_CLUSTER.wartezeit=600")) {
			assertThat(manager(context).settings().jmxContract()).isEqualTo(JmxContract.ISY_POLLING);
			assertThat(manager(context).settings().jmxDomain()).isEqualTo("de.bund.bva.isyfact.polling");
		}
	}

	@Test
	void keepsAnExplicitlyConfiguredJmxContract() {
		try (ConfigurableApplicationContext context = run("isy.polling.jmx.domain=de.bund.bva.propertiestest",
				"isy.polling.cluster.MAILABRUF_CLUSTER.wartezeit=600", "polling.jmx.contract=native")) {
			assertThat(manager(context).settings().jmxContract()).isEqualTo(JmxContract.NATIVE);
		}
	}

	@Test
	void logsOneDeprecationWarningPerKeyNamingTheNewKeyAndNeverThePassword(CapturedOutput output) {
		run(ALL_KEYS).close();
		String[][] expected = { { "isy.polling.jmx.domain", "polling.jmx.domain" },
				{ "isy.polling.jmx.verbindungen.SERVER2.host", "polling.peers.SERVER2.host" },
				{ "isy.polling.jmx.verbindungen.SERVER2.port", "polling.peers.SERVER2.port" },
				{ "isy.polling.jmx.verbindungen.SERVER2.benutzer", "polling.peers.SERVER2.username" },
				{ "isy.polling.jmx.verbindungen.SERVER2.passwort", "polling.peers.SERVER2.password" },
				{ "isy.polling.jmx.verbindungen.SERVER3.host", "polling.peers.SERVER3.host" },
				{ "isy.polling.jmx.verbindungen.SERVER3.port", "polling.peers.SERVER3.port" },
				{ "isy.polling.cluster.MAILABRUF_CLUSTER.name", "polling.clusters.MAILABRUF_CLUSTER.name" },
				{ "isy.polling.cluster.MAILABRUF_CLUSTER.wartezeit", "polling.clusters.MAILABRUF_CLUSTER.wait-time" },
				{ "isy.polling.cluster.MAILABRUF_CLUSTER.jmxverbindungen", "polling.clusters.MAILABRUF_CLUSTER.peers" },
				{ "isy.polling.cluster.POSTFACH1_CLUSTER.wartezeit", "polling.clusters.POSTFACH1_CLUSTER.wait-time" } };
		for (String[] pair : expected) {
			String warning = "Property '" + pair[0] + "' (isy-polling) is deprecated; use '" + pair[1] + "' instead";
			assertThat(Pattern.compile(Pattern.quote(warning)).matcher(output.getOut()).results().count()).as(warning).isEqualTo(1);
		}
		assertThat(Pattern.compile("\\(isy-polling\\) is deprecated").matcher(output.getOut()).results().count())
			.isEqualTo(expected.length);
		assertThat(output).doesNotContain("geheim-42");
	}

	@Test
	void acceptsTheSameSettingInBothForms() {
		try (ConfigurableApplicationContext context = run("isy.polling.cluster.MAILABRUF_CLUSTER.wartezeit=600",
				"polling.clusters.MAILABRUF_CLUSTER.wait-time=10m", "isy.polling.jmx.verbindungen.SERVER2.host=server2",
				"isy.polling.jmx.verbindungen.SERVER2.port=9010", "polling.peers.SERVER2.port=9010",
				"polling.jmx.domain=de.bund.bva.propertiestest")) {
			assertThat(manager(context).cluster("MAILABRUF_CLUSTER").waitTime()).isEqualTo(Duration.ofMinutes(10));
		}
	}

	@Test
	void failsWhenTheWaitTimeDiffersInBothForms(CapturedOutput output) {
		assertThatException().isThrownBy(() -> run("isy.polling.cluster.MAILABRUF_CLUSTER.wartezeit=600",
				"polling.clusters.MAILABRUF_CLUSTER.wait-time=5m"));
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("Property: isy.polling.cluster.MAILABRUF_CLUSTER.wartezeit")
			.contains("Value: '600'")
			.contains("Reason: it conflicts with polling.clusters.MAILABRUF_CLUSTER.wait-time = '5m'")
			.contains("Fix: remove isy.polling.cluster.MAILABRUF_CLUSTER.wartezeit");
	}

	@Test
	void failsWhenThePasswordDiffersInBothFormsWithoutShowingEither(CapturedOutput output) {
		assertThatException().isThrownBy(() -> run("isy.polling.cluster.MAILABRUF_CLUSTER.wartezeit=600",
				"isy.polling.jmx.verbindungen.SERVER2.host=server2", "isy.polling.jmx.verbindungen.SERVER2.port=9010",
				"isy.polling.jmx.verbindungen.SERVER2.benutzer=userid", "isy.polling.jmx.verbindungen.SERVER2.passwort=alt-geheim",
				"polling.peers.SERVER2.password=neu-geheim"));
		assertThat(output).contains("Property: isy.polling.jmx.verbindungen.SERVER2.passwort")
			.contains("conflicts with polling.peers.SERVER2.password = ******")
			.doesNotContain("alt-geheim")
			.doesNotContain("neu-geheim");
	}

	@Test
	void failsWhenTheConnectionsOfAClusterDifferInBothForms(CapturedOutput output) {
		assertThatException().isThrownBy(() -> run("isy.polling.cluster.MAILABRUF_CLUSTER.wartezeit=600",
				"isy.polling.cluster.MAILABRUF_CLUSTER.jmxverbindungen=SERVER2", "polling.clusters.MAILABRUF_CLUSTER.peers=SERVER3"));
		assertThat(output).contains("Property: isy.polling.cluster.MAILABRUF_CLUSTER.jmxverbindungen")
			.contains("conflicts with polling.clusters.MAILABRUF_CLUSTER.peers = 'SERVER3'");
	}

	@Test
	void failsWhenTheWaitTimeIsNotAWholeNumberOfSeconds(CapturedOutput output) {
		assertThatException().isThrownBy(() -> run("isy.polling.cluster.MAILABRUF_CLUSTER.wartezeit=10m"));
		assertThat(output).contains("Property: isy.polling.cluster.MAILABRUF_CLUSTER.wartezeit")
			.contains("Value: '10m'")
			.contains("isy-polling's wartezeit is a whole number of seconds")
			.contains("polling.clusters.MAILABRUF_CLUSTER.wait-time, which accepts units");
	}

	@Test
	void failsWhenTheWaitTimeIsShorterThanTenSeconds(CapturedOutput output) {
		assertThatException().isThrownBy(() -> run("isy.polling.cluster.MAILABRUF_CLUSTER.wartezeit=5"));
		assertThat(output).contains("Property: isy.polling.cluster.MAILABRUF_CLUSTER.wartezeit")
			.contains("shorter than the minimum of 10 seconds");
	}

	@Test
	void failsOnAKeyThatIsyPolling4DoesNotHave(CapturedOutput output) {
		assertThatException().isThrownBy(() -> run("isy.polling.cluster.MAILABRUF_CLUSTER.wartezeit=600",
				"isy.polling.cluster.ids=MAILABRUF_CLUSTER"));
		assertThat(output).contains("Property: isy.polling.cluster.ids")
			.contains("this is not an isy-polling 4 property")
			.contains("there are no 'ids' lists");
	}

	@Test
	void failsOnAPortThatIsNotANumber(CapturedOutput output) {
		assertThatException().isThrownBy(() -> run("isy.polling.cluster.MAILABRUF_CLUSTER.wartezeit=600",
				"isy.polling.jmx.verbindungen.SERVER2.host=server2", "isy.polling.jmx.verbindungen.SERVER2.port=jmx"));
		assertThat(output).contains("Property: isy.polling.jmx.verbindungen.SERVER2.port").contains("Value: 'jmx'");
	}

	private static ConfigurableApplicationContext run(String... properties) {
		return new SpringApplicationBuilder(IsyApplication.class).web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off", "polling.instance-id=isy-properties-test")
			.properties(properties)
			.run();
	}

	private static PollingManager manager(ConfigurableApplicationContext context) {
		return context.getBean(PollingManager.class);
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class IsyApplication {

	}

}
