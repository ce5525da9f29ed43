package dev.polling.core;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

/**
 * Where the library reads time. Elapsed times and timeouts use the monotonic {@link #nanoTime()}, so
 * that a wall-clock jump neither grants nor blocks; {@link #now()} is used for display only.
 * Inject a manual implementation in tests.
 */
public interface TimeSource {

	/** The system's monotonic clock and wall clock. */
	TimeSource SYSTEM = new TimeSource() {

		@Override
		public long nanoTime() {
			return System.nanoTime();
		}

		@Override
		public Instant now() {
			return Instant.now();
		}

	};

	/** Monotonic nanoseconds, only meaningful as differences. */
	long nanoTime();

	/** Wall-clock time, for display. */
	Instant now();

	/**
	 * Waits the given time on this source's monotonic clock (the settle time of an acquisition). The
	 * system source sleeps; a manual source in tests advances its clock instead.
	 * @throws InterruptedException if interrupted while waiting
	 */
	default void sleep(Duration duration) throws InterruptedException {
		long nanos = duration.toNanos();
		if (nanos > 0) {
			TimeUnit.NANOSECONDS.sleep(nanos);
		}
	}

}
