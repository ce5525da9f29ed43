package dev.polling.boot.autoconfigure.actuate;

import dev.polling.boot.actuate.PollingDeliveryEndpoint;
import dev.polling.boot.actuate.PollingQueueEndpoint;
import dev.polling.boot.autoconfigure.jdbc.PollingJdbcAutoConfiguration;
import dev.polling.jdbc.delivery.DeliveryGuard;
import dev.polling.jdbc.queue.WorkQueue;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Auto-configuration of the {@link PollingQueueEndpoint} ({@code pollingqueue}) and the
 * {@link PollingDeliveryEndpoint} ({@code pollingdelivery}) when the actuator is present and the
 * endpoints are exposed. Their operator actions need {@code access=unrestricted}.
 */
@AutoConfiguration(after = PollingJdbcAutoConfiguration.class)
@ConditionalOnClass(value = { Endpoint.class, ConditionalOnAvailableEndpoint.class },
		name = PollingJdbcAutoConfiguration.POLLING_JDBC_CLASS)
public final class PollingJdbcEndpointAutoConfiguration {

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBean(WorkQueue.class)
	@ConditionalOnAvailableEndpoint(PollingQueueEndpoint.class)
	static class QueueEndpointConfiguration {

		@Bean
		@ConditionalOnMissingBean
		PollingQueueEndpoint pollingQueueEndpoint(WorkQueue queue) {
			return new PollingQueueEndpoint(queue);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBean(DeliveryGuard.class)
	@ConditionalOnAvailableEndpoint(PollingDeliveryEndpoint.class)
	static class DeliveryEndpointConfiguration {

		@Bean
		@ConditionalOnMissingBean
		PollingDeliveryEndpoint pollingDeliveryEndpoint(DeliveryGuard guard) {
			return new PollingDeliveryEndpoint(guard);
		}

	}

}
