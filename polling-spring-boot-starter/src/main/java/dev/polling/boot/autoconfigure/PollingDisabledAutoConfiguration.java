package dev.polling.boot.autoconfigure;

import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;

import dev.polling.boot.aop.UnguardedPollingMethodsReporter;

/**
 * With {@code polling.enabled=false} nothing of polling is configured; this says so once at startup,
 * naming the {@code @PollingCycle} and {@code @PollingAction} methods that now run unguarded.
 * {@link MissingPollingBeanFailureAnalyzer} explains a missing {@code PollingManager} in that case.
 */
@AutoConfiguration
@ConditionalOnBooleanProperty(name = "polling.enabled", havingValue = false)
public final class PollingDisabledAutoConfiguration {

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean
	static UnguardedPollingMethodsReporter unguardedPollingMethodsReporter() {
		return new UnguardedPollingMethodsReporter();
	}

}
