package dev.polling.boot.autoconfigure.jdbc;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;

/**
 * Refreshes the gauges of {@link QueueMetrics} and {@link DeliveryMetrics} from the database on a
 * daemon thread (one statement per table per refresh), so that scraping the meters never queries
 * the database.
 */
public final class StatsGaugeRefresher implements SmartLifecycle {

	private final List<Runnable> refreshes;

	private final Duration interval;

	private @Nullable ScheduledExecutorService executor;

	/**
	 * Creates the refresher.
	 * @param refreshes what to refresh
	 * @param interval how often
	 */
	public StatsGaugeRefresher(List<Runnable> refreshes, Duration interval) {
		this.refreshes = List.copyOf(refreshes);
		this.interval = interval;
	}

	@Override
	public synchronized void start() {
		if (this.executor != null || this.refreshes.isEmpty()) {
			return;
		}
		ScheduledExecutorService started = FixedDelayTimer.start("polling-jdbc-gauges", this.interval,
				() -> this.refreshes.forEach(Runnable::run));
		this.executor = started;
	}

	@Override
	public synchronized void stop() {
		if (this.executor != null) {
			this.executor.shutdownNow();
			this.executor = null;
		}
	}

	@Override
	public synchronized boolean isRunning() {
		return this.executor != null;
	}

}
