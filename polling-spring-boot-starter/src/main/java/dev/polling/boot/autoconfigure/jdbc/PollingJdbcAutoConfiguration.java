package dev.polling.boot.autoconfigure.jdbc;

import dev.polling.jdbc.jobs.JobScheduler.DispatchResult;
import org.springframework.util.ClassUtils;
import java.util.function.Consumer;
import dev.polling.jdbc.delivery.DeliveryDestination;
import dev.polling.jdbc.DatabaseStatus;
import dev.polling.jdbc.delivery.DeliveryDispatcher;
import dev.polling.jdbc.delivery.DeliveryGuard;
import dev.polling.jdbc.delivery.DeliveryListener;
import dev.polling.jdbc.inbox.Inbox;
import dev.polling.jdbc.inbox.InboxListener;
import dev.polling.jdbc.inbox.Receipt;
import dev.polling.jdbc.queue.QueueListener;
import dev.polling.jdbc.queue.QueueSubscription;
import dev.polling.jdbc.queue.QueueWorkers;
import dev.polling.jdbc.TransactionRunner;
import dev.polling.jdbc.queue.WorkQueue;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import javax.sql.DataSource;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.boot.sql.init.dependency.DatabaseInitializationDependencyConfigurer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;
import org.springframework.boot.autoconfigure.task.TaskSchedulingAutoConfiguration;
import org.springframework.boot.task.SimpleAsyncTaskExecutorBuilder;
import org.springframework.boot.task.SimpleAsyncTaskSchedulerBuilder;
import org.springframework.boot.task.ThreadPoolTaskSchedulerBuilder;
import org.springframework.boot.thread.Threading;
import org.springframework.jdbc.datasource.DataSourceUtils;
import dev.polling.boot.InvalidPollingConfigurationException;
import org.jspecify.annotations.Nullable;
import dev.polling.boot.autoconfigure.properties.PollingProperties;
import dev.polling.core.ClusterCoordinator;
import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.coordination.JdbcCoordinator;
import dev.polling.core.PollingManager;
import dev.polling.jdbc.jobs.JobDispatcher;
import dev.polling.jdbc.jobs.JobScheduler;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import dev.polling.boot.autoconfigure.properties.PollingJdbcProperties;
import dev.polling.boot.autoconfigure.properties.JdbcPartProperties;

/**
 * Auto-configuration of polling's JDBC parts when the application has a single
 * {@link DataSource}: creates the tables per {@code polling.jdbc.initialize-schema}, provides an
 * {@link Inbox} that joins Spring-managed transactions, purges it on a schedule and, with
 * Micrometer present, counts receipts ({@link InboxMetrics}); provides a {@link WorkQueue} whose
 * {@link QueueWorkers} run every {@link QueueSubscription} bean, and a {@link DeliveryGuard} whose
 * dispatcher delivers to every {@link DeliveryDestination} bean, with their meters
 * ({@link QueueMetrics}, {@link DeliveryMetrics}). Each part is off until switched on
 * ({@code polling.jdbc.inbox|queue|delivery|jobs.enabled=true}); the coordinator exists only when a
 * cluster is coordinated through the database or the jobs part runs; without either, nothing here
 * touches the database. {@code polling.enabled=false} switches it all off.
 */
@AutoConfiguration(after = { DataSourceAutoConfiguration.class, TaskSchedulingAutoConfiguration.class },
		afterName = "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration")
@ConditionalOnClass(value = { DataSource.class, DataSourceUtils.class, DatabaseInitializationMode.class },
		name = PollingJdbcAutoConfiguration.POLLING_JDBC_CLASS)
@ConditionalOnSingleCandidate(DataSource.class)
@ConditionalOnBooleanProperty(name = "polling.enabled", matchIfMissing = true)
@EnableConfigurationProperties(PollingJdbcProperties.class)
@Import(DatabaseInitializationDependencyConfigurer.class)
public final class PollingJdbcAutoConfiguration {

	/** A class of dev.polling:polling-jdbc, the optional module with the database parts. */
	public static final String POLLING_JDBC_CLASS = "dev.polling.jdbc.coordination.JdbcCoordinator";


	@Bean
	@ConditionalOnMissingBean
	@Conditional(OnPollingJdbcCondition.AnyUse.class)
	PollingTaskSchedulers pollingTaskSchedulers(Environment environment,
			ObjectProvider<ThreadPoolTaskSchedulerBuilder> platformBuilder,
			ObjectProvider<SimpleAsyncTaskSchedulerBuilder> virtualBuilder,
			ObjectProvider<PollingTaskSchedulerCustomizer> customizers) {
		return new PollingTaskSchedulers(Threading.VIRTUAL.isActive(environment),
				platformBuilder.getIfAvailable(ThreadPoolTaskSchedulerBuilder::new),
				virtualBuilder.getIfAvailable(SimpleAsyncTaskSchedulerBuilder::new), customizers.orderedStream().toList());
	}

	@Bean
	@ConditionalOnMissingBean
	@Conditional(OnPollingJdbcCondition.AnyUse.class)
	PollingWorkerThreads pollingWorkerThreads(Environment environment,
			ObjectProvider<SimpleAsyncTaskExecutorBuilder> builder) {
		// Boot's builder carries its customizers and task decorator; never the shared applicationTaskExecutor
		return new PollingWorkerThreads(Threading.VIRTUAL.isActive(environment),
				builder.getIfAvailable(SimpleAsyncTaskExecutorBuilder::new));
	}

	@Bean
	@ConditionalOnMissingBean
	@Conditional(OnPollingJdbcCondition.AnyUse.class)
	DatabaseStatus pollingDatabaseStatus(Environment environment) {
		// shared by the queue workers, the delivery dispatcher and the job dispatcher: an outage is logged once
		return new DatabaseStatus(instanceId(environment).orElse("this instance"));
	}

	@Bean
	@ConditionalOnMissingBean
	@Conditional(OnPollingJdbcCondition.AnyUse.class)
	PollingJdbcSchemaInitializer pollingJdbcSchemaInitializer(DataSource dataSource, PollingJdbcProperties properties) {
		return new PollingJdbcSchemaInitializer(dataSource, properties.getInitializeSchema(), properties.tableNames());
	}

	@Bean
	@ConditionalOnMissingBean(ClusterCoordinator.class)
	@Conditional(OnPollingJdbcCondition.Coordination.class)
	JdbcCoordinator pollingJdbcCoordinator(DataSource dataSource, PollingJdbcProperties properties,
			ObjectProvider<PollingJdbcSchemaInitializer> schema, ObjectProvider<PollingProperties> pollingProperties) {
		Duration failover = polling(pollingProperties).getCoordination().getFailoverPeriod();
		schema.ifAvailable(PollingJdbcSchemaInitializer::isInitialized);
		// a decision waits for the cluster's row no longer than for a peer
		Duration lockTimeout = polling(pollingProperties).getJmx().getPeerTimeout();
		return new JdbcCoordinator(dataSource, Dialect.detect(dataSource), properties.tableNames(), failover, lockTimeout);
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBooleanProperty("polling.jdbc.queue.enabled")
	@ConditionalOnBooleanProperty("polling.jdbc.jobs.enabled")
	static class JobsConfiguration {

		@Bean
		@ConditionalOnMissingBean
		JobScheduler pollingJobScheduler(DataSource dataSource, PollingJdbcProperties properties,
				ObjectProvider<PollingJdbcSchemaInitializer> schema) {
			schema.ifAvailable(PollingJdbcSchemaInitializer::isInitialized);
			return JobScheduler.create(dataSource, new SpringTransactionConnectionProvider(dataSource), Dialect.detect(dataSource),
					properties.tableNames());
		}

		@Bean
		@ConditionalOnMissingBean
		JobDispatcherLifecycle pollingJobDispatcher(JobScheduler scheduler, WorkQueue queue, PollingJdbcProperties properties,
				ObjectProvider<PollingManager> manager, ListableBeanFactory beans,
				ObjectProvider<ClusterCoordinator> coordinators, ObjectProvider<DatabaseStatus> status,
				ObjectProvider<PollingProperties> pollingProperties, PollingWorkerThreads threads) {
			PollingJdbcProperties.Jobs settings = properties.getJobs();
			Duration failover = settings.getFailoverPeriod();
			JobDispatcher.Builder builder = JobDispatcher.builder(scheduler, queue)
				.interval(settings.getDispatchInterval())
				.batchSize(settings.getBatchSize())
				.failoverPeriod(failover)
				.shutdownWait(polling(pollingProperties).getShutdown().getTimeout())
				.threadFactory(threads.threadFactory("polling-job-dispatcher"))
				.status(status.getIfAvailable(() -> new DatabaseStatus("this instance")))
				.observer(jobsObserver(beans));
			String cluster = settings.getCluster();
			if (cluster != null && !cluster.isBlank()) {
				PollingManager pollingManager = manager.getIfAvailable();
				if (pollingManager == null || !pollingManager.clusterIds().contains(cluster.strip())) {
					throw new InvalidPollingConfigurationException("polling.jdbc.jobs.cluster", cluster,
							"there is no polling cluster '" + cluster + "'" + ((pollingManager != null) ? "; known clusters: "
									+ pollingManager.clusterIds() : ""),
							"define polling.clusters." + cluster + ".wait-time, or name one of the defined clusters");
				}
				ClusterCoordinator coordinator = coordinators.getIfUnique();
				builder.hold(JobDispatcherLifecycle.clusterHold(pollingManager, cluster.strip(),
						(coordinator instanceof JdbcCoordinator jdbc) ? jdbc : null));
			}
			refuseClustersSharingTheJobRows(manager.getIfAvailable(), coordinators.getIfUnique(), cluster);
			return new JobDispatcherLifecycle(builder.build());
		}

		/**
		 * The jobs meters' observer when Micrometer is on the class path and the meters are a bean; none
		 * otherwise. {@link JobsMetrics} is a {@code MeterBinder}: its class is only touched when
		 * Micrometer is there (a parameter of its type failed the start of an application without it).
		 */
		private static Consumer<DispatchResult> jobsObserver(ListableBeanFactory beans) {
			if (!ClassUtils.isPresent("io.micrometer.core.instrument.binder.MeterBinder", PollingJdbcAutoConfiguration.class.getClassLoader())) {
				return (result) -> {
				};
			}
			return MeteredJobs.observer(beans);
		}

		/**
		 * The job dispatcher's rows in the coordination table (its role, unless a cluster is named, and
		 * the dispatch lock) must not be a polling cluster's row too: the cluster and the dispatcher
		 * would take the row from each other.
		 */
		private static void refuseClustersSharingTheJobRows(@Nullable PollingManager manager,
				@Nullable ClusterCoordinator coordinator, @Nullable String namedCluster) {
			if (manager == null || !(coordinator instanceof JdbcCoordinator)) {
				return;
			}
			boolean roleInUse = namedCluster == null || namedCluster.isBlank();
			for (String id : manager.clusterIds()) {
				String row = id.equals(JobScheduler.DISPATCH_LOCK) ? "dispatch lock"
						: (roleInUse && id.equals(JobDispatcher.DEFAULT_ROLE)) ? "dispatcher role" : null;
				if (row != null) {
					throw new InvalidPollingConfigurationException("polling.clusters[" + id + "]", id,
							"cluster '" + id + "' and the job dispatcher's " + row + " ('" + id
									+ "') would share one row of the coordination table",
							"rename the cluster (ids '" + JobDispatcher.DEFAULT_ROLE + "' and '" + JobScheduler.DISPATCH_LOCK
									+ "' are the job dispatcher's), or name it in polling.jdbc.jobs.cluster to let its "
									+ "holder dispatch the jobs");
				}
			}
		}

		@Bean
		@ConditionalOnMissingBean(name = "pollingJobsPurge")
		RetentionPurgeScheduler pollingJobsPurge(JobScheduler scheduler, PollingJdbcProperties properties, PollingTaskSchedulers schedulers) {
			PollingJdbcProperties.Jobs settings = properties.getJobs();
			return new RetentionPurgeScheduler("jobs", settings.getRetention().getPurgeInterval(),
					() -> scheduler.purge(settings.getRetention().getPeriod()), schedulers);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBooleanProperty("polling.jdbc.inbox.enabled")
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
		InboxPurgeScheduler pollingInboxPurgeScheduler(Inbox inbox, PollingJdbcProperties properties,
				PollingTaskSchedulers schedulers) {
			PollingJdbcProperties.Inbox settings = properties.getInbox();
			return new InboxPurgeScheduler(inbox, settings.getRetention().getPeriod(), settings.getRetention().getPurgeInterval(), schedulers);
		}

		private static InboxListener composite(List<InboxListener> listeners) {
			return combine(listeners, InboxListener.NONE, (all) -> new InboxListener() {

				@Override
				public void onReceipt(String source, Receipt receipt) {
					listeners.forEach((listener) -> listener.onReceipt(source, receipt));
				}

				@Override
				public void onPurge(int deleted) {
					listeners.forEach((listener) -> listener.onPurge(deleted));
				}

			});
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterBinder.class)
	@ConditionalOnBooleanProperty("polling.jdbc.inbox.enabled")
	static class InboxMetricsConfiguration {

		@Bean
		@ConditionalOnMissingBean
		InboxMetrics pollingInboxMetrics() {
			return new InboxMetrics();
		}

	}


	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBooleanProperty("polling.jdbc.queue.enabled")
	static class QueueConfiguration {

		@Bean
		@ConditionalOnMissingBean
		WorkQueue pollingWorkQueue(DataSource dataSource, PollingJdbcProperties properties, Environment environment,
				ObjectProvider<QueueListener> listeners, ObjectProvider<PollingJdbcSchemaInitializer> schema) {
			schema.ifAvailable(PollingJdbcSchemaInitializer::isInitialized);
			PollingJdbcProperties.Queue settings = properties.getQueue();
			WorkQueue.Builder builder = WorkQueue.builder(dataSource)
				.connections(new SpringTransactionConnectionProvider(dataSource))
				.tables(properties.tableNames())
				.leaseTime(settings.getLease().getDuration())
				.maxAttempts(settings.getMaxAttempts())
				.backoff(backoff(settings.getBackoff()))
				.deleteWhenDone(settings.getRetention().getPeriod().isZero())
				.listener(queueListener(listeners.orderedStream().toList()));
			instanceId(environment).ifPresent(builder::instanceId);
			return builder.build();
		}

		@Bean
		@ConditionalOnMissingBean
		QueueWorkersLifecycle pollingQueueWorkers(WorkQueue queue, PollingJdbcProperties properties,
				ObjectProvider<QueueSubscription> subscriptions, ObjectProvider<PlatformTransactionManager> transactions,
				PollingTaskSchedulers schedulers, ObjectProvider<DatabaseStatus> databaseStatus,
				ObjectProvider<PollingProperties> pollingProperties, PollingWorkerThreads threads) {
			PollingJdbcProperties.Queue settings = properties.getQueue();
			QueueWorkers.Builder builder = QueueWorkers.builder(queue)
				.threadFactory(threads.threadFactory("polling-queue"))
				.status(databaseStatus.getIfAvailable(() -> new DatabaseStatus("this instance")))
				.threads(settings.getWorkers().getThreads())
				.batchSize(settings.getWorkers().getBatchSize())
				.pollInterval(settings.getWorkers().getPollInterval());
			subscriptions.orderedStream().forEach(builder::subscribe);
			PlatformTransactionManager manager = transactions.getIfUnique();
			if (manager != null) {
				// the handler's database work commits together with DONE, or rolls back with a rejected completion
				TransactionTemplate template = new TransactionTemplate(manager);
				builder.transactions((work) -> template.executeWithoutResult((status) -> work.run()));
			}
			else {
				builder.transactions(TransactionRunner.NONE);
			}
			return new QueueWorkersLifecycle(queue, builder.build(), settings.getRetention().getPeriod(),
					settings.getRetention().getPurgeInterval(), polling(pollingProperties).getShutdown().getTimeout(), schedulers);
		}

		private static QueueListener queueListener(List<QueueListener> listeners) {
			return combine(listeners, QueueListener.NONE, CompositeQueueListener::new);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBooleanProperty("polling.jdbc.delivery.enabled")
	static class DeliveryConfiguration {

		@Bean
		@ConditionalOnMissingBean
		DeliveryGuard pollingDeliveryGuard(DataSource dataSource, PollingJdbcProperties properties,
				Environment environment, ObjectProvider<DeliveryDestination> destinations,
				ObjectProvider<DeliveryListener> listeners, ObjectProvider<PollingJdbcSchemaInitializer> schema) {
			schema.ifAvailable(PollingJdbcSchemaInitializer::isInitialized);
			PollingJdbcProperties.Delivery settings = properties.getDelivery();
			DeliveryGuard.Builder builder = DeliveryGuard.builder(dataSource)
				.connections(new SpringTransactionConnectionProvider(dataSource))
				.tables(properties.tableNames())
				.leaseTime(settings.getLease().getDuration())
				.maxAttempts(settings.getMaxAttempts())
				.backoff(backoff(settings.getBackoff()))
				.listener(deliveryListener(listeners.orderedStream().toList()));
			destinations.orderedStream().forEach(builder::destination);
			instanceId(environment).ifPresent(builder::instanceId);
			return builder.build();
		}

		@Bean
		@ConditionalOnMissingBean
		DeliveryDispatcherLifecycle pollingDeliveryDispatcher(DeliveryGuard guard, PollingJdbcProperties properties,
				ObjectProvider<DatabaseStatus> status, ObjectProvider<PollingProperties> pollingProperties,
				PollingWorkerThreads threads) {
			PollingJdbcProperties.Delivery settings = properties.getDelivery();
			JdbcPartProperties.Workers workers = settings.getWorkers();
			DeliveryDispatcher dispatcher = DeliveryDispatcher.builder(guard)
				.threads(workers.getThreads())
				.batchSize(workers.getBatchSize())
				.intervals(workers.getPollInterval(), settings.getRecoverInterval())
				.status(status.getIfAvailable())
				.threadFactory(threads.threadFactory("polling-delivery"))
				.build();
			return new DeliveryDispatcherLifecycle(dispatcher, polling(pollingProperties).getShutdown().getTimeout());
		}

		@Bean
		@ConditionalOnMissingBean(name = "pollingDeliveryPurge")
		RetentionPurgeScheduler pollingDeliveryPurge(DeliveryGuard guard, PollingJdbcProperties properties, PollingTaskSchedulers schedulers) {
			PollingJdbcProperties.Delivery settings = properties.getDelivery();
			return new RetentionPurgeScheduler("delivery", settings.getRetention().getPurgeInterval(),
					() -> guard.admin().purge(settings.getRetention().getPeriod()), schedulers);
		}

		private static DeliveryListener deliveryListener(List<DeliveryListener> listeners) {
			return combine(listeners, DeliveryListener.NONE, CompositeDeliveryListener::new);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterBinder.class)
	static class QueueAndDeliveryMetricsConfiguration {

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnBooleanProperty("polling.jdbc.jobs.enabled")
		JobsMetrics pollingJobsMetrics(ObjectProvider<JobScheduler> scheduler) {
			return new JobsMetrics(scheduler);
		}

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnBooleanProperty("polling.jdbc.queue.enabled")
		QueueMetrics pollingQueueMetrics(ObjectProvider<WorkQueue> queue, ObjectProvider<QueueSubscription> subscriptions) {
			return new QueueMetrics(queue::getObject, () -> subscriptions.orderedStream().map(QueueSubscription::queue).toList());
		}

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnBooleanProperty("polling.jdbc.delivery.enabled")
		DeliveryMetrics pollingDeliveryMetrics(ObjectProvider<DeliveryGuard> guard, ObjectProvider<DeliveryDestination> destinations) {
			return new DeliveryMetrics(guard::getObject, () -> destinations.orderedStream().map(DeliveryDestination::name).toList());
		}

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnBean(MeterRegistry.class)
		@Conditional(OnPollingJdbcCondition.AnyUse.class)
		StatsGaugeRefresher pollingJdbcGaugeRefresher(ObjectProvider<QueueMetrics> queue,
				ObjectProvider<DeliveryMetrics> delivery, PollingTaskSchedulers schedulers, PollingJdbcProperties properties) {
			List<Runnable> refreshes = new ArrayList<>();
			queue.ifAvailable((metrics) -> refreshes.add(metrics::refresh));
			delivery.ifAvailable((metrics) -> refreshes.add(metrics::refresh));
			return new StatsGaugeRefresher(refreshes, properties.getMetrics().getRefreshInterval(), schedulers);
		}

	}

	static dev.polling.jdbc.Backoff backoff(JdbcPartProperties.Backoff settings) {
		return settings.toBackoff();
	}

	/** No listener, the only one, or all of them in order. */
	static <L> L combine(List<L> listeners, L none, Function<List<L>, L> composite) {
		if (listeners.isEmpty()) {
			return none;
		}
		return (listeners.size() == 1) ? listeners.get(0) : composite.apply(listeners);
	}

	/** {@code polling.instance-id} if set; otherwise the builders generate one. */
	static Optional<String> instanceId(Environment environment) {
		String instanceId = environment.getProperty("polling.instance-id");
		return (instanceId == null || instanceId.isBlank()) ? Optional.empty() : Optional.of(instanceId.strip());
	}

	/** Loaded only when Micrometer is on the class path. */
	private static final class MeteredJobs {

		static Consumer<DispatchResult> observer(ListableBeanFactory beans) {
			JobsMetrics meters = beans.getBeanProvider(JobsMetrics.class).getIfAvailable();
			return (meters != null) ? meters::record : (result) -> {
			};
		}

	}

	/**
	 * The polling properties, or their defaults when polling's core configuration is off
	 * ({@code polling.enabled=false} leaves the database parts on).
	 */
	static PollingProperties polling(ObjectProvider<PollingProperties> properties) {
		return properties.getIfAvailable(PollingProperties::new);
	}

}
