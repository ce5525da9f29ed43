package dev.polling.boot.autoconfigure.jdbc;

import static dev.polling.boot.autoconfigure.FailureReports.assertRefused;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.polling.boot.actuate.PollingDeliveryEndpoint;
import dev.polling.boot.actuate.PollingDeliveryEndpointWebExtension;
import dev.polling.boot.actuate.PollingQueueEndpoint;
import dev.polling.boot.actuate.PollingQueueEndpointWebExtension;
import dev.polling.boot.autoconfigure.actuate.PollingJdbcEndpointAutoConfiguration;
import dev.polling.boot.autoconfigure.health.PollingJdbcHealthContributorAutoConfiguration;
import dev.polling.boot.health.PollingDatabaseHealthIndicator;
import dev.polling.boot.health.PollingDeliveryHealthIndicator;
import dev.polling.boot.health.PollingHealthStatus;
import dev.polling.boot.health.PollingQueueHealthIndicator;
import dev.polling.jdbc.delivery.Delivery;
import dev.polling.jdbc.delivery.DeliveryDestination;
import dev.polling.jdbc.delivery.DeliveryGuard;
import dev.polling.jdbc.delivery.DeliveryState;
import dev.polling.jdbc.queue.MessageState;
import dev.polling.jdbc.queue.QueueSubscription;
import dev.polling.jdbc.queue.WorkQueue;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import dev.polling.jdbc.DatabaseStatus;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.h2.jdbcx.JdbcDataSource;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthContributors;
import org.springframework.boot.health.registry.HealthContributorRegistry;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The work queue and delivery guard wiring of {@link PollingJdbcAutoConfiguration}, with the
 * endpoints and health contributors, on an embedded H2 database.
 */
class QueueAndDeliveryAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, JdbcTemplateAutoConfiguration.class,
				TransactionAutoConfiguration.class, PollingJdbcAutoConfiguration.class,
				PollingJdbcEndpointAutoConfiguration.class, PollingJdbcHealthContributorAutoConfiguration.class))
		.withPropertyValues("spring.datasource.generate-unique-name=true", "polling.instance-id=test-instance",
				"polling.jdbc.queue.enabled=true", "polling.jdbc.delivery.enabled=true",
				"polling.jdbc.queue.workers.poll-interval=50ms", "polling.jdbc.delivery.workers.poll-interval=50ms",
				"polling.jdbc.queue.backoff.initial=50ms", "polling.jdbc.delivery.backoff.initial=50ms",
				"management.endpoints.web.exposure.include=pollingqueue,pollingdelivery");

	@Test
	void workersRunTheSubscribedHandlerAndTheDispatcherSendsThroughTheDestination() {
		this.runner.withUserConfiguration(MailFlow.class).run((context) -> {
			WorkQueue queue = context.getBean(WorkQueue.class);
			DeliveryGuard guard = context.getBean(DeliveryGuard.class);
			assertThat(queue.owner()).startsWith("test-instance/");
			assertThat(context.getBean(QueueWorkersLifecycle.class).isRunning()).isTrue();
			assertThat(context.getBean(QueueWorkersLifecycle.class).getWorkers().queues()).containsExactly("mails");
			assertThat(guard.destinations()).containsOnlyKeys("smtp");
			assertThat(context.getBean(DeliveryDispatcherLifecycle.class).getDispatcher().threads()).as("default").isOne();
			TransactionTemplate transaction = context.getBean(TransactionTemplate.class);
			transaction.executeWithoutResult((status) -> {
				queue.enqueue("mails", "customer-1", "mail-1");
				queue.enqueue("mails", "customer-1", "mail-2");
			});
			MailFlow flow = context.getBean(MailFlow.class);
			Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> flow.sent.size() == 2);
			assertThat(flow.sent).extracting(Delivery::idempotencyKey)
				.containsExactly("confirmation:mail-1", "confirmation:mail-2");
			assertThat(context.getBean(JdbcTemplate.class).queryForObject("SELECT COUNT(*) FROM processed", Long.class))
				.isEqualTo(2);
			// the subscribed queue and the destination have gauges from the start, 0 while empty
			SimpleMeterRegistry registry = new SimpleMeterRegistry();
			context.getBean(QueueMetrics.class).bindTo(registry);
			context.getBean(DeliveryMetrics.class).bindTo(registry);
			Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
				context.getBean(QueueMetrics.class).refresh();
				assertThat(registry.get(QueueMetrics.BACKLOG).tag("queue", "mails").gauge().value()).isZero();
				assertThat(registry.get(QueueMetrics.IN_PROGRESS).tag("queue", "mails").gauge().value()).isZero();
			});
			assertThat(registry.get(QueueMetrics.DEAD).tag("queue", "mails").gauge().value()).isZero();
			assertThat(registry.get(DeliveryMetrics.IN_DOUBT).tag("destination", "smtp").gauge().value()).isZero();
		});
	}

	@Test
	void aRetentionOfZeroDeletesEachMessageWhenItIsDone() {
		this.runner.withUserConfiguration(MailFlow.class).withPropertyValues("polling.jdbc.queue.retention.period=0").run((context) -> {
			WorkQueue queue = context.getBean(WorkQueue.class);
			assertThat(queue.deletesWhenDone()).isTrue();
			long id = context.getBean(TransactionTemplate.class).execute((status) -> queue.enqueue("mails", null, "mail-1"));
			MailFlow flow = context.getBean(MailFlow.class);
			Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> flow.sent.size() == 1);
			Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> queue.admin().entry(id).isEmpty());
			assertThat(context.getBean(JdbcTemplate.class).queryForObject("SELECT COUNT(*) FROM processed", Long.class)).isOne();
		});
		this.runner.withUserConfiguration(MailFlow.class)
			.run((context) -> assertThat(context.getBean(WorkQueue.class).deletesWhenDone()).as("default: kept 7 days").isFalse());
	}

	@Test
	void aSubscriptionWithoutTransactionRunsItsHandlerOutsideTheTransactionManagersTransactions() {
		this.runner.withUserConfiguration(FailingOnce.class, Calling.class).run((context) -> {
			WorkQueue queue = context.getBean(WorkQueue.class);
			long call = queue.enqueue("calls", null, "call-1");
			long order = queue.enqueue("orders", null, "order-1");
			Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> queue.admin().entry(call).orElseThrow().state() == MessageState.DONE
					&& queue.admin().entry(order).orElseThrow().state() == MessageState.DONE);
			assertThat(context.getBean(Calling.class).inTransaction).containsExactly(false);
			// the default: the handler's insert and the completion in one transaction of the application's manager
			assertThat(context.getBean(FailingOnce.class).inTransaction).containsExactly(true, true);
		});
	}

	@Test
	void aFailingHandlerRollsBackItsDatabaseWorkAndTheRetryCommitsItOnce() {
		this.runner.withUserConfiguration(FailingOnce.class).run((context) -> {
			WorkQueue queue = context.getBean(WorkQueue.class);
			long id = queue.enqueue("orders", null, "order-1");
			Awaitility.await().atMost(Duration.ofSeconds(30))
				.until(() -> queue.admin().entry(id).orElseThrow().state() == MessageState.DONE);
			assertThat(context.getBean(FailingOnce.class).calls).hasValue(2);
			assertThat(queue.admin().entry(id).orElseThrow().lastError()).contains("first attempt fails");
			assertThat(context.getBean(JdbcTemplate.class).queryForObject("SELECT COUNT(*) FROM processed", Long.class))
				.isOne();
		});
	}

	@Test
	void operatorsResolveInDoubtDeliveriesThroughTheEndpointAndSeeThemInHealthAndMeters() {
		this.runner.withUserConfiguration(TimingOut.class).run((context) -> {
			DeliveryGuard guard = context.getBean(DeliveryGuard.class);
			guard.store("crm", "update:1", "payload");
			Awaitility.await().atMost(Duration.ofSeconds(30))
				.until(() -> guard.admin().entries(DeliveryState.IN_DOUBT, 10).size() == 1);
			long id = guard.admin().entries(DeliveryState.IN_DOUBT, 10).get(0).id();
			Health health = context.getBean(PollingDeliveryHealthIndicator.class).health(true);
			assertThat(health.getStatus()).as("an in-doubt message needs attention").isEqualTo(PollingHealthStatus.DEGRADED);
			assertThat(health.getDetails()).containsEntry("inDoubt", 1L).containsEntry("dead", 0L);
			SimpleMeterRegistry registry = new SimpleMeterRegistry();
			DeliveryMetrics metrics = context.getBean(DeliveryMetrics.class);
			metrics.bindTo(registry);
			assertThat(registry.get(DeliveryMetrics.IN_DOUBT).tag("destination", "crm").gauge().value()).isEqualTo(1.0);
			PollingDeliveryEndpoint endpoint = context.getBean(PollingDeliveryEndpoint.class);
			assertThat(endpoint.delivery(SecurityContext.NONE).inDoubt()).extracting((e) -> e.id()).containsExactly(id);
			assertThatExceptionOfType(InvalidEndpointRequestException.class).isThrownBy(() -> endpoint.act("" + id, "retry"))
				.withMessageContaining("is not DEAD");
			assertThatExceptionOfType(InvalidEndpointRequestException.class).isThrownBy(() -> endpoint.act("x", "resend"))
				.withMessageContaining("'x' is not a number");
			PollingDeliveryEndpointWebExtension web = context.getBean(PollingDeliveryEndpointWebExtension.class);
			assertThat(web.act("999999", "delivered").getStatus()).as("an unknown message").isEqualTo(404);
			assertThat(web.act("" + id, "delivered").getStatus()).isEqualTo(200);
			assertThat(guard.admin().entry(id).orElseThrow().state()).isEqualTo(DeliveryState.DELIVERED);
			assertThat(context.getBean(PollingDeliveryHealthIndicator.class).health(true).getStatus()).isEqualTo(Status.UP);
			metrics.refresh();
			// resolved: the series shows 0 rather than vanishing (a dashboard would show "no data")
			assertThat(registry.get(DeliveryMetrics.IN_DOUBT).tag("destination", "crm").gauge().value()).isZero();
			assertThat(registry.get(DeliveryMetrics.BACKLOG).tag("destination", "crm").gauge().value()).isZero();
			assertThat(context.getBean(TimingOut.class).attempts).hasValue(1);
		});
	}

	@Test
	void operatorsRetryDeadMessagesThroughTheQueueEndpoint() {
		this.runner.withUserConfiguration(FailingBadOnes.class).withPropertyValues("polling.jdbc.queue.max-attempts=1")
			.run((context) -> {
				WorkQueue queue = context.getBean(WorkQueue.class);
				long id = queue.enqueue("invoices", "customer-9", "bad");
				long waiting = queue.enqueue("invoices", "customer-9", "waits");
				Awaitility.await().atMost(Duration.ofSeconds(30))
					.until(() -> queue.admin().entry(id).orElseThrow().state() == MessageState.DEAD);
				PollingQueueEndpoint endpoint = context.getBean(PollingQueueEndpoint.class);
				PollingQueueEndpoint.QueueDescriptor view = endpoint.queue(SecurityContext.NONE);
				assertThat(view.blockedKeys()).singleElement().satisfies((key) -> {
					assertThat(key.businessKey()).isEqualTo("customer-9");
					assertThat(key.waiting()).isOne();
				});
				assertThat(view.dead()).extracting((e) -> e.id()).containsExactly(id);
				// the handler's error text is masked by default (management.endpoint.pollingqueue.show-values)
				assertThat(view.dead()).singleElement().satisfies((entry) -> assertThat(entry.lastError()).isEqualTo("******"));
				assertThat(queue.admin().entry(id).orElseThrow().lastError()).isNotEqualTo("******");
				Health health = context.getBean(PollingQueueHealthIndicator.class).health(true);
				assertThat(health.getStatus()).as("a dead message needs attention").isEqualTo(PollingHealthStatus.DEGRADED);
				assertThat(health.getDetails()).containsEntry("dead", 1L);
				SimpleMeterRegistry registry = new SimpleMeterRegistry();
				context.getBean(QueueMetrics.class).bindTo(registry);
				assertThat(registry.get(QueueMetrics.DEAD).tag("queue", "invoices").gauge().value()).isEqualTo(1.0);
				AtomicInteger handled = context.getBean("badOnesHandled", AtomicInteger.class);
				assertThat(handled).hasValue(1);
				// the answer is read after the retry: a worker may have claimed it (or failed it again) already
				assertThat(endpoint.act("" + id, "retry").message().state()).isIn(MessageState.NEW, MessageState.IN_PROGRESS,
						MessageState.DEAD);
				assertThat(endpoint.message(SecurityContext.NONE, "" + id)).isNotNull();
				// handled again, it fails again: discarded with DELETE it is gone
				Awaitility.await().atMost(Duration.ofSeconds(30))
					.until(() -> handled.get() == 2 && queue.admin().entry(id).orElseThrow().state() == MessageState.DEAD);
				PollingQueueEndpointWebExtension web = context.getBean(PollingQueueEndpointWebExtension.class);
				assertThat(web.discard("999999").getStatus()).as("an unknown message").isEqualTo(404);
				assertThat(web.act("999999", "retry").getStatus()).isEqualTo(404);
				assertThat(web.discard("" + id).getStatus()).isEqualTo(200);
				assertThat(endpoint.message(SecurityContext.NONE, "" + id)).isNull();
				// nothing dead any more; the message that waited behind it is processed (it never fails, so
				// the health cannot turn DEGRADED again while this runs)
				assertThat(context.getBean(PollingQueueHealthIndicator.class).health(true).getStatus()).isEqualTo(Status.UP);
				Awaitility.await().atMost(Duration.ofSeconds(30))
					.until(() -> queue.admin().entry(waiting).orElseThrow().state() == MessageState.DONE);
			});
	}

	@Test
	void refreshesTheDatabaseGaugesOnlyWithAMeterRegistryAndAsOftenAsConfigured() {
		this.runner.run((context) -> assertThat(context).hasSingleBean(QueueMetrics.class)
			.doesNotHaveBean(StatsGaugeRefresher.class));
		this.runner.withBean(SimpleMeterRegistry.class).run((context) -> {
			StatsGaugeRefresher refresher = context.getBean(StatsGaugeRefresher.class);
			assertThat(refresher.getInterval()).isEqualTo(Duration.ofSeconds(15));
			assertThat(refresher.isRunning()).isTrue();
		});
		this.runner.withBean(SimpleMeterRegistry.class)
			.withPropertyValues("polling.jdbc.metrics.refresh-interval=2m")
			.run((context) -> assertThat(context.getBean(StatsGaugeRefresher.class).getInterval()).isEqualTo(Duration.ofMinutes(2)));
		this.runner.withBean(SimpleMeterRegistry.class)
			.withPropertyValues("polling.jdbc.metrics.refresh-interval=0")
			.run((context) -> assertThat(context.getBean(StatsGaugeRefresher.class).isRunning()).isFalse());
	}

	@Test
	void runsAsManySendingThreadsAsConfigured() {
		this.runner.withUserConfiguration(MailFlow.class).withPropertyValues("polling.jdbc.delivery.workers.threads=3").run((context) -> {
			assertThat(context.getBean(DeliveryDispatcherLifecycle.class).getDispatcher().threads()).isEqualTo(3);
			assertThat(Thread.getAllStackTraces().keySet()).extracting(Thread::getName)
				.contains("polling-delivery-1", "polling-delivery-2", "polling-delivery-3");
		});
	}

	/**
	 * Issue 16 (database outage): the queue workers and the delivery dispatcher report to one shared
	 * status, and {@code pollingDatabase} is DOWN while the database cannot be reached and UP again
	 * once it answers, without a restart.
	 */
	@Test
	void healthReportsADatabaseOutageWhileItLastsAndTheWorkersRecoverByThemselves() {
		this.runner.withUserConfiguration(Unplugged.class, FailingOnce.class)
			.withPropertyValues("polling.jdbc.initialize-schema=always")
			.run((context) -> {
				assertThat(context).hasSingleBean(DatabaseStatus.class);
				PollingDatabaseHealthIndicator indicator = context.getBean(PollingDatabaseHealthIndicator.class);
				assertThat(indicator.health(true).getStatus()).isEqualTo(Status.UP);
				Unplugged database = context.getBean(Unplugged.class);
				database.unplugged.set(true);
				Awaitility.await("DOWN during the outage")
					.atMost(Duration.ofSeconds(30))
					.until(() -> indicator.health(true).getStatus().equals(Status.DOWN));
				Health down = indicator.health(true);
				assertThat(down.getDetails()).containsKey("unavailableSince").containsEntry("outages", 1L);
				assertThat((String) down.getDetails().get("lastError")).contains("unplugged by the test");
				database.unplugged.set(false);
				Awaitility.await("UP once the database answers")
					.atMost(Duration.ofSeconds(30))
					.until(() -> indicator.health(true).getStatus().equals(Status.UP));
				// the workers went on by themselves: a message enqueued now is processed
				WorkQueue queue = context.getBean(WorkQueue.class);
				long id = queue.enqueue("orders", null, "after-the-outage");
				Awaitility.await().atMost(Duration.ofSeconds(30))
					.until(() -> queue.admin().entry(id).orElseThrow().state() == MessageState.DONE);
				assertThat(indicator.health(true).getDetails()).containsEntry("outages", 1L).doesNotContainKey("lastError");
				// when each part reached the database again after the outage
				assertThat(indicator.health(true).getDetails().get("lastOutage")).asInstanceOf(InstanceOfAssertFactories.MAP)
					.containsKeys("began", "ended")
					.extractingByKey("resumed", InstanceOfAssertFactories.MAP)
					.containsKey(DatabaseStatus.QUEUE_WORKERS);
			});
	}

	@Test
	void eachPartsHealthContributorIsNamedAsItsEndpointAndSwitchedOffUnderThatName() {
		ApplicationContextRunner withRegistry = this.runner
			.withConfiguration(AutoConfigurations.of(HealthContributorRegistryAutoConfiguration.class));
		withRegistry.run((context) -> {
			HealthContributorRegistry registry = context.getBean(HealthContributorRegistry.class);
			assertThat(registry.getContributor(endpointId(PollingQueueEndpoint.class))).isInstanceOf(PollingQueueHealthIndicator.class);
			assertThat(registry.getContributor(endpointId(PollingDeliveryEndpoint.class)))
				.isInstanceOf(PollingDeliveryHealthIndicator.class);
			assertThat(registry.getContributor("pollingdatabase")).isInstanceOf(PollingDatabaseHealthIndicator.class);
			assertThat(registry.stream().map(HealthContributors.Entry::name))
				.containsExactlyInAnyOrder("pollingqueue", "pollingdelivery", "pollingdatabase");
		});
		withRegistry.withPropertyValues("management.health.pollingqueue.enabled=false", "management.health.pollingdelivery.enabled=false",
				"management.health.pollingdatabase.enabled=false")
			.run((context) -> {
				assertThat(context).hasSingleBean(PollingQueueEndpoint.class).hasSingleBean(PollingDeliveryEndpoint.class);
				assertThat(context.getBean(HealthContributorRegistry.class).stream()).isEmpty();
			});
	}

	private static String endpointId(Class<?> endpoint) {
		return MergedAnnotations.from(endpoint).get(Endpoint.class).getString("id");
	}

	@Test
	void backsOffWhenTheQueueOrTheDeliveryGuardIsDisabled() {
		this.runner.withPropertyValues("polling.jdbc.queue.enabled=false", "polling.jdbc.delivery.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(WorkQueue.class)
				.doesNotHaveBean(QueueWorkersLifecycle.class)
				.doesNotHaveBean(DeliveryGuard.class)
				.doesNotHaveBean(PollingQueueEndpoint.class)
				.doesNotHaveBean(PollingDeliveryHealthIndicator.class));
	}

	@Test
	void failsAtStartupNamingAnInvalidProperty() {
		assertRefused(this.runner, "polling.jdbc.queue.workers.threads", "0", "Reason: the value must be between 1 and 256");
		assertRefused(this.runner, "polling.jdbc.delivery.workers.threads", "65", "Reason: the value must be between 1 and 64");
		assertRefused(this.runner, "polling.jdbc.delivery.lease.duration", "100ms", "Reason: the value must be between 1s and 1d");
	}

	/**
	 * Issue 16, defect 9: delivered messages are purged after their retention, in batches, on every
	 * instance.
	 */
	@Test
	void deliveredMessagesArePurgedAfterTheirRetention() {
		this.runner.withUserConfiguration(MailFlow.class)
			.withPropertyValues("polling.jdbc.delivery.retention.period=1s", "polling.jdbc.delivery.retention.purge-interval=200ms")
			.run((context) -> {
				DeliveryGuard guard = context.getBean(DeliveryGuard.class);
				JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
				context.getBean(TransactionTemplate.class).executeWithoutResult((status) -> {
					for (int i = 0; i < 3; i++) {
						guard.store("smtp", "purged-" + i, "payload");
					}
				});
				MailFlow flow = context.getBean(MailFlow.class);
				Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> flow.sent.size() == 3);
				Awaitility.await("delivered rows purged after 1s")
					.atMost(Duration.ofSeconds(30))
					.until(() -> jdbc.queryForObject("SELECT COUNT(*) FROM polling_delivery", Long.class) == 0);
			});
	}

	@Configuration(proxyBeanMethods = false)
	static class MailFlow {

		final List<Delivery> sent = new CopyOnWriteArrayList<>();

		@Bean
		QueueSubscription mails(JdbcTemplate jdbc, DeliveryGuard guard) {
			jdbc.execute("CREATE TABLE IF NOT EXISTS processed (payload VARCHAR(100))");
			return QueueSubscription.of("mails", (message) -> {
				jdbc.update("INSERT INTO processed VALUES (?)", message.payload());
				guard.store("smtp", "confirmation:" + message.payload(), "thanks for " + message.payload());
			});
		}

		@Bean
		DeliveryDestination smtp() {
			return DeliveryDestination.of("smtp", this.sent::add);
		}

	}

	/** An H2 database whose connections the test can refuse as a stopped server would. */
	@Configuration(proxyBeanMethods = false)
	static class Unplugged {

		final AtomicBoolean unplugged = new AtomicBoolean();

		@Bean
		DataSource dataSource() {
			JdbcDataSource h2 = new JdbcDataSource();
			h2.setURL("jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
			return new DelegatingDataSource(h2) {

				@Override
				public Connection getConnection() throws SQLException {
					if (Unplugged.this.unplugged.get()) {
						throw new SQLNonTransientConnectionException("Connection refused: unplugged by the test", "08001");
					}
					return super.getConnection();
				}

			};
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class FailingOnce {

		final AtomicInteger calls = new AtomicInteger();

		final List<Boolean> inTransaction = new CopyOnWriteArrayList<>();

		@Bean
		QueueSubscription orders(JdbcTemplate jdbc) {
			jdbc.execute("CREATE TABLE IF NOT EXISTS processed (payload VARCHAR(100))");
			return QueueSubscription.of("orders", (message) -> {
				this.inTransaction.add(TransactionSynchronizationManager.isActualTransactionActive());
				jdbc.update("INSERT INTO processed VALUES (?)", message.payload());
				if (this.calls.incrementAndGet() == 1) {
					throw new IllegalStateException("first attempt fails");
				}
			});
		}

	}

	/** A handler whose work is not in the database (a web service call, say). */
	@Configuration(proxyBeanMethods = false)
	static class Calling {

		final List<Boolean> inTransaction = new CopyOnWriteArrayList<>();

		@Bean
		QueueSubscription calls() {
			return QueueSubscription.of("calls", (message) -> this.inTransaction
				.add(TransactionSynchronizationManager.isActualTransactionActive())).withoutTransaction();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class FailingBadOnes {

		/** Fails the payloads starting with "bad" only: a message queued behind one is processed once it is gone. */
		@Bean
		AtomicInteger badOnesHandled() {
			return new AtomicInteger();
		}

		@Bean
		QueueSubscription invoices(AtomicInteger badOnesHandled) {
			return QueueSubscription.of("invoices", (message) -> {
				if (message.payload().startsWith("bad")) {
					badOnesHandled.incrementAndGet();
					throw new IllegalStateException("cannot process " + message.payload());
				}
			});
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TimingOut {

		final AtomicInteger attempts = new AtomicInteger();

		@Bean
		DeliveryDestination crm() {
			return DeliveryDestination.of("crm", (delivery) -> {
				this.attempts.incrementAndGet();
				throw new IOException("read timed out");
			});
		}

	}

}
