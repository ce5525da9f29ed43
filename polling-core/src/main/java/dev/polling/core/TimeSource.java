package dev.polling.core;

import java.time.Instant;

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

}
