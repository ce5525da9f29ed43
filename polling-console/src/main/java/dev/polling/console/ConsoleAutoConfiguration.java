package dev.polling.console;

import java.time.Clock;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.actuate.endpoint.SanitizingFunction;
import org.springframework.boot.actuate.endpoint.Sanitizer;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.polling.boot.actuate.PollingValueSanitizer;
import dev.polling.boot.autoconfigure.PollingAutoConfiguration;
import dev.polling.boot.autoconfigure.jdbc.PollingJdbcProperties;
import dev.polling.boot.autoconfigure.jdbc.PollingJdbcSchemaInitializer;
import dev.polling.console.jdbc.DeliverySection;
import dev.polling.console.jdbc.JobSection;
import dev.polling.console.jdbc.QueueSection;
import dev.polling.console.jdbc.SchemaVersionCheck;
import dev.polling.core.PollingManager;
import dev.polling.jdbc.delivery.DeliveryGuard;
import dev.polling.jdbc.jobs.JobScheduler;
import dev.polling.jdbc.queue.WorkQueue;

/**
 * The operator console ({@link ConsoleEndpoint}) in a web application with the polling starter, when
 * the {@code console} endpoint is exposed over HTTP, and the {@link ConsoleTimeline} that records what
 * happened to each cluster (it listens to the {@link PollingManager}); with the work queue or the
 * delivery guard on, their sections.
 */
@AutoConfiguration(after = PollingAutoConfiguration.class,
		afterName = "dev.polling.boot.autoconfigure.jdbc.PollingJdbcAutoConfiguration")
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

	static PollingValueSanitizer sanitizer(ConsoleProperties properties, ObjectProvider<SanitizingFunction> sanitizingFunctions) {
		return new PollingValueSanitizer(new Sanitizer(sanitizingFunctions.orderedStream().toList()), properties.getShowValues(),
				properties.getRoles());
	}

	/** The work queue and the delivery guard, when polling-jdbc is present and they are on. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(WorkQueue.class)
	static class DatabaseParts {

		@Bean
		@ConditionalOnBean(WorkQueue.class)
		@ConditionalOnMissingBean
		QueueSection pollingConsoleQueueSection(WorkQueue queue, ConsoleProperties properties,
				ObjectProvider<SanitizingFunction> sanitizingFunctions) {
			return new QueueSection(queue, sanitizer(properties, sanitizingFunctions), properties.getPageSize());
		}

		@Bean
		@ConditionalOnBean(DeliveryGuard.class)
		@ConditionalOnMissingBean
		DeliverySection pollingConsoleDeliverySection(DeliveryGuard guard, ConsoleProperties properties,
				ObjectProvider<SanitizingFunction> sanitizingFunctions) {
			return new DeliverySection(guard, sanitizer(properties, sanitizingFunctions), properties.getPageSize(),
					properties.getInDoubtAfter(), Clock.systemUTC());
		}

		@Bean
		@ConditionalOnBean({ JobScheduler.class, WorkQueue.class })
		@ConditionalOnMissingBean
		JobSection pollingConsoleJobSection(JobScheduler scheduler, WorkQueue queue, ConsoleProperties properties,
				ObjectProvider<SanitizingFunction> sanitizingFunctions, ObjectProvider<PollingJdbcProperties> jdbc) {
			PollingJdbcProperties settings = jdbc.getIfAvailable();
			return new JobSection(scheduler, queue, sanitizer(properties, sanitizingFunctions), properties.getPageSize(),
					properties.getJobOverdueAfter(), (settings != null) ? settings.getJobs().getCluster() : null);
		}

		@Bean
		@ConditionalOnBean(PollingJdbcSchemaInitializer.class)
		@ConditionalOnMissingBean
		SchemaVersionCheck pollingConsoleSchemaVersionCheck(PollingJdbcSchemaInitializer schema) {
			return new SchemaVersionCheck(schema.dataSource(), schema.tables());
		}

	}

}
