package dev.polling.e2e.instance;

import java.time.Duration;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.binder.MeterBinder;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;
import org.springframework.jdbc.core.simple.JdbcClient;

import dev.polling.boot.autoconfigure.PollingJmxServerLifecycle;
import dev.polling.core.PollingManager;
import dev.polling.core.jmx.PollingJmxServer;

/**
 * The additions to a sample-app instance started by the demo, the chaos run or the soak: registered
 * as an auto-configuration ({@code META-INF/spring/...AutoConfiguration.imports} of the instance
 * jar), so the jar on the class path is all an instance needs. The watchdog reads
 * {@code e2e.exit-with-parent} when it is created, not in a condition.
 */
@AutoConfiguration
public class InstanceAdditions {

	/** The gauge of the JMX server's open client connections (its connection ids), 0 while it is closed. */
	public static final String JMX_SERVER_CONNECTIONS = "e2e.jmx.server.connections";

	@Bean
	ParentWatchdog e2eParentWatchdog(@Value("${e2e.exit-with-parent:false}") boolean exitWithParent) {
		return new ParentWatchdog(exitWithParent);
	}

	@Bean
	@Profile("chaos")
	TickClusters e2eTickClusters(PollingManager polling, JdbcClient jdbc, @Value("${e2e.ticks.period:4s}") Duration period) {
		return new TickClusters(polling, jdbc, period);
	}

	/** The soak reads the gauge from {@code /actuator/prometheus}; only where Micrometer and the starter are there. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = { "io.micrometer.core.instrument.binder.MeterBinder",
			"dev.polling.boot.autoconfigure.PollingJmxServerLifecycle" })
	static class JmxServerGauge {

		@Bean
		MeterBinder e2eJmxServerConnections(ObjectProvider<PollingJmxServerLifecycle> lifecycle) {
			return (registry) -> Gauge.builder(JMX_SERVER_CONNECTIONS, lifecycle, (provider) -> {
				PollingJmxServerLifecycle jmx = provider.getIfAvailable();
				PollingJmxServer server = (jmx != null) ? jmx.server() : null;
				return (server != null) ? server.connectionIds().size() : 0;
			}).description("Client connections open at this instance's polling JMX server").register(registry);
		}

	}

}
