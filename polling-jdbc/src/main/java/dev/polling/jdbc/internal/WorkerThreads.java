package dev.polling.jdbc.internal;

import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;

/**
 * The threads of a worker runtime (queue workers, delivery dispatcher, job dispatcher), taken from
 * the {@link ThreadFactory} its builder was given: by default daemon platform threads. Each thread
 * is named after its part ({@code polling-queue-worker-1}, {@code polling-delivery-recovery}, ...)
 * whatever name the factory gave it, so that thread dumps read the same on every factory.
 */
public final class WorkerThreads {

	private static final ThreadFactory PLATFORM = (task) -> {
		Thread thread = new Thread(task);
		thread.setDaemon(true);
		return thread;
	};

	private final ThreadFactory factory;

	private WorkerThreads(ThreadFactory factory) {
		this.factory = factory;
	}

	/**
	 * The default: daemon platform threads.
	 * @return the default factory
	 */
	public static ThreadFactory platform() {
		return PLATFORM;
	}

	/**
	 * Threads from the given factory.
	 * @param factory the factory
	 * @return the threads
	 */
	public static WorkerThreads of(ThreadFactory factory) {
		return new WorkerThreads(Objects.requireNonNull(factory, "threadFactory must not be null"));
	}

	/**
	 * Creates a named thread, not started.
	 * @param name the thread's name
	 * @param task what it runs
	 * @return the thread
	 * @throws IllegalStateException if the factory returned no thread
	 */
	public Thread create(String name, Runnable task) {
		Thread thread = this.factory.newThread(task);
		if (thread == null) {
			throw new IllegalStateException("The thread factory " + this.factory + " returned no thread for '" + name
					+ "' (it may be shut down): pass a factory that creates threads as long as the workers run");
		}
		thread.setName(name);
		return thread;
	}

	/**
	 * Creates and starts a named thread.
	 * @param name the thread's name
	 * @param task what it runs
	 * @return the started thread
	 */
	public Thread start(String name, Runnable task) {
		Thread thread = create(name, task);
		thread.start();
		return thread;
	}

	/**
	 * A timer with one thread of the given name.
	 * @param name the thread's name
	 * @return the timer
	 */
	public ScheduledExecutorService timer(String name) {
		return Executors.newSingleThreadScheduledExecutor((task) -> create(name, task));
	}

}
