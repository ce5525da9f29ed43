package dev.polling.boot.autoconfigure;

import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.validation.BindValidationException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;
import dev.polling.boot.autoconfigure.properties.PollingFailureAnalyzer;

/**
 * Every bad configuration fails startup when the properties are bound, with a report naming each
 * property as written, the value and the fix, and never shows a password.
 */
class PollingPropertiesValidationTests {

	private static final String SECRET = "s3cr3t-Passw0rd";

	private static final String CLUSTER = "polling.clusters.MAILABRUF_CLUSTER.wait-time=10s";

	private static final String PEER_HOST = "polling.jmx.peers.SERVER2.host=localhost";

	private static final String PEER_PORT = "polling.jmx.peers.SERVER2.port=9010";

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(PollingAutoConfiguration.class))
		.withPropertyValues("polling.instance-id=validation", "polling.jmx.domain=dev.polling.validationtest");

	static Stream<Arguments> badConfigurations() {
		return Stream.of(
				arguments("wait time of 5s", List.of("polling.clusters.MAILABRUF_CLUSTER.wait-time=5s"),
						"polling.clusters.MAILABRUF_CLUSTER.wait-time", "5s", "at least 10s"),
				arguments("cluster without wait time", List.of("polling.clusters.MAILABRUF_CLUSTER.name=XY-Nachrichten"),
						"polling.clusters.MAILABRUF_CLUSTER.wait-time", "not set", "at least 10s"),
				arguments("peer timeout of 50ms", List.of(CLUSTER, "polling.jmx.peer-timeout=50ms"), "polling.jmx.peer-timeout", "50ms",
						"set polling.jmx.peer-timeout to e.g. 2s"),
				arguments("peer timeout of half the wait time", List.of(CLUSTER, "polling.jmx.peer-timeout=5s"),
						"polling.jmx.peer-timeout", "5s", "lower polling.jmx.peer-timeout below 5s"),
				arguments("cluster naming an unknown peer",
						List.of(CLUSTER, PEER_HOST, PEER_PORT, "polling.clusters.MAILABRUF_CLUSTER.peers=SERVER9"),
						"polling.clusters.MAILABRUF_CLUSTER.peers", "SERVER9", "define polling.jmx.peers.SERVER9"),
				arguments("peer with neither host nor url", List.of(CLUSTER, "polling.jmx.peers.SERVER2.port=9010"),
						"polling.jmx.peers.SERVER2.host", "not set", "or polling.jmx.peers.SERVER2.url"),
				arguments("peer port 0", List.of(CLUSTER, PEER_HOST, "polling.jmx.peers.SERVER2.port=0"), "polling.jmx.peers.SERVER2.port",
						"0", "from 1 to 65535"),
				arguments("peer port 70000", List.of(CLUSTER, PEER_HOST, "polling.jmx.peers.SERVER2.port=70000"),
						"polling.jmx.peers.SERVER2.port", "70000", "from 1 to 65535"),
				arguments("JMX server port 70000", List.of(CLUSTER, "polling.jmx.server.port=70000"), "polling.jmx.server.port",
						"70000", "from 1 to 65535"),
				arguments("blank peer host", List.of(CLUSTER, "polling.jmx.peers.SERVER2.host= ", PEER_PORT), "polling.jmx.peers.SERVER2.host",
						"", "set the host name"),
				arguments("peer password without username", List.of(CLUSTER, PEER_HOST, PEER_PORT, "polling.jmx.peers.SERVER2.password=" + SECRET),
						"polling.jmx.peers.SERVER2.username", "not set", "set polling.jmx.peers.SERVER2.username"),
				arguments("JMX server password without username",
						List.of(CLUSTER, "polling.jmx.server.port=9010", "polling.jmx.server.password=" + SECRET),
						"polling.jmx.server.username", "not set", "set polling.jmx.server.username"),
				arguments("JMX server on 0.0.0.0 without credentials",
						List.of(CLUSTER, "polling.jmx.server.port=9010", "polling.jmx.server.bind-address=0.0.0.0"),
						"polling.jmx.server.bind-address", "0.0.0.0", "set polling.jmx.server.username and polling.jmx.server.password"),
				arguments("two peers with the same address",
						List.of(CLUSTER, PEER_HOST, PEER_PORT, "polling.jmx.peers.SERVER3.host=LOCALHOST", "polling.jmx.peers.SERVER3.port=9010"),
						"polling.jmx.peers.SERVER3.host", "localhost:9010", "remove one of them"),
				arguments("blank instance id", List.of(CLUSTER, "polling.instance-id= "), "polling.instance-id", "",
						"remove polling.instance-id"),
				arguments("JMX server with an unknown SSL bundle",
						List.of(CLUSTER, "polling.jmx.server.port=9010", "polling.jmx.server.ssl-bundle=polling"),
						"polling.jmx.server.ssl-bundle", "polling", "spring.ssl.bundle.jks.polling"),
				arguments("peer with an unknown SSL bundle", List.of(CLUSTER, PEER_HOST, PEER_PORT, "polling.jmx.peers.SERVER2.ssl-bundle=polling"),
						"polling.jmx.peers.SERVER2.ssl-bundle", "polling", "spring.ssl.bundle.jks.polling"),
				arguments("DNS discovery without port", List.of(CLUSTER, "polling.jmx.discovery.dns.name=orders-polling.svc"),
						"polling.jmx.discovery.dns.port", "not set", "set polling.jmx.discovery.dns.port"),
				arguments("DNS discovery port without name", List.of(CLUSTER, "polling.jmx.discovery.dns.port=9010"),
						"polling.jmx.discovery.dns.name", "not set", "set polling.jmx.discovery.dns.name"),
				arguments("DNS discovery name with a port", List.of(CLUSTER, "polling.jmx.discovery.dns.name=orders-polling.svc:9010",
						"polling.jmx.discovery.dns.port=9010"), "polling.jmx.discovery.dns.name", "orders-polling.svc:9010",
						"the port goes into polling.jmx.discovery.dns.port"),
				arguments("DNS discovery port 70000", List.of(CLUSTER, "polling.jmx.discovery.dns.name=orders-polling.svc",
						"polling.jmx.discovery.dns.port=70000"), "polling.jmx.discovery.dns.port", "70000", "from 1 to 65535"),
				arguments("DNS discovery interval of 3 (seconds) for a 10s wait time", List.of(CLUSTER,
						"polling.jmx.discovery.dns.name=orders-polling.svc", "polling.jmx.discovery.dns.port=9010", "polling.jmx.discovery.dns.interval=3"),
						"polling.jmx.discovery.dns.interval", "3s", "at most 2500ms"),
				arguments("DNS discovery interval of 10ms", List.of(CLUSTER, "polling.jmx.discovery.dns.name=orders-polling.svc",
						"polling.jmx.discovery.dns.port=9010", "polling.jmx.discovery.dns.interval=10ms"), "polling.jmx.discovery.dns.interval", "10ms",
						"set polling.jmx.discovery.dns.interval to e.g. 2s"),
				arguments("DNS discovery password without username", List.of(CLUSTER, "polling.jmx.discovery.dns.name=orders-polling.svc",
						"polling.jmx.discovery.dns.port=9010", "polling.jmx.discovery.dns.password=" + SECRET), "polling.jmx.discovery.dns.username",
						"not set", "set polling.jmx.discovery.dns.username"),
				arguments("JMX server credentials without port", List.of(CLUSTER, "polling.jmx.server.username=polling",
						"polling.jmx.server.password=" + SECRET), "polling.jmx.server.username", "polling", "set polling.jmx.server.port"),
				arguments("peer url that is no JMX URL", List.of(CLUSTER, "polling.jmx.peers.SERVER2.url=http://localhost:9010"),
						"polling.jmx.peers.SERVER2.url", "http://localhost:9010", "service:jmx:rmi"),
				arguments("negative JMX idle timeout", List.of(CLUSTER, "polling.jmx.server.port=9010", "polling.jmx.server.idle-timeout=-1s"),
						"polling.jmx.server.idle-timeout", "-1s", "set a positive duration"),
				arguments("JMX idle timeout without port", List.of(CLUSTER, "polling.jmx.server.idle-timeout=10m"),
						"polling.jmx.server.idle-timeout", "600s", "set polling.jmx.server.port"),
				arguments("bad JMX domain", List.of(CLUSTER, "polling.jmx.domain=a:b"), "polling.jmx.domain", "a:b", "dev.polling"));
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("badConfigurations")
	void failsStartupWithOneMessageNamingPropertyValueAndFix(String description, List<String> properties, String property,
			String value, String fix) {
		this.runner.withPropertyValues(properties.toArray(String[]::new)).run((context) -> {
			assertThat(context).hasFailed();
			Throwable failure = context.getStartupFailure();
			FailureAnalysis analysis = new PollingFailureAnalyzer(null).analyze(failure);
			assertThat(analysis).as("analysis of %s", failure).isNotNull();
			assertThat(analysis.getDescription()).contains("Property: " + property + "\n").contains("Value: " + value + "\n");
			assertThat(analysis.getAction()).contains(fix);
			// the same in Spring Boot's own report, whichever analyzer answers
			assertThat(failure).hasStackTraceContaining(property.substring("polling.".length())).hasStackTraceContaining(fix);
			for (Throwable t = failure; t != null; t = t.getCause()) {
				assertThat(t.getMessage()).doesNotContain(SECRET);
			}
			assertThat(analysis.getDescription() + analysis.getAction()).doesNotContain(SECRET);
		});
	}

	@Test
	void mistakesAreFoundWhenThePropertiesAreBoundAndReportedTogether() {
		this.runner.withPropertyValues("polling.clusters.MAILABRUF_CLUSTER.wait-time=5s", "polling.jmx.peer-timeout=50ms",
				"polling.jmx.peers.SERVER2.port=0", "polling.jmx.peers.SERVER2.host=localhost").run((context) -> {
					assertThat(context).hasFailed();
					Throwable failure = context.getStartupFailure();
					assertThat(failure).hasRootCauseInstanceOf(BindValidationException.class);
					FailureAnalysis analysis = new PollingFailureAnalyzer(null).analyze(failure);
					assertThat(analysis).isNotNull();
					assertThat(analysis.getDescription()).contains("Property: polling.clusters.MAILABRUF_CLUSTER.wait-time")
						.contains("Property: polling.jmx.peer-timeout")
						.contains("Property: polling.jmx.peers.SERVER2.port");
					assertThat(analysis.getAction().lines()).hasSize(3).allSatisfy((line) -> assertThat(line).startsWith("Fix: "));
				});
	}

	@Test
	void leavesOtherValidationFailuresToSpringBoot() {
		new ApplicationContextRunner().withUserConfiguration(OtherPropertiesConfiguration.class)
			.withPropertyValues("other.name=")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(new PollingFailureAnalyzer(null).analyze(context.getStartupFailure())).isNull();
			});
	}

	@Test
	void explainsAnUnparsableDuration() {
		this.runner.withPropertyValues(CLUSTER, "polling.jmx.peer-timeout=two seconds").run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = new PollingFailureAnalyzer(null).analyze(context.getStartupFailure());
			assertThat(analysis).isNotNull();
			assertThat(analysis.getDescription()).contains("Property: polling.jmx.peer-timeout")
				.contains("Value: 'two seconds'")
				.contains("a duration");
			assertThat(analysis.getAction()).contains("500ms, 2s or 10m");
		});
	}

	@Test
	void explainsAnUnparsableWaitTimeAsSecondsByDefault() {
		this.runner.withPropertyValues("polling.clusters.MAILABRUF_CLUSTER.wait-time=ten").run((context) -> {
			FailureAnalysis analysis = new PollingFailureAnalyzer(null).analyze(context.getStartupFailure());
			assertThat(analysis).isNotNull();
			assertThat(analysis.getDescription()).contains("polling.clusters.MAILABRUF_CLUSTER.wait-time").contains("'ten'");
			assertThat(analysis.getAction()).contains("a plain number means seconds");
		});
	}

	@Test
	void explainsAnUnknownPolicy() {
		this.runner.withPropertyValues(CLUSTER, "polling.jmx.unreachable-peer-policy=hope").run((context) -> {
			FailureAnalysis analysis = new PollingFailureAnalyzer(null).analyze(context.getStartupFailure());
			assertThat(analysis).isNotNull();
			assertThat(analysis.getDescription()).contains("polling.jmx.unreachable-peer-policy").contains("'hope'");
			assertThat(analysis.getAction()).contains("proceed, presume-last-known");
		});
	}

	@Test
	void acceptsAValidConfiguration() {
		this.runner
			.withPropertyValues(CLUSTER, PEER_HOST, PEER_PORT, "polling.jmx.peers.SERVER2.username=polling",
					"polling.jmx.peers.SERVER2.password=" + SECRET, "polling.jmx.peer-timeout=4999ms")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Configuration(proxyBeanMethods = false)
	@EnableConfigurationProperties(OtherProperties.class)
	static class OtherPropertiesConfiguration {

	}

	/** An application's own properties that validate themselves. */
	@ConfigurationProperties("other")
	static class OtherProperties implements Validator {

		private String name = "x";

		public String getName() {
			return this.name;
		}

		public void setName(String name) {
			this.name = name;
		}

		@Override
		public boolean supports(Class<?> type) {
			return OtherProperties.class.isAssignableFrom(type);
		}

		@Override
		public void validate(Object target, Errors errors) {
			if (((OtherProperties) target).getName().isEmpty()) {
				errors.rejectValue("name", "empty", "must not be empty");
			}
		}

	}

}
