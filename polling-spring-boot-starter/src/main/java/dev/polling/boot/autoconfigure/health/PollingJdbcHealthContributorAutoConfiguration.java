package dev.polling.boot.autoconfigure.health;

import dev.polling.boot.autoconfigure.jdbc.PollingJdbcAutoConfiguration;
import dev.polling.boot.health.PollingDatabaseHealthIndicator;
import dev.polling.boot.health.PollingDeliveryHealthIndicator;
import dev.polling.boot.health.PollingQueueHealthIndicator;
import dev.polling.jdbc.DatabaseStatus;
import dev.polling.jdbc.delivery.DeliveryGuard;
import dev.polling.jdbc.queue.WorkQueue;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.SanitizingFunction;
import org.springframework.boot.actuate.endpoint.Sanitizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Auto-configuration of the {@code pollingQueue} and {@code pollingDelivery} health contributors
 * (dead and in-doubt counts in their details) and of {@code pollingDatabase} (DOWN while the
 * database parts find the database unreachable). Disabled with
 * {@code management.health.polling-queue.enabled=false},
 * {@code management.health.polling-delivery.enabled=false} or
 * {@code management.health.polling-database.enabled=false}.
 */
@AutoConfiguration(after = PollingJdbcAutoConfiguration.class)
@ConditionalOnClass(value = { HealthContributor.class, ConditionalOnEnabledHealthIndicator.class, Sanitizer.class },
		name = PollingJdbcAutoConfiguration.POLLING_JDBC_CLASS)
public final class PollingJdbcHealthContributorAutoConfiguration {

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBean(WorkQueue.class)
	@ConditionalOnEnabledHealthIndicator("polling-queue")
	static class QueueHealthConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = "pollingQueueHealthIndicator")
		PollingQueueHealthIndicator pollingQueueHealthIndicator(WorkQueue queue) {
			return new PollingQueueHealthIndicator(queue);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBean(DatabaseStatus.class)
	@ConditionalOnEnabledHealthIndicator("polling-database")
	static class DatabaseHealthConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = "pollingDatabaseHealthIndicator")
		PollingDatabaseHealthIndicator pollingDatabaseHealthIndicator(DatabaseStatus status,
				ObjectProvider<SanitizingFunction> sanitizingFunctions) {
			return new PollingDatabaseHealthIndicator(status, new Sanitizer(sanitizingFunctions.orderedStream().toList()));
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBean(DeliveryGuard.class)
	@ConditionalOnEnabledHealthIndicator("polling-delivery")
	static class DeliveryHealthConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = "pollingDeliveryHealthIndicator")
		PollingDeliveryHealthIndicator pollingDeliveryHealthIndicator(DeliveryGuard guard) {
			return new PollingDeliveryHealthIndicator(guard);
		}

	}

}
