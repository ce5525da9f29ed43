package dev.polling.boot.autoconfigure;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.ConfigurationPropertyState;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/** Matches when at least one {@code polling.clusters.<id>.*} property is set. */
class OnPollingClustersCondition extends SpringBootCondition {

	private static final ConfigurationPropertyName CLUSTERS = ConfigurationPropertyName.of("polling.clusters");

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(context.getEnvironment())) {
			if (source.containsDescendantOf(CLUSTERS) == ConfigurationPropertyState.PRESENT) {
				return ConditionOutcome.match("polling.clusters is configured");
			}
		}
		return ConditionOutcome.noMatch("no polling.clusters are configured");
	}

}
