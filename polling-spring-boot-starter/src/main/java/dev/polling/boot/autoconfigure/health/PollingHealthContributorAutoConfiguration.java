package dev.polling.boot.autoconfigure.health;

import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.SanitizingFunction;
import org.springframework.boot.actuate.endpoint.Sanitizer;
import org.springframework.context.annotation.Bean;

import dev.polling.boot.autoconfigure.NoDecisionWatch;
import dev.polling.boot.autoconfigure.PollingAutoConfiguration;
import dev.polling.boot.health.PollingClusterHealthIndicator;
import dev.polling.core.PollingManager;

/**
 * Auto-configuration of the {@code polling} health contributor: one component per cluster.
 * Disabled with {@code management.health.polling.enabled=false}.
 */
@AutoConfiguration(after = PollingAutoConfiguration.class)
@ConditionalOnClass({ HealthContributor.class, ConditionalOnEnabledHealthIndicator.class, Sanitizer.class })
@ConditionalOnBean(PollingManager.class)
@ConditionalOnEnabledHealthIndicator("polling")
public final class PollingHealthContributorAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(name = { "pollingHealthIndicator", "pollingHealthContributor" })
	HealthContributor pollingHealthContributor(PollingManager manager, ObjectProvider<SanitizingFunction> sanitizingFunctions,
			ObjectProvider<NoDecisionWatch> noDecisionWatch) {
		NoDecisionWatch watch = noDecisionWatch.getIfAvailable();
		Sanitizer sanitizer = new Sanitizer(sanitizingFunctions.orderedStream().toList());
		Map<String, PollingClusterHealthIndicator> indicators = new LinkedHashMap<>();
		for (String clusterId : manager.clusterIds()) {
			indicators.put(clusterId, new PollingClusterHealthIndicator(manager, clusterId, sanitizer,
					(watch != null) ? watch : (cluster) -> false));
		}
		return CompositeHealthContributor.fromMap(indicators);
	}

}
