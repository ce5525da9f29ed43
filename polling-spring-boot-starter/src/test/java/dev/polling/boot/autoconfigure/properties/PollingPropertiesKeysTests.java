package dev.polling.boot.autoconfigure.properties;

import java.io.InputStream;
import java.net.URL;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.BeanWrapperImpl;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;


import static org.assertj.core.api.Assertions.assertThat;

/** One unit rule for every duration under polling.*, and metadata that shows only real settings. */
class PollingPropertiesKeysTests {

	@Test
	void everyDurationPropertyReadsAPlainNumberAsSeconds() {
		List<String> keys = PollingPropertyKeys.get().keysOfType(Duration.class);
		assertThat(keys).contains("polling.jmx.peer-timeout", "polling.clusters.<id>.wait-time", "polling.clusters.<id>.max-cycle-time",
				"polling.jdbc.queue.workers.poll-interval", "polling.jdbc.queue.backoff.initial", "polling.jdbc.delivery.backoff.max",
				"polling.coordination.failover-period", "polling.jdbc.jobs.dispatch-interval")
			.hasSizeGreaterThanOrEqualTo(18);
		for (String key : keys) {
			String property = key.replace("<id>", "MAILBOX");
			Binder binder = new Binder(new MapConfigurationPropertySource(Map.of(property, "7")));
			Object bound = property.startsWith("polling.jdbc.")
					? read(binder.bind("polling.jdbc", PollingJdbcProperties.class).get(), property.substring("polling.jdbc.".length()))
					: read(binder.bind("polling", PollingProperties.class).get(), property.substring("polling.".length()));
			assertThat(bound).as(key).isEqualTo(Duration.ofSeconds(7));
		}
	}

	@Test
	void theMetadataListsTheBackoffSettingsButNoInternalField() throws Exception {
		List<String> names = new ArrayList<>();
		for (URL url : Collections.list(getClass().getClassLoader().getResources("META-INF/spring-configuration-metadata.json"))) {
			if (url.toString().contains("polling-spring-boot-starter")) {
				try (InputStream in = url.openStream()) {
					for (JsonNode property : JsonMapper.builder().build().readTree(in).get("properties")) {
						names.add(property.get("name").asString());
					}
				}
			}
		}
		assertThat(names).contains("polling.jmx.peer-timeout", "polling.jdbc.queue.backoff.initial", "polling.jdbc.queue.backoff.multiplier",
				"polling.jdbc.delivery.backoff.max");
		assertThat(names).noneMatch((name) -> name.endsWith(".prefix"));
	}

	@Test
	void knowsMapKeysListIndexesAndTheJdbcKeys() {
		assertThat(check("polling.clusters.ANY_ID.wait-time")).isNull();
		assertThat(check("polling.clusters[MAIL BOX].peers[0]")).isNull();
		assertThat(check("polling.jmx.peers.SERVER2.ssl-bundle")).isNull();
		assertThat(check("polling.jdbc.delivery.backoff.multiplier")).isNull();
		assertThat(check("polling.jmx.peerTimeout")).isNull();
		assertThat(check("polling.coordination.failoverPeriod")).isNull();
		assertThat(check("polling.jmx.server.prot").suggestion()).isEqualTo("polling.jmx.server.port");
		assertThat(check("polling.jmx.peer-timeout.seconds").problem()).isEqualTo("polling.jmx.peer-timeout has no keys below it");
		assertThat(check("polling.jdbc.queue.something-else").suggestion()).isNull();
	}

	private static PollingPropertyKeys.Unknown check(String name) {
		return PollingPropertyKeys.get().check(ConfigurationPropertyName.adapt(name, '.'));
	}

	/** Reads a dashed path such as {@code clusters.MAILBOX.wait-time} from a properties object. */
	private static Object read(Object root, String path) {
		StringBuilder beanPath = new StringBuilder();
		String[] elements = path.split("\\.");
		for (int i = 0; i < elements.length; i++) {
			boolean mapKey = i > 0 && (elements[i - 1].equals("clusters") || elements[i - 1].equals("peers"));
			if (mapKey) {
				beanPath.append('[').append(elements[i]).append(']');
			}
			else {
				beanPath.append(beanPath.isEmpty() ? "" : ".").append(camel(elements[i]));
			}
		}
		return new BeanWrapperImpl(root).getPropertyValue(beanPath.toString());
	}

	private static String camel(String dashed) {
		StringBuilder camel = new StringBuilder();
		boolean upper = false;
		for (char ch : dashed.toCharArray()) {
			if (ch == '-') {
				upper = true;
			}
			else {
				camel.append(upper ? Character.toUpperCase(ch) : ch);
				upper = false;
			}
		}
		return camel.toString();
	}

}
