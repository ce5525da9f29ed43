package dev.polling.boot.autoconfigure.jdbc;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.polling.jdbc.delivery.DeliveryDestination;
import dev.polling.jdbc.delivery.DeliveryGuard;
import dev.polling.jdbc.queue.QueueSubscription;
import dev.polling.jdbc.queue.WorkQueue;
import org.awaitility.Awaitility;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.task.TaskDecorator;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The worker runtimes take their threads from Spring Boot's executor builder, not from the
 * application's task executor: virtual threads with {@code spring.threads.virtual.enabled=true}
 * (Java 21+), the builder's {@link TaskDecorator} around the handlers' and senders' threads, the
 * threads named after their parts, and a shutdown that still waits for a running handler.
 */
class PollingWorkerThreadsTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
				TaskExecutionAutoConfiguration.class, PollingJdbcAutoConfiguration.class))
		.withUserConfiguration(Recording.class)
		.withPropertyValues("spring.datasource.generate-unique-name=true", "polling.jdbc.queue.enabled=true",
				"polling.jdbc.delivery.enabled=true", "polling.jdbc.queue.workers.poll-interval=50ms",
				"polling.jdbc.delivery.workers.poll-interval=50ms");

	@Test
	@EnabledForJreRange(min = JRE.JAVA_21)
	void theWorkersRunOnVirtualThreadsWhenBootsVirtualThreadsAreEnabled() {
		this.runner.withPropertyValues("spring.threads.virtual.enabled=true").run((context) -> {
			assertThat(context.getBean(PollingWorkerThreads.class).isVirtualThreads()).isTrue();
			Recording recording = context.getBean(Recording.class);
			enqueue(context, "virtual");
			Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> recording.sent.size() == 1);
			assertThat(recording.handled).singleElement().satisfies((thread) -> {
				assertThat(thread.virtual()).isTrue();
				assertThat(thread.name()).matches("polling-queue-worker-\\d+");
			});
			assertThat(recording.sent).singleElement().satisfies((thread) -> {
				assertThat(thread.virtual()).isTrue();
				assertThat(thread.name()).isEqualTo("polling-delivery");
			});
		});
	}

	@Test
	void theWorkersRunOnDaemonPlatformThreadsByDefault() {
		this.runner.run((context) -> {
			assertThat(context.getBean(PollingWorkerThreads.class).isVirtualThreads()).isFalse();
			Recording recording = context.getBean(Recording.class);
			enqueue(context, "platform");
			Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> recording.sent.size() == 1);
			assertThat(recording.handled).singleElement().satisfies((thread) -> {
				assertThat(thread.virtual()).isFalse();
				assertThat(thread.daemon()).isTrue();
				assertThat(thread.name()).matches("polling-queue-worker-\\d+");
			});
		});
	}

	@Test
	void bootsTaskDecoratorReachesTheHandlerAndTheSender() {
		this.runner.withBean(TaskDecorator.class, () -> (task) -> () -> {
			Recording.CONTEXT.set("propagated");
			try {
				task.run();
			}
			finally {
				Recording.CONTEXT.remove();
			}
		}).run((context) -> {
			Recording recording = context.getBean(Recording.class);
			enqueue(context, "decorated");
			Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> recording.sent.size() == 1);
			assertThat(recording.handled).singleElement().extracting(SeenThread::context).isEqualTo("propagated");
			assertThat(recording.sent).singleElement().extracting(SeenThread::context).isEqualTo("propagated");
		});
	}

	@Test
	void withoutATaskDecoratorTheHandlerSeesNoContext() {
		this.runner.run((context) -> {
			Recording recording = context.getBean(Recording.class);
			enqueue(context, "undecorated");
			Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> recording.sent.size() == 1);
			assertThat(recording.handled).singleElement().extracting(SeenThread::context).isNull();
		});
	}

	@Test
	void closingTheContextWaitsForARunningHandler() throws Exception {
		CountDownLatch running = new CountDownLatch(1);
		CountDownLatch finish = new CountDownLatch(1);
		AtomicBoolean handlerEnded = new AtomicBoolean();
		AtomicBoolean endedBeforeClosed = new AtomicBoolean();
		ConfigurableApplicationContext[] holder = new ConfigurableApplicationContext[1];
		this.runner.withPropertyValues("polling.shutdown.timeout=60s")
			.withBean("slow", QueueSubscription.class, () -> QueueSubscription.of("slow", (message) -> {
				running.countDown();
				assertThat(finish.await(60, TimeUnit.SECONDS)).isTrue();
				handlerEnded.set(true);
			}))
			.run((context) -> {
				holder[0] = context;
				enqueue(context, "slow", "x");
				assertThat(running.await(30, TimeUnit.SECONDS)).isTrue();
				QueueWorkersLifecycle lifecycle = context.getBean(QueueWorkersLifecycle.class);
				Thread closer = new Thread(() -> {
					context.close();
					endedBeforeClosed.set(handlerEnded.get());
				}, "test-closer");
				closer.start();
				Awaitility.await("the workers' stop began").atMost(Duration.ofSeconds(30))
					.until(() -> !lifecycle.getWorkers().isRunning());
				assertThat(closer.isAlive()).as("the close waits for the running handler").isTrue();
				finish.countDown();
				closer.join(TimeUnit.SECONDS.toMillis(60));
				assertThat(closer.isAlive()).isFalse();
			});
		finish.countDown();
		assertThat(holder[0].isActive()).isFalse();
		assertThat(endedBeforeClosed).as("the handler ended before the context was closed").isTrue();
	}

	private static void enqueue(ConfigurableApplicationContext context, String payload) {
		enqueue(context, "work", payload);
	}

	private static void enqueue(ConfigurableApplicationContext context, String queue, String payload) {
		TransactionTemplate transaction = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
		transaction.executeWithoutResult((status) -> context.getBean(WorkQueue.class).enqueue(queue, null, payload));
	}

	record SeenThread(String name, boolean virtual, boolean daemon, @Nullable String context) {

		static SeenThread current() {
			Thread thread = Thread.currentThread();
			return new SeenThread(thread.getName(), PollingTaskSchedulersTests.isVirtual(thread), thread.isDaemon(), Recording.CONTEXT.get());
		}

	}

	/** A handler that passes each message to a destination; both record the thread they ran on. */
	@Configuration(proxyBeanMethods = false)
	static class Recording {

		static final ThreadLocal<@Nullable String> CONTEXT = new ThreadLocal<>();

		final List<SeenThread> handled = new CopyOnWriteArrayList<>();

		final List<SeenThread> sent = new CopyOnWriteArrayList<>();

		@Bean
		QueueSubscription work(DeliveryGuard guard) {
			return QueueSubscription.of("work", (message) -> {
				this.handled.add(SeenThread.current());
				guard.store("out", "sent:" + message.payload(), message.payload());
			});
		}

		@Bean
		DeliveryDestination out() {
			return DeliveryDestination.of("out", (delivery) -> this.sent.add(SeenThread.current()));
		}

	}

}
