package dev.polling.console.jdbc;

import java.time.Duration;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * The counts of a database part, read at most once per second however many pages ask: the page's
 * "has anything changed" question, its data and other open pages share one read. An action through
 * the console forgets it, so the page that acted shows the new counts at once.
 * @param <T> what is read
 */
final class StatsCache<T> {

	/** How long a read is shared. */
	static final Duration TTL = Duration.ofSeconds(1);

	private final Supplier<T> reader;

	private @Nullable T value;

	private long readAt;

	StatsCache(Supplier<T> reader) {
		this.reader = reader;
	}

	/** The counts, read again when the last read is older than {@link #TTL}; concurrent callers wait for one read. */
	synchronized T get() {
		long now = System.nanoTime();
		T current = this.value;
		if (current == null || now - this.readAt >= TTL.toNanos()) {
			current = this.reader.get();
			this.value = current;
			this.readAt = System.nanoTime();
		}
		return current;
	}

	synchronized void forget() {
		this.value = null;
	}

}
