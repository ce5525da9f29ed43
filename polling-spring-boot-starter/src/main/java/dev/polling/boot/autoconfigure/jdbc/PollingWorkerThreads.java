package dev.polling.boot.autoconfigure.jdbc;

import java.util.concurrent.ThreadFactory;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.task.SimpleAsyncTaskExecutorBuilder;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.core.task.TaskDecorator;

/**
 * The thread factories of the worker runtimes (queue workers, delivery dispatcher, job dispatcher),
 * made with Spring Boot's {@link SimpleAsyncTaskExecutorBuilder}: virtual threads when
 * {@code spring.threads.virtual.enabled=true} (Java 21+), Boot's executor customizers, and the
 * builder's {@link TaskDecorator} (e.g. context propagation) wrapped around each thread's work.
 * Each runtime gets a factory of its own, never the application's shared task executor; the
 * runtimes name their threads after their parts ({@code polling-queue-worker-1}, ...).
 */
public final class PollingWorkerThreads {

	private final boolean virtualThreads;

	private final SimpleAsyncTaskExecutorBuilder builder;

	/**
	 * @param virtualThreads whether the runtimes run on virtual threads
	 * @param builder Spring Boot's builder of simple executors
	 */
	public PollingWorkerThreads(boolean virtualThreads, SimpleAsyncTaskExecutorBuilder builder) {
		this.virtualThreads = virtualThreads;
		this.builder = builder;
	}

	/** Whether the runtimes run on virtual threads. */
	public boolean isVirtualThreads() {
		return this.virtualThreads;
	}

	/**
	 * A factory of threads for one runtime: daemon platform threads, or virtual threads.
	 * @param name the runtime's name, the prefix of its threads' names until the runtime names them
	 * @return the factory
	 */
	public ThreadFactory threadFactory(String name) {
		DecoratingFactory factory = this.builder.virtualThreads(this.virtualThreads)
			.threadNamePrefix(name + "-")
			.configure(new DecoratingFactory());
		// as before: a handler that outlives the shutdown wait does not keep the JVM alive
		factory.setDaemon(true);
		return factory;
	}

	/**
	 * Makes its threads as the executor it extends would (virtual or platform, named with its
	 * prefix) and runs each thread's work through the executor's task decorator.
	 */
	private static final class DecoratingFactory extends SimpleAsyncTaskExecutor implements ThreadFactory {

		private @Nullable TaskDecorator decorator;

		@Override
		public void setTaskDecorator(TaskDecorator taskDecorator) {
			super.setTaskDecorator(taskDecorator);
			this.decorator = taskDecorator;
		}

		@Override
		public Thread newThread(Runnable task) {
			return super.newThread((this.decorator != null) ? this.decorator.decorate(task) : task);
		}

	}

}
