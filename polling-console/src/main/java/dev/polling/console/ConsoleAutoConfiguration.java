package dev.polling.console;

import java.time.Clock;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.actuate.endpoint.SanitizingFunction;
import org.springframework.boot.actuate.endpoint.Sanitizer;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

import dev.polling.boot.actuate.PollingValueSanitizer;
import dev.polling.boot.autoconfigure.PollingAutoConfiguration;
import dev.polling.core.PollingManager;

/**
 * The operator console ({@link ConsoleEndpoint}) in a web application with the polling starter, when
 * the {@code console} endpoint is exposed over HTTP, and the {@link ConsoleTimeline} that records what
 * happened to each cluster (it listens to the {@link PollingManager}).
 */
@AutoConfiguration(after = PollingAutoConfiguration.class)
@ConditionalOnWebApplication
@ConditionalOnBean(PollingManager.class)
@ConditionalOnAvailableEndpoint(endpoint = ConsoleEndpoint.class, exposure = EndpointExposure.WEB)
@EnableConfigurationProperties(ConsoleProperties.class)
public final class ConsoleAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	ConsoleTimeline pollingConsoleTimeline(ConsoleProperties properties, ObjectProvider<PollingManager> manager) {
		return new ConsoleTimeline(properties.getTimelineSize(), Clock.systemUTC(),
				(cluster) -> manager.getObject().cluster(cluster).waitTime());
	}

	@Bean
	@ConditionalOnMissingBean
	ConsoleEndpoint pollingConsoleEndpoint(PollingManager manager, ConsoleTimeline timeline, ConsoleProperties properties,
			ObjectProvider<SanitizingFunction> sanitizingFunctions) {
		PollingValueSanitizer sanitizer = new PollingValueSanitizer(new Sanitizer(sanitizingFunctions.orderedStream().toList()),
				properties.getShowValues(), properties.getRoles());
		return new ConsoleEndpoint(manager, timeline, properties, sanitizer, Clock.systemUTC());
	}

}
