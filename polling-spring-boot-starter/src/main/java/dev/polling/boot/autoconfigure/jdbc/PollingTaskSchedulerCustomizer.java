package dev.polling.boot.autoconfigure.jdbc;

import org.springframework.boot.task.SimpleAsyncTaskSchedulerBuilder;
import org.springframework.boot.task.ThreadPoolTaskSchedulerBuilder;

/**
 * Customizes the schedulers the background parts of polling run their timers on (job dispatch,
 * purges, gauge refresh), after Spring Boot's own scheduler customizers. Beans of this type are
 * applied in order; the platform-thread builder is used unless {@code spring.threads.virtual.enabled}
 * is set.
 */
public interface PollingTaskSchedulerCustomizer {

	/**
	 * Customizes the builder of a platform-thread scheduler.
	 * @param name the timer's name, e.g. {@code polling-job-dispatcher}
	 * @param builder the builder, with Spring Boot's settings and polling's thread name and pool size
	 * @return the builder to use
	 */
	default ThreadPoolTaskSchedulerBuilder customize(String name, ThreadPoolTaskSchedulerBuilder builder) {
		return builder;
	}

	/**
	 * Customizes the builder of a virtual-thread scheduler.
	 * @param name the timer's name, e.g. {@code polling-job-dispatcher}
	 * @param builder the builder, with Spring Boot's settings and polling's thread name
	 * @return the builder to use
	 */
	default SimpleAsyncTaskSchedulerBuilder customize(String name, SimpleAsyncTaskSchedulerBuilder builder) {
		return builder;
	}

}
