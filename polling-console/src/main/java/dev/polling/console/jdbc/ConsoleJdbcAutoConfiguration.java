package dev.polling.console.jdbc;

import java.time.Clock;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.SanitizingFunction;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import dev.polling.boot.autoconfigure.properties.PollingJdbcProperties;
import dev.polling.boot.autoconfigure.jdbc.PollingJdbcSchemaInitializer;
import dev.polling.console.ConsoleAutoConfiguration;
import dev.polling.console.ConsoleEndpoint;
import dev.polling.console.ConsoleProperties;
import dev.polling.jdbc.delivery.DeliveryGuard;
import dev.polling.jdbc.jobs.JobScheduler;
import dev.polling.jdbc.queue.WorkQueue;

/**
 * The console's sections for polling-jdbc's parts that are on (work queue, delivery guard, jobs) and
 * the schema version check, when the console is on ({@link ConsoleAutoConfiguration}).
 */
@AutoConfiguration(after = ConsoleAutoConfiguration.class,
		afterName = "dev.polling.boot.autoconfigure.jdbc.PollingJdbcAutoConfiguration")
@ConditionalOnClass(WorkQueue.class)
@ConditionalOnBean(ConsoleEndpoint.class)
public final class ConsoleJdbcAutoConfiguration {

	@Bean
	@ConditionalOnBean(WorkQueue.class)
	@ConditionalOnMissingBean
	QueueSection pollingConsoleQueueSection(WorkQueue queue, ConsoleProperties properties,
			ObjectProvider<SanitizingFunction> sanitizingFunctions) {
		return new QueueSection(queue, ConsoleAutoConfiguration.sanitizer(properties, sanitizingFunctions), properties.getPageSize());
	}

	@Bean
	@ConditionalOnBean(DeliveryGuard.class)
	@ConditionalOnMissingBean
	DeliverySection pollingConsoleDeliverySection(DeliveryGuard guard, ConsoleProperties properties,
			ObjectProvider<SanitizingFunction> sanitizingFunctions) {
		return new DeliverySection(guard, ConsoleAutoConfiguration.sanitizer(properties, sanitizingFunctions), properties.getPageSize(),
				properties.getInDoubtAfter(), Clock.systemUTC());
	}

	@Bean
	@ConditionalOnBean({ JobScheduler.class, WorkQueue.class })
	@ConditionalOnMissingBean
	JobSection pollingConsoleJobSection(JobScheduler scheduler, WorkQueue queue, ConsoleProperties properties,
			ObjectProvider<SanitizingFunction> sanitizingFunctions, ObjectProvider<PollingJdbcProperties> jdbc) {
		PollingJdbcProperties settings = jdbc.getIfAvailable();
		return new JobSection(scheduler, queue, ConsoleAutoConfiguration.sanitizer(properties, sanitizingFunctions),
				properties.getPageSize(), properties.getJobOverdueAfter(), (settings != null) ? settings.getJobs().getCluster() : null);
	}

	@Bean
	@ConditionalOnBean(PollingJdbcSchemaInitializer.class)
	@ConditionalOnMissingBean
	SchemaVersionCheck pollingConsoleSchemaVersionCheck(PollingJdbcSchemaInitializer schema) {
		return new SchemaVersionCheck(schema.dataSource(), schema.tables());
	}

}
