package dev.polling.boot.autoconfigure.jdbc;

import java.time.Duration;

import dev.polling.jdbc.inbox.Inbox;
import dev.polling.jdbc.inbox.InboxListener;
import dev.polling.jdbc.inbox.Receipt;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DataSourceUtils;

import dev.polling.boot.autoconfigure.InvalidPollingConfigurationException;
import dev.polling.core.ClusterCoordinator;
import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.coordination.JdbcCoordinator;

/**
 * Auto-configuration of polling's JDBC parts when the application has a single
 * {@link DataSource}: creates the tables per {@code polling.jdbc.initialize-schema}, provides an
 * {@link Inbox} that joins Spring-managed transactions, purges it on a schedule and, with
 * Micrometer present, counts receipts ({@link InboxMetrics}). {@code polling.enabled=false}
 * switches it off.
 */
@AutoConfiguration(after = DataSourceAutoConfiguration.class)
@ConditionalOnClass({ DataSource.class, DataSourceUtils.class, DatabaseInitializationMode.class })
@ConditionalOnSingleCandidate(DataSource.class)
@ConditionalOnBooleanProperty(name = "polling.enabled", matchIfMissing = true)
@EnableConfigurationProperties(PollingJdbcProperties.class)
public final class PollingJdbcAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	PollingJdbcSchemaInitializer pollingJdbcSchemaInitializer(DataSource dataSource, PollingJdbcProperties properties) {
		return new PollingJdbcSchemaInitializer(dataSource, properties.getInitializeSchema(), properties.tableNames());
	}

	@Bean
	@ConditionalOnMissingBean(ClusterCoordinator.class)
	JdbcCoordinator pollingJdbcCoordinator(DataSource dataSource, PollingJdbcProperties properties,
			ObjectProvider<PollingJdbcSchemaInitializer> schema) {
		Duration failover = properties.getCoordination().getFailoverPeriod();
		if (failover != null && (failover.isNegative() || failover.isZero())) {
			throw new InvalidPollingConfigurationException("polling.jdbc.coordination.failover-period", failover.toString(),
					"the failover period must be positive", "set it to at least the longest cycle plus the timer delay, e.g. 30s");
		}
		schema.ifAvailable(PollingJdbcSchemaInitializer::isInitialized);
		return new JdbcCoordinator(dataSource, Dialect.detect(dataSource), properties.tableNames(), failover);
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBooleanProperty(name = "polling.jdbc.inbox.enabled", matchIfMissing = true)
	static class InboxConfiguration {

		@Bean
		@ConditionalOnMissingBean
		Inbox pollingInbox(DataSource dataSource, PollingJdbcProperties properties,
				ObjectProvider<InboxListener> listeners, ObjectProvider<PollingJdbcSchemaInitializer> schema) {
			// the tables must exist before the inbox is used: initialise the schema first
			schema.ifAvailable(PollingJdbcSchemaInitializer::isInitialized);
			return Inbox.builder(new SpringTransactionConnectionProvider(dataSource))
				.tables(properties.tableNames())
				.listener(composite(listeners.orderedStream().toList()))
				.purgeBatchSize(properties.getInbox().getPurgeBatchSize())
				.build();
		}

		@Bean
		@ConditionalOnMissingBean
		InboxPurgeScheduler pollingInboxPurgeScheduler(Inbox inbox, PollingJdbcProperties properties) {
			PollingJdbcProperties.Inbox settings = properties.getInbox();
			return new InboxPurgeScheduler(inbox, settings.getRetention(), settings.getPurgeInterval());
		}

		private static InboxListener composite(List<InboxListener> listeners) {
			if (listeners.isEmpty()) {
				return InboxListener.NONE;
			}
			if (listeners.size() == 1) {
				return listeners.get(0);
			}
			return new InboxListener() {

				@Override
				public void onReceipt(String source, Receipt receipt) {
					listeners.forEach((listener) -> listener.onReceipt(source, receipt));
				}

				@Override
				public void onPurge(int deleted) {
					listeners.forEach((listener) -> listener.onPurge(deleted));
				}

			};
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterBinder.class)
	@ConditionalOnBooleanProperty(name = "polling.jdbc.inbox.enabled", matchIfMissing = true)
	static class InboxMetricsConfiguration {

		@Bean
		@ConditionalOnMissingBean
		InboxMetrics pollingInboxMetrics() {
			return new InboxMetrics();
		}

	}

}
