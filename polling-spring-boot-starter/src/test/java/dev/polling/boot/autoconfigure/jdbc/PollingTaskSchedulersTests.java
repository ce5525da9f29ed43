package dev.polling.boot.autoconfigure.jdbc;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskSchedulingAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.task.ThreadPoolTaskSchedulerBuilder;
import org.springframework.boot.task.ThreadPoolTaskSchedulerCustomizer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The timers of the database parts come from Spring Boot's scheduler builders: Boot's scheduler
 * customizers and {@link PollingTaskSchedulerCustomizer} beans apply, each timer runs on a thread
 * named after it, and stopping a timer ends its runs.
 */
class PollingTaskSchedulersTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, TaskSchedulingAutoConfiguration.class,
				PollingJdbcAutoConfiguration.class))
		.withPropertyValues("spring.datasource.generate-unique-name=true", "polling.jdbc.inbox.enabled=true",
				"polling.jdbc.inbox.retention.purge-interval=1h");

	@Test
	void buildsTimersFromBootsBuilderWithBootsAndPollingsCustomizers() {
		AtomicInteger bootCustomized = new AtomicInteger();
		List<String> threads = new CopyOnWriteArrayList<>();
		this.runner.withBean(ThreadPoolTaskSchedulerCustomizer.class, () -> (scheduler) -> bootCustomized.incrementAndGet())
			.withBean(PollingTaskSchedulerCustomizer.class, () -> new PollingTaskSchedulerCustomizer() {
				@Override
				public ThreadPoolTaskSchedulerBuilder customize(String name, ThreadPoolTaskSchedulerBuilder builder) {
					return builder.threadNamePrefix("custom-" + name + "-");
				}
			})
			.run((context) -> {
				PollingTaskSchedulers schedulers = context.getBean(PollingTaskSchedulers.class);
				assertThat(schedulers.isVirtualThreads()).isFalse();
				int before = bootCustomized.get();
				PollingTaskSchedulers.Timer timer = schedulers.start("polling-test-timer", Duration.ofMillis(10),
						() -> threads.add(Thread.currentThread().getName()));
				try {
					await().atMost(Duration.ofSeconds(10)).until(() -> threads.size() >= 2);
					assertThat(threads).allMatch((name) -> name.startsWith("custom-polling-test-timer-"));
					assertThat(bootCustomized.get()).isGreaterThan(before);
				}
				finally {
					timer.stop(Duration.ofSeconds(5));
				}
				int runs = threads.size();
				// no runs after the stop: one more interval passes without a new one
				Thread.sleep(100);
				assertThat(threads).hasSize(runs);
			});
	}

	@Test
	void runsTheTimersOnVirtualThreadsWhenEnabledOnJava21OrNewer() {
		// Boot's Threading.VIRTUAL needs Java 21: on Java 17 spring.threads.virtual.enabled has no effect
		boolean java21 = Runtime.version().feature() >= 21;
		List<Boolean> virtual = new CopyOnWriteArrayList<>();
		this.runner.withPropertyValues("spring.threads.virtual.enabled=true").run((context) -> {
			PollingTaskSchedulers schedulers = context.getBean(PollingTaskSchedulers.class);
			assertThat(schedulers.isVirtualThreads()).isEqualTo(java21);
			PollingTaskSchedulers.Timer timer = schedulers.start("polling-virtual-test", Duration.ofMillis(10),
					() -> virtual.add(isVirtual(Thread.currentThread())));
			try {
				await().atMost(Duration.ofSeconds(10)).until(() -> virtual.size() >= 2);
				assertThat(timer.isVirtual()).isEqualTo(java21);
				assertThat(virtual).containsOnly(java21);
			}
			finally {
				timer.stop(Duration.ofSeconds(5));
			}
		});
	}

	/** Thread.isVirtual() where the JDK has it (21+; the code is compiled for 17). */
	static boolean isVirtual(Thread thread) {
		try {
			return (Boolean) Thread.class.getMethod("isVirtual").invoke(thread);
		}
		catch (NoSuchMethodException ex) {
			return false;
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
