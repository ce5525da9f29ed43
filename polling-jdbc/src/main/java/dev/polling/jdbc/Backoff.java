package dev.polling.jdbc;

import java.time.Duration;
import java.util.Objects;

/**
 * Exponential backoff between attempts: the first retry waits {@code initial}, each further one
 * {@code multiplier} times longer, never longer than {@code max}. The wait is added to the
 * database time when the retry is scheduled.
 *
 * @param initial wait before the first retry, positive
 * @param multiplier growth per attempt, at least 1
 * @param max longest wait, at least {@code initial}
 */
public record Backoff(Duration initial, double multiplier, Duration max) {

	/**
	 * Validates the settings.
	 * @param initial wait before the first retry
	 * @param multiplier growth per attempt
	 * @param max longest wait
	 */
	public Backoff {
		Objects.requireNonNull(initial, "initial backoff must not be null");
		Objects.requireNonNull(max, "max backoff must not be null");
		if (initial.isNegative() || initial.isZero()) {
			throw new IllegalArgumentException("initial backoff must be positive but was " + initial + ": e.g. 1s");
		}
		if (!(multiplier >= 1.0) || Double.isInfinite(multiplier)) {
			throw new IllegalArgumentException("backoff multiplier must be at least 1 but was " + multiplier
					+ ": e.g. 2 doubles the wait after every attempt");
		}
		if (max.compareTo(initial) < 0) {
			throw new IllegalArgumentException("max backoff " + max + " is shorter than the initial backoff " + initial
					+ ": set max to at least the initial backoff, e.g. 5m");
		}
	}

	/**
	 * The default: 1 s, doubling, at most 5 min.
	 * @return the default backoff
	 */
	public static Backoff defaults() {
		return new Backoff(Duration.ofSeconds(1), 2.0, Duration.ofMinutes(5));
	}

	/**
	 * The wait after a failed attempt.
	 * @param attempt the attempt that failed, from 1
	 * @return the wait before the next attempt
	 */
	public Duration delayAfter(int attempt) {
		double millis = this.initial.toMillis() * Math.pow(this.multiplier, Math.max(0, attempt - 1));
		long capped = (millis >= this.max.toMillis()) ? this.max.toMillis() : (long) millis;
		return Duration.ofMillis(capped);
	}

}
