package dev.polling.boot.autoconfigure.jdbc;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/** The one daemon thread each background lifecycle of the JDBC parts runs its task on. */
final class FixedDelayTimer {

	private FixedDelayTimer() {
	}

	/**
	 * Starts a daemon thread that runs the task every {@code interval} (fixed delay, first run after
	 * one interval).
	 * @param threadName the thread's name
	 * @param interval the delay between runs (at least 1 ms is used)
	 * @param task the task
	 * @return the executor, to shut down when stopping
	 */
	static ScheduledExecutorService start(String threadName, Duration interval, Runnable task) {
		ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor((runnable) -> {
			Thread thread = new Thread(runnable, threadName);
			thread.setDaemon(true);
			return thread;
		});
		long millis = Math.max(1, interval.toMillis());
		executor.scheduleWithFixedDelay(task, millis, millis, TimeUnit.MILLISECONDS);
		return executor;
	}

}
