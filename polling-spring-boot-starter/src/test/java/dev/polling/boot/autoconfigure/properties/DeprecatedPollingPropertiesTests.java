package dev.polling.boot.autoconfigure.properties;

import java.io.InputStream;
import java.net.URL;
import java.util.Collections;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.logging.DeferredLogs;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import dev.polling.core.CoordinationKind;
import dev.polling.core.PeerDefinition;
import dev.polling.core.PollingManager;
import dev.polling.core.UnreachablePeerPolicy;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The keys of the previous version still work for one version: each is read under its new name,
 * with a warning naming the replacement, and is listed as deprecated in the configuration metadata.
 */
@ExtendWith(OutputCaptureExtension.class)
class DeprecatedPollingPropertiesTests {

	@Test
	void everyOldKeyIsReadUnderItsNewName() {
		Map<String, Object> old = new LinkedHashMap<>();
		old.put("polling.peer-timeout", "1500ms");
		old.put("polling.unreachable-peer-policy", "presume-last-known");
		old.put("polling.balance-clusters", "true");
		old.put("polling.coordination", "jdbc");
		old.put("polling.peers.SERVER2.host", "server2");
		old.put("polling.peers.SERVER2.port", "9010");
		old.put("polling.peers[server.three].url", "service:jmx:rmi:///jndi/rmi://server3:9011/jmxrmi");
		old.put("polling.discovery.dns.name", "orders.svc");
		old.put("polling.discovery.dns.port", "9010");
		old.put("polling.shedlock.lock-name-prefix", "lock-");
		old.put("polling.kubernetes.namespace", "orders");
		old.put("polling.kubernetes.lease-name-prefix", "lease-");
		old.put("polling.kubernetes.renew-deadline", "7s");
		old.put("polling.jdbc.coordination.failover-period", "25s");
		old.put("polling.shutdown.cycle-wait", "12s");
		old.put("polling.jdbc.queue.lease-time", "45s");
		old.put("polling.jdbc.queue.threads", "6");
		old.put("polling.jdbc.queue.batch-size", "20");
		old.put("polling.jdbc.queue.poll-interval", "250ms");
		old.put("polling.jdbc.queue.retention", "0");
		old.put("polling.jdbc.queue.purge-interval", "2h");
		old.put("polling.jdbc.delivery.lease-time", "3m");
		old.put("polling.jdbc.delivery.threads", "2");
		old.put("polling.jdbc.delivery.retention", "3d");
		old.put("polling.jdbc.inbox.retention", "60d");
		old.put("polling.jdbc.inbox.purge-interval", "30m");
		old.put("polling.jdbc.jobs.retention", "14d");
		StandardEnvironment environment = postProcessed(old);

		PollingProperties polling = Binder.get(environment).bind("polling", PollingProperties.class).get();
		assertThat(polling.getJmx().getPeerTimeout()).isEqualTo(Duration.ofMillis(1500));
		assertThat(polling.getJmx().getUnreachablePeerPolicy()).isEqualTo(UnreachablePeerPolicy.PRESUME_LAST_KNOWN);
		assertThat(polling.getJmx().isBalanceClusters()).isTrue();
		assertThat(polling.getCoordination().getKind()).isEqualTo(CoordinationKind.JDBC);
		assertThat(polling.getJmx().getPeers()).containsOnlyKeys("SERVER2", "server.three");
		assertThat(polling.getJmx().getPeers().get("SERVER2").getHost()).isEqualTo("server2");
		assertThat(polling.getJmx().getPeers().get("SERVER2").getPort()).isEqualTo(9010);
		assertThat(polling.getJmx().getPeers().get("server.three").getUrl()).contains("server3:9011");
		assertThat(polling.getJmx().getDiscovery().getDns().getName()).isEqualTo("orders.svc");
		assertThat(polling.getJmx().getDiscovery().getDns().getPort()).isEqualTo(9010);
		assertThat(polling.getCoordination().getShedlock().getLockNamePrefix()).isEqualTo("lock-");
		assertThat(polling.getCoordination().getKubernetes().getNamespace()).isEqualTo("orders");
		assertThat(polling.getCoordination().getKubernetes().getLeaseNamePrefix()).isEqualTo("lease-");
		assertThat(polling.getCoordination().getKubernetes().getRenewDeadline()).isEqualTo(Duration.ofSeconds(7));
		assertThat(polling.getCoordination().getFailoverPeriod()).isEqualTo(Duration.ofSeconds(25));
		assertThat(polling.getShutdown().getTimeout()).isEqualTo(Duration.ofSeconds(12));

		PollingJdbcProperties jdbc = Binder.get(environment).bind("polling.jdbc", PollingJdbcProperties.class).get();
		assertThat(jdbc.getQueue().getLease().getDuration()).isEqualTo(Duration.ofSeconds(45));
		assertThat(jdbc.getQueue().getWorkers().getThreads()).isEqualTo(6);
		assertThat(jdbc.getQueue().getWorkers().getBatchSize()).isEqualTo(20);
		assertThat(jdbc.getQueue().getWorkers().getPollInterval()).isEqualTo(Duration.ofMillis(250));
		assertThat(jdbc.getQueue().getRetention().getPeriod()).isZero();
		assertThat(jdbc.getQueue().getRetention().getPurgeInterval()).isEqualTo(Duration.ofHours(2));
		assertThat(jdbc.getDelivery().getLease().getDuration()).isEqualTo(Duration.ofMinutes(3));
		assertThat(jdbc.getDelivery().getWorkers().getThreads()).isEqualTo(2);
		assertThat(jdbc.getDelivery().getRetention().getPeriod()).isEqualTo(Duration.ofDays(3));
		assertThat(jdbc.getInbox().getRetention().getPeriod()).isEqualTo(Duration.ofDays(60));
		assertThat(jdbc.getInbox().getRetention().getPurgeInterval()).isEqualTo(Duration.ofMinutes(30));
		assertThat(jdbc.getJobs().getRetention().getPeriod()).isEqualTo(Duration.ofDays(14));
	}

	@Test
	void withoutTheOldKeysTheDefaultsOfTheNewTreeHold() {
		StandardEnvironment environment = postProcessed(Map.of("polling.clusters.MAILBOX.wait-time", "10s"));
		assertThat(environment.getPropertySources().contains(DeprecatedPollingProperties.PROPERTY_SOURCE_NAME)).isFalse();
		PollingJdbcProperties jdbc = Binder.get(environment).bindOrCreate("polling.jdbc", PollingJdbcProperties.class);
		assertThat(jdbc.getQueue().getLease().getDuration()).isEqualTo(Duration.ofSeconds(30));
		assertThat(jdbc.getQueue().getWorkers().getThreads()).isEqualTo(4);
		assertThat(jdbc.getQueue().getWorkers().getPollInterval()).isEqualTo(Duration.ofMillis(500));
		assertThat(jdbc.getDelivery().getLease().getDuration()).isEqualTo(Duration.ofMinutes(2));
		assertThat(jdbc.getDelivery().getWorkers().getThreads()).isEqualTo(1);
		assertThat(jdbc.getDelivery().getWorkers().getPollInterval()).isEqualTo(Duration.ofSeconds(1));
		assertThat(jdbc.getInbox().getRetention().getPeriod()).isEqualTo(Duration.ofDays(30));
		assertThat(jdbc.getJobs().getRetention().getPeriod()).isEqualTo(Duration.ofDays(7));
		PollingProperties polling = Binder.get(environment).bindOrCreate("polling", PollingProperties.class);
		assertThat(polling.getShutdown().getTimeout()).isEqualTo(PollingProperties.DEFAULT_SHUTDOWN_TIMEOUT);
		assertThat(polling.getCoordination().getKind()).isEqualTo(CoordinationKind.JMX);
	}

	@Test
	void anOldKeyFromAnEnvironmentVariableIsReadToo() {
		StandardEnvironment environment = new StandardEnvironment();
		environment.getPropertySources().replace(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
				new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
				Map.of("POLLING_PEERTIMEOUT", "3s", "POLLING_PEERS_SERVER2_HOST", "server2", "POLLING_JDBC_QUEUE_LEASETIME", "40s")));
		new DeprecatedPollingProperties(new DeferredLogs()).postProcessEnvironment(environment, new SpringApplication());
		PollingProperties polling = Binder.get(environment).bind("polling", PollingProperties.class).get();
		assertThat(polling.getJmx().getPeerTimeout()).isEqualTo(Duration.ofSeconds(3));
		assertThat(polling.getJmx().getPeers().get("server2").getHost()).isEqualTo("server2");
		assertThat(Binder.get(environment).bind("polling.jdbc", PollingJdbcProperties.class).get().getQueue().getLease().getDuration())
			.isEqualTo(Duration.ofSeconds(40));
	}

	@Test
	void aNewKeyWinsOverItsOldName() {
		Map<String, Object> both = new LinkedHashMap<>();
		both.put("polling.peer-timeout", "3s");
		both.put("polling.jmx.peer-timeout", "1s");
		both.put("polling.coordination", "jdbc");
		both.put("polling.coordination.kind", "shedlock");
		StandardEnvironment environment = postProcessed(both);
		PollingProperties polling = Binder.get(environment).bind("polling", PollingProperties.class).get();
		assertThat(polling.getJmx().getPeerTimeout()).isEqualTo(Duration.ofSeconds(1));
		assertThat(polling.getCoordination().getKind()).isEqualTo(CoordinationKind.SHEDLOCK);
		assertThat(DeprecatedPollingProperties.find(environment)).extracting(DeprecatedPollingProperties.Renamed::applied)
			.containsOnly(false);
	}

	@Test
	void severalOldDurationsThatBecameOneAreReadAsTheLongest() {
		Map<String, Object> old = new LinkedHashMap<>();
		old.put("polling.shedlock.failover-period", "20s");
		old.put("polling.jdbc.coordination.failover-period", "45s");
		old.put("polling.kubernetes.lease-duration", "30");
		old.put("polling.shutdown.cycle-wait", "10s");
		old.put("polling.jdbc.queue.shutdown-wait", "25s");
		old.put("polling.jdbc.delivery.shutdown-wait", "1m");
		old.put("polling.jdbc.jobs.shutdown-wait", "5s");
		PollingProperties polling = Binder.get(postProcessed(old)).bind("polling", PollingProperties.class).get();
		assertThat(polling.getCoordination().getFailoverPeriod()).isEqualTo(Duration.ofSeconds(45));
		assertThat(polling.getShutdown().getTimeout()).isEqualTo(Duration.ofMinutes(1));
	}

	@Test
	void anApplicationWrittenForThePreviousVersionStartsAndIsToldTheNewNames(CapturedOutput output) {
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(EmptyApplication.class)
			.web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off")
			.run("--polling.jmx.domain=dev.polling.deprecatedkeystest", "--polling.clusters.MAILBOX.wait-time=10s",
					"--polling.peer-timeout=1500ms", "--polling.peers.SERVER2.host=127.0.0.1", "--polling.peers.SERVER2.port=9",
					"--polling.shutdown.cycle-wait=5s")) {
			PollingManager manager = context.getBean(PollingManager.class);
			assertThat(manager.settings().peerTimeout()).isEqualTo(Duration.ofMillis(1500));
			assertThat(manager.peers().values()).extracting(PeerDefinition::id).containsExactly("SERVER2");
			assertThat(context.getBean(PollingProperties.class).getShutdown().getTimeout()).isEqualTo(Duration.ofSeconds(5));
		}
		assertThat(output).contains("Property 'polling.peer-timeout' (\"polling.peer-timeout\" from property source "
				+ "\"commandLineArgs\") is deprecated and will be removed in the next version: read as 'polling.jmx.peer-timeout'")
			.contains("Property 'polling.peers.SERVER2.host'")
			.contains("rename it to 'polling.jmx.peers.SERVER2.host'")
			.contains("rename it to 'polling.shutdown.timeout'")
			.doesNotContain("is ignored: it is not a polling property");
	}

	@Test
	void everyOldKeyIsDeprecatedInTheMetadataWithItsReplacement() throws Exception {
		Map<String, JsonNode> properties = new HashMap<>();
		for (URL url : Collections.list(getClass().getClassLoader().getResources("META-INF/spring-configuration-metadata.json"))) {
			if (url.toString().contains("polling-spring-boot-starter")) {
				try (InputStream in = url.openStream()) {
					for (JsonNode property : JsonMapper.builder().build().readTree(in).get("properties")) {
						properties.put(property.get("name").asString(), property);
					}
				}
			}
		}
		assertThat(properties).as("the starter's generated metadata").isNotEmpty();
		List<String> movedPrefixes = List.of("polling.discovery");
		DeprecatedPollingProperties.RENAMED.forEach((oldKey, newKey) -> {
			if (movedPrefixes.contains(oldKey)) {
				return; // its keys below are listed one by one, checked below
			}
			assertThat(properties).as(oldKey).containsKey(oldKey);
			JsonNode deprecation = properties.get(oldKey).get("deprecation");
			assertThat(deprecation).as(oldKey + " deprecated").isNotNull();
			assertThat(deprecation.get("replacement").asString()).as(oldKey + " replacement").isEqualTo(newKey);
			assertThat(properties).as("the replacement " + newKey + " is a property").containsKey(newKey);
			assertThat(properties.get(newKey).get("deprecation")).as(newKey + " not deprecated").isNull();
		});
		for (String dns : List.of("name", "port", "interval", "username", "password")) {
			JsonNode deprecation = properties.get("polling.discovery.dns." + dns).get("deprecation");
			assertThat(deprecation.get("replacement").asString()).isEqualTo("polling.jmx.discovery.dns." + dns);
			assertThat(properties).containsKey("polling.jmx.discovery.dns." + dns);
		}
		// and no metadata entry names a key the starter does not bind
		PollingPropertyKeys keys = PollingPropertyKeys.get();
		properties.keySet().stream().filter((name) -> name.startsWith("polling.") && properties.get(name).get("deprecation") == null)
			.forEach((name) -> assertThat(keys.check(ConfigurationPropertyName.of(name))).as(name + " is bound").isNull());
	}

	private static StandardEnvironment postProcessed(Map<String, Object> properties) {
		StandardEnvironment environment = new StandardEnvironment();
		environment.getPropertySources().addFirst(new MapPropertySource("test", properties));
		new DeprecatedPollingProperties(new DeferredLogs()).postProcessEnvironment(environment, new SpringApplication());
		return environment;
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class EmptyApplication {

	}

}
