package dev.polling.boot.autoconfigure.compat;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import dev.polling.boot.autoconfigure.PollingAutoConfiguration;
import dev.polling.boot.compat.PollingVerwalter;
import dev.polling.core.PollingManager;

/**
 * Provides isy-polling's {@link PollingVerwalter} API on top of the {@link PollingManager}, for code
 * migrated from isy-polling. The {@code isy.polling.*} properties are mapped earlier, by
 * {@link dev.polling.boot.compat.IsyPollingPropertiesEnvironmentPostProcessor}.
 */
@AutoConfiguration(after = PollingAutoConfiguration.class)
@ConditionalOnBean(PollingManager.class)
public final class IsyPollingCompatibilityAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	PollingVerwalter pollingVerwalter(PollingManager pollingManager) {
		return new PollingVerwalter(pollingManager);
	}

}
