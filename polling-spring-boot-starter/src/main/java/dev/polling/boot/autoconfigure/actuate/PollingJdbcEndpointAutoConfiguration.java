package dev.polling.boot.autoconfigure.actuate;

import dev.polling.boot.actuate.PollingDeliveryEndpoint;
import dev.polling.boot.actuate.PollingDeliveryEndpointWebExtension;
import dev.polling.boot.actuate.PollingQueueEndpoint;
import dev.polling.boot.actuate.PollingQueueEndpointWebExtension;
import dev.polling.boot.autoconfigure.jdbc.PollingJdbcAutoConfiguration;
import dev.polling.jdbc.delivery.DeliveryGuard;
import dev.polling.jdbc.queue.WorkQueue;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.actuate.endpoint.SanitizingFunction;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
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
	@EnableConfigurationProperties(PollingEndpointValuesProperties.Queue.class)
	static class QueueEndpointConfiguration {

		@Bean
		@ConditionalOnMissingBean
		PollingQueueEndpoint pollingQueueEndpoint(WorkQueue queue, PollingEndpointValuesProperties.Queue properties,
				ObjectProvider<SanitizingFunction> sanitizingFunctions) {
			return new PollingQueueEndpoint(queue, properties.sanitizer(sanitizingFunctions));
		}

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnBean(PollingQueueEndpoint.class)
		@ConditionalOnAvailableEndpoint(exposure = EndpointExposure.WEB)
		PollingQueueEndpointWebExtension pollingQueueEndpointWebExtension(PollingQueueEndpoint endpoint) {
			return new PollingQueueEndpointWebExtension(endpoint);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBean(DeliveryGuard.class)
	@ConditionalOnAvailableEndpoint(PollingDeliveryEndpoint.class)
	@EnableConfigurationProperties(PollingEndpointValuesProperties.Delivery.class)
	static class DeliveryEndpointConfiguration {

		@Bean
		@ConditionalOnMissingBean
		PollingDeliveryEndpoint pollingDeliveryEndpoint(DeliveryGuard guard, PollingEndpointValuesProperties.Delivery properties,
				ObjectProvider<SanitizingFunction> sanitizingFunctions) {
			return new PollingDeliveryEndpoint(guard, properties.sanitizer(sanitizingFunctions));
		}

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnBean(PollingDeliveryEndpoint.class)
		@ConditionalOnAvailableEndpoint(exposure = EndpointExposure.WEB)
		PollingDeliveryEndpointWebExtension pollingDeliveryEndpointWebExtension(PollingDeliveryEndpoint endpoint) {
			return new PollingDeliveryEndpointWebExtension(endpoint);
		}

	}

}
