package dev.polling.e2e.instance;

import java.time.Duration;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Profile;
import org.springframework.jdbc.core.simple.JdbcClient;

import dev.polling.core.PollingManager;

/**
 * The additions to a sample-app instance started by the demo or the chaos run: registered as an
 * auto-configuration ({@code META-INF/spring/...AutoConfiguration.imports} of the instance jar), so
 * the jar on the class path is all an instance needs. The watchdog reads
 * {@code e2e.exit-with-parent} when it is created, not in a condition.
 */
@AutoConfiguration
public class InstanceAdditions {

	@Bean
	ParentWatchdog e2eParentWatchdog(@Value("${e2e.exit-with-parent:false}") boolean exitWithParent) {
		return new ParentWatchdog(exitWithParent);
	}

	@Bean
	@Profile("chaos")
	TickClusters e2eTickClusters(PollingManager polling, JdbcClient jdbc, @Value("${e2e.ticks.period:4s}") Duration period) {
		return new TickClusters(polling, jdbc, period);
	}

}
