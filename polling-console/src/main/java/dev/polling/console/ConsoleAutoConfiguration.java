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
 * happened to each cluster (it listens to the {@link PollingManager}); with the work queue or the
 * delivery guard on, their sections.
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
		return new ConsoleTimeline(properties.getTimelineSize(), properties.getTimelineRetention(), Clock.systemUTC(),
				(cluster) -> manager.getObject().cluster(cluster).waitTime());
	}

	@Bean
	@ConditionalOnMissingBean
	ConsoleEndpoint pollingConsoleEndpoint(PollingManager manager, ConsoleTimeline timeline, ConsoleProperties properties,
			ObjectProvider<SanitizingFunction> sanitizingFunctions, ObjectProvider<ConsoleSection> sections,
			ObjectProvider<ConsoleProblemSource> problemSources) {
		return new ConsoleEndpoint(manager, timeline, properties, sanitizer(properties, sanitizingFunctions), Clock.systemUTC(),
				sections.orderedStream().toList(), problemSources.orderedStream().toList());
	}

	/**
	 * What the console shows of error texts and details: the application's sanitizing functions and
	 * {@code polling.console.show-values} / {@code roles}.
	 * @param properties the console's settings
	 * @param sanitizingFunctions the application's sanitizing functions
	 * @return the sanitizer
	 */
	public static PollingValueSanitizer sanitizer(ConsoleProperties properties, ObjectProvider<SanitizingFunction> sanitizingFunctions) {
		return new PollingValueSanitizer(new Sanitizer(sanitizingFunctions.orderedStream().toList()), properties.getShowValues(),
				properties.getRoles());
	}

}
