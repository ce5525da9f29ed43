package dev.polling.boot.autoconfigure.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.polling.boot.autoconfigure.PollingAutoConfiguration;
import dev.polling.jdbc.jobs.JobScheduler;
import dev.polling.jdbc.queue.QueueListener;
import dev.polling.jdbc.queue.QueueSubscription;

class JobsAutoConfigurationTests {

	private final List<String> executed = new CopyOnWriteArrayList<>();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, PollingJdbcAutoConfiguration.class,
				PollingAutoConfiguration.class))
		.withPropertyValues("spring.datasource.generate-unique-name=true", "polling.instance-id=app-1",
				"polling.clusters.JOBS.wait-time=10s", "polling.jdbc.queue.enabled=true", "polling.jdbc.jobs.enabled=true",
				"polling.jdbc.jobs.dispatch-interval=100ms",
				"polling.jdbc.queue.workers.poll-interval=50ms")
		.withBean(QueueSubscription.class, () -> QueueSubscription.of("follow-ups", (message) -> this.executed.add(message.payload())));

	@Test
	void runsAScheduledJobOnTheHolderOfTheJobsCluster() {
		this.runner.withPropertyValues("polling.jdbc.jobs.cluster=JOBS").run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(JobScheduler.class).hasSingleBean(JobDispatcherLifecycle.class);
			JobScheduler jobs = context.getBean(JobScheduler.class);
			jobs.schedule("follow-ups", "order-1", Duration.ZERO, "check order-1");
			jobs.schedule("follow-ups", "order-2", Duration.ofMillis(300), "check order-2");
			jobs.schedule("follow-ups", "order-3", Duration.ofHours(1), "check order-3");
			await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> assertThat(this.executed)
				.containsExactlyInAnyOrder("check order-1", "check order-2"));
			assertThat(jobs.stats().scheduled()).isEqualTo(1);
			assertThat(jobs.stats().dueBacklog()).isZero();
		});
	}

	/**
	 * Issue 16, defect 4: without a named cluster, exactly one instance dispatches (the holder of the
	 * jobs row in the coordination table), not every instance.
	 */
	@Test
	void withoutANamedClusterOneInstanceDispatches() {
		Map<String, AtomicInteger> enqueuedBy = new ConcurrentHashMap<>();
		ApplicationContextRunner shared = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, PollingJdbcAutoConfiguration.class,
					PollingAutoConfiguration.class))
			.withPropertyValues("spring.datasource.generate-unique-name=false", "spring.datasource.name=one-dispatcher",
					"polling.jdbc.queue.enabled=true", "polling.jdbc.jobs.enabled=true",
					"polling.jdbc.jobs.dispatch-interval=50ms", "polling.jdbc.queue.workers.poll-interval=50ms");
		shared.withPropertyValues("polling.instance-id=app-1")
			.withBean(QueueListener.class, () -> enqueues("app-1", enqueuedBy))
			.run((first) -> shared.withPropertyValues("polling.instance-id=app-2")
				.withBean(QueueListener.class, () -> enqueues("app-2", enqueuedBy))
				.run((second) -> {
					assertThat(first).hasNotFailed();
					assertThat(second).hasNotFailed();
					JobScheduler jobs = first.getBean(JobScheduler.class);
					for (int i = 0; i < 20; i++) {
						jobs.schedule("spread", "order-" + i, Duration.ofMillis(100L * i), "job " + i);
					}
					await().atMost(Duration.ofSeconds(30))
						.until(() -> enqueuedBy.values().stream().mapToInt(AtomicInteger::get).sum() == 20);
					assertThat(enqueuedBy).as("instances that dispatched").hasSize(1);
				}));
	}

	private static QueueListener enqueues(String instance, Map<String, AtomicInteger> enqueuedBy) {
		return new QueueListener() {

			@Override
			public void onEnqueued(String queue, int count) {
				enqueuedBy.computeIfAbsent(instance, (key) -> new AtomicInteger()).addAndGet(count);
			}

		};
	}

	@Test
	void runsAScheduledJobOnTheHolderOfAJobsClusterCoordinatedThroughTheDatabaseWithEachDispatchFenced() {
		this.runner.withPropertyValues("polling.jdbc.jobs.cluster=JOBS", "polling.coordination.kind=jdbc").run((context) -> {
			assertThat(context).hasNotFailed();
			JobScheduler jobs = context.getBean(JobScheduler.class);
			jobs.schedule("follow-ups", "order-7", Duration.ZERO, "check order-7");
			await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> assertThat(this.executed).contains("check order-7"));
		});
	}

	/**
	 * Issue 29, defect 9: a cluster coordinated through the database whose id is one of the job
	 * dispatcher's rows would share that row with the dispatcher; the start fails naming both.
	 */
	@Test
	void refusesAClusterThatWouldShareARowWithTheJobDispatcher() {
		this.runner.withPropertyValues("polling.coordination.kind=jdbc", "polling.clusters[polling.jobs].wait-time=10s")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).rootCause()
					.hasMessageContaining("cluster 'polling.jobs' and the job dispatcher's dispatcher role ('polling.jobs') "
							+ "would share one row of the coordination table")
					.hasMessageContaining("polling.jdbc.jobs.cluster");
			});
		this.runner.withPropertyValues("polling.coordination.kind=jdbc", "polling.jdbc.jobs.cluster=JOBS",
				"polling.clusters[polling.jobs.dispatch].wait-time=10s")
			.run((context) -> assertThat(context).getFailure().rootCause()
				.hasMessageContaining("job dispatcher's dispatch lock ('polling.jobs.dispatch')"));
		// naming the cluster hands the dispatching to its holder: no role row, nothing shared
		this.runner.withPropertyValues("polling.coordination.kind=jdbc", "polling.clusters[polling.jobs].wait-time=10s",
				"polling.jdbc.jobs.cluster=polling.jobs")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	/**
	 * Issue 16, defect 9: dispatched and cancelled jobs are purged after their retention.
	 */
	@Test
	void dispatchedAndCancelledJobsArePurgedAfterTheirRetention() {
		this.runner.withPropertyValues("polling.jdbc.jobs.retention.period=1s", "polling.jdbc.jobs.retention.purge-interval=200ms")
			.run((context) -> {
				JobScheduler jobs = context.getBean(JobScheduler.class);
				jobs.schedule("follow-ups", "order-1", Duration.ZERO, "check order-1");
				jobs.schedule("follow-ups", "order-2", Duration.ofHours(1), "check order-2");
				jobs.schedule("follow-ups", "order-3", Duration.ofHours(1), "kept");
				jobs.cancel("follow-ups", "order-2");
				await().atMost(Duration.ofSeconds(15)).until(() -> this.executed.contains("check order-1"));
				javax.sql.DataSource dataSource = context.getBean(javax.sql.DataSource.class);
				await("dispatched and cancelled jobs purged after 1s").atMost(Duration.ofSeconds(30))
					.until(() -> count(dataSource, "SELECT COUNT(*) FROM polling_job") == 1);
				assertThat(count(dataSource, "SELECT COUNT(*) FROM polling_job WHERE payload = 'kept'")).isOne();
			});
	}

	private static long count(javax.sql.DataSource dataSource, String sql) throws java.sql.SQLException {
		try (java.sql.Connection connection = dataSource.getConnection();
				java.sql.Statement statement = connection.createStatement();
				java.sql.ResultSet result = statement.executeQuery(sql)) {
			result.next();
			return result.getLong(1);
		}
	}

	@Test
	void failsAtStartupWhenTheJobsClusterIsUnknown() {
		this.runner.withPropertyValues("polling.jdbc.jobs.cluster=NOPE").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("polling.jdbc.jobs.cluster")
				.hasMessageContaining("NOPE")
				.hasMessageContaining("[JOBS]");
		});
	}

	@Test
	void providesNoJobsWhenDisabled() {
		this.runner.withPropertyValues("polling.jdbc.jobs.enabled=false").run((context) -> {
			assertThat(context).doesNotHaveBean(JobScheduler.class).doesNotHaveBean(JobDispatcherLifecycle.class);
		});
	}

}
