package dev.polling.boot.autoconfigure.jdbc;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.task.SimpleAsyncTaskSchedulerBuilder;
import org.springframework.boot.task.ThreadPoolTaskSchedulerBuilder;
import org.springframework.scheduling.concurrent.SimpleAsyncTaskScheduler;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * Creates the timers of polling's background parts from Spring Boot's scheduler builders, so that
 * they follow {@code spring.threads.virtual.enabled}, Boot's scheduler customizers and task
 * decorators, and {@link PollingTaskSchedulerCustomizer} beans. Each timer has a scheduler of its
 * own (one thread, or virtual threads), named after the timer.
 */
public final class PollingTaskSchedulers {

	private final boolean virtualThreads;

	private final ThreadPoolTaskSchedulerBuilder platformBuilder;

	private final SimpleAsyncTaskSchedulerBuilder virtualBuilder;

	private final List<PollingTaskSchedulerCustomizer> customizers;

	/**
	 * @param virtualThreads whether to run the timers on virtual threads
	 * @param platformBuilder Spring Boot's builder of platform-thread schedulers
	 * @param virtualBuilder Spring Boot's builder of virtual-thread schedulers
	 * @param customizers applied in order to every builder
	 */
	public PollingTaskSchedulers(boolean virtualThreads, ThreadPoolTaskSchedulerBuilder platformBuilder,
			SimpleAsyncTaskSchedulerBuilder virtualBuilder, List<PollingTaskSchedulerCustomizer> customizers) {
		this.virtualThreads = virtualThreads;
		this.platformBuilder = platformBuilder;
		this.virtualBuilder = virtualBuilder;
		this.customizers = List.copyOf(customizers);
	}

	/** Whether the timers run on virtual threads. */
	public boolean isVirtualThreads() {
		return this.virtualThreads;
	}

	/**
	 * Starts a timer that runs the task every {@code interval} (fixed delay, first run after one
	 * interval).
	 * @param name the timer's name, also its threads' name prefix
	 * @param interval the delay between runs (at least 1 ms is used)
	 * @param task the task
	 * @return the timer, to stop when its lifecycle stops
	 */
	public Timer start(String name, Duration interval, Runnable task) {
		Duration delay = Duration.ofMillis(Math.max(1, interval.toMillis()));
		if (this.virtualThreads) {
			SimpleAsyncTaskSchedulerBuilder builder = this.virtualBuilder.threadNamePrefix(name + "-").virtualThreads(true);
			for (PollingTaskSchedulerCustomizer customizer : this.customizers) {
				builder = customizer.customize(name, builder);
			}
			SimpleAsyncTaskScheduler scheduler = builder.build();
			scheduler.scheduleWithFixedDelay(task, Instant.now().plus(delay), delay);
			return new Timer(name, null, scheduler);
		}
		ThreadPoolTaskSchedulerBuilder builder = this.platformBuilder.poolSize(1).threadNamePrefix(name + "-");
		for (PollingTaskSchedulerCustomizer customizer : this.customizers) {
			builder = customizer.customize(name, builder);
		}
		ThreadPoolTaskScheduler scheduler = builder.build();
		scheduler.setDaemon(true);
		scheduler.initialize();
		scheduler.scheduleWithFixedDelay(task, Instant.now().plus(delay), delay);
		return new Timer(name, scheduler, null);
	}

	/** A running timer. */
	public static final class Timer {

		private final String name;

		private final @Nullable ThreadPoolTaskScheduler platform;

		private final @Nullable SimpleAsyncTaskScheduler virtual;

		private Timer(String name, @Nullable ThreadPoolTaskScheduler platform, @Nullable SimpleAsyncTaskScheduler virtual) {
			this.name = name;
			this.platform = platform;
			this.virtual = virtual;
		}

		/** The timer's name. */
		public String name() {
			return this.name;
		}

		/** Whether its tasks run on virtual threads. */
		public boolean isVirtual() {
			return this.virtual != null;
		}

		/**
		 * Stops the timer: no further runs; waits up to {@code wait} for a run under way (zero:
		 * interrupts it and does not wait).
		 * @param wait how long to wait
		 */
		public void stop(Duration wait) {
			if (this.platform != null) {
				this.platform.setWaitForTasksToCompleteOnShutdown(!wait.isZero());
				this.platform.setAwaitTerminationMillis(Math.max(0, wait.toMillis()));
				this.platform.shutdown();
			}
			else if (this.virtual != null) {
				this.virtual.setTaskTerminationTimeout(Math.max(0, wait.toMillis()));
				this.virtual.close();
			}
		}

	}

}
