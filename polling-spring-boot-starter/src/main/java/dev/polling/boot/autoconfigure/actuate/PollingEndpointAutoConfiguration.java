package dev.polling.boot.autoconfigure.actuate;

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
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

import dev.polling.boot.actuate.PollingEndpoint;
import dev.polling.boot.actuate.PollingEndpointWebExtension;
import dev.polling.boot.autoconfigure.PollingAutoConfiguration;
import dev.polling.core.PollingManager;

/**
 * Auto-configuration of the {@link PollingEndpoint}, when the actuator is on the classpath and the
 * endpoint is exposed, with its {@link PollingEndpointWebExtension} over HTTP. Its state change
 * (paused/active) needs {@code management.endpoint.polling.access=unrestricted}.
 */
@AutoConfiguration(after = PollingAutoConfiguration.class)
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnBean(PollingManager.class)
@ConditionalOnAvailableEndpoint(PollingEndpoint.class)
@EnableConfigurationProperties(PollingEndpointValuesProperties.Polling.class)
public final class PollingEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	PollingEndpoint pollingEndpoint(PollingManager manager, PollingEndpointValuesProperties.Polling properties,
			ObjectProvider<SanitizingFunction> sanitizingFunctions) {
		return new PollingEndpoint(manager, properties.sanitizer(sanitizingFunctions));
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(PollingEndpoint.class)
	@ConditionalOnAvailableEndpoint(exposure = EndpointExposure.WEB)
	PollingEndpointWebExtension pollingEndpointWebExtension(PollingEndpoint endpoint) {
		return new PollingEndpointWebExtension(endpoint);
	}

	/** Over Spring MVC: a state change refused for read-only access names the property that allows it. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
	@ConditionalOnClass(name = "org.springframework.web.servlet.HandlerExceptionResolver")
	static class ReadOnlyHintConfiguration {

		@Bean
		static ReadOnlyEndpointHint pollingReadOnlyEndpointHint(ObjectProvider<PathMappedEndpoints> endpoints, Environment environment) {
			return new ReadOnlyEndpointHint(endpoints, environment);
		}

	}

}
