package dev.polling.boot.autoconfigure.health;

import dev.polling.boot.actuate.PollingDeliveryEndpoint;
import dev.polling.boot.actuate.PollingQueueEndpoint;
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
 * Auto-configuration of the {@code pollingqueue} and {@code pollingdelivery} health contributors
 * (dead and in-doubt counts in their details) and of {@code pollingdatabase} (DOWN while the
 * database parts find the database unreachable). Each is spelled as the endpoint of its part
 * ({@code /actuator/pollingqueue}, {@code /actuator/health/pollingqueue}), one spelling that is also
 * the key of its switch: {@code management.health.pollingqueue.enabled=false},
 * {@code management.health.pollingdelivery.enabled=false} or
 * {@code management.health.pollingdatabase.enabled=false}. Boot names a contributor after its bean
 * without the {@code HealthIndicator} suffix, hence the lower-case bean names.
 */
@AutoConfiguration(after = PollingJdbcAutoConfiguration.class)
@ConditionalOnClass(value = { HealthContributor.class, ConditionalOnEnabledHealthIndicator.class, Sanitizer.class },
		name = PollingJdbcAutoConfiguration.POLLING_JDBC_CLASS)
public final class PollingJdbcHealthContributorAutoConfiguration {

	/** The work queue's health contributor, named as its endpoint. */
	public static final String QUEUE = PollingQueueEndpoint.ID;

	/** The delivery guard's health contributor, named as its endpoint. */
	public static final String DELIVERY = PollingDeliveryEndpoint.ID;

	/** The database parts' reachability. */
	public static final String DATABASE = "pollingdatabase";

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBean(WorkQueue.class)
	@ConditionalOnEnabledHealthIndicator(QUEUE)
	static class QueueHealthConfiguration {

		@Bean(QUEUE + "HealthIndicator")
		@ConditionalOnMissingBean(name = QUEUE + "HealthIndicator")
		PollingQueueHealthIndicator pollingQueueHealthIndicator(WorkQueue queue) {
			return new PollingQueueHealthIndicator(queue);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBean(DatabaseStatus.class)
	@ConditionalOnEnabledHealthIndicator(DATABASE)
	static class DatabaseHealthConfiguration {

		@Bean(DATABASE + "HealthIndicator")
		@ConditionalOnMissingBean(name = DATABASE + "HealthIndicator")
		PollingDatabaseHealthIndicator pollingDatabaseHealthIndicator(DatabaseStatus status,
				ObjectProvider<SanitizingFunction> sanitizingFunctions) {
			return new PollingDatabaseHealthIndicator(status, new Sanitizer(sanitizingFunctions.orderedStream().toList()));
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBean(DeliveryGuard.class)
	@ConditionalOnEnabledHealthIndicator(DELIVERY)
	static class DeliveryHealthConfiguration {

		@Bean(DELIVERY + "HealthIndicator")
		@ConditionalOnMissingBean(name = DELIVERY + "HealthIndicator")
		PollingDeliveryHealthIndicator pollingDeliveryHealthIndicator(DeliveryGuard guard) {
			return new PollingDeliveryHealthIndicator(guard);
		}

	}

}
