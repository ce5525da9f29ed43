package dev.polling.core.test;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import dev.polling.core.TimeSource;

/** A clock for tests: monotonic time advances only when told; the wall clock can jump on its own. */
public final class ManualTime implements TimeSource {

	private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

	private final AtomicReference<Instant> wall = new AtomicReference<>(Instant.parse("2026-01-01T00:00:00Z"));

	@Override
	public long nanoTime() {
		return this.nanos.get();
	}

	@Override
	public Instant now() {
		return this.wall.get();
	}

	/** Advances the clocks instead of sleeping. */
	@Override
	public void sleep(Duration duration) {
		advance(duration);
	}

	/** Advances both clocks. */
	public void advance(Duration duration) {
		this.nanos.addAndGet(duration.toNanos());
		this.wall.updateAndGet((w) -> w.plus(duration));
	}

	/** Moves only the wall clock, like an NTP correction or a manual clock change. */
	public void jumpWallClock(Duration duration) {
		this.wall.updateAndGet((w) -> w.plus(duration));
	}

}
