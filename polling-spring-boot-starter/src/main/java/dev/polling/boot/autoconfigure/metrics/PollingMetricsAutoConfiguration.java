package dev.polling.boot.autoconfigure.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import dev.polling.boot.autoconfigure.PollingAutoConfiguration;
import dev.polling.boot.metrics.PollingMetrics;
import dev.polling.core.PollingManager;

/**
 * Auto-configuration of {@link PollingMetrics}: a {@link MeterBinder} that Spring Boot binds to
 * its meter registries, and a listener the auto-configured {@link PollingManager} reports to.
 * Only with Micrometer on the classpath.
 */
@AutoConfiguration(after = PollingAutoConfiguration.class,
		afterName = { "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
				"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration" })
@ConditionalOnClass({ MeterRegistry.class, MeterBinder.class })
@ConditionalOnBean({ PollingManager.class, MeterRegistry.class })
public final class PollingMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	PollingMetrics pollingMetrics(ObjectProvider<PollingManager> manager) {
		return new PollingMetrics(manager::getIfAvailable);
	}

}
