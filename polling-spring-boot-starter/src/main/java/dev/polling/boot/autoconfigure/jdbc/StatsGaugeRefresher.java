package dev.polling.boot.autoconfigure.jdbc;

import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;

/**
 * Refreshes the gauges of {@link QueueMetrics} and {@link DeliveryMetrics} from the database on a
 * timer of its own (one statement per table per refresh), so that scraping the meters never queries
 * the database. Exists only when the application has a meter registry; every
 * {@code polling.jdbc.metrics.refresh-interval}, 0 for never.
 */
public final class StatsGaugeRefresher implements SmartLifecycle {

	private final List<Runnable> refreshes;

	private final Duration interval;

	private final PollingTaskSchedulers schedulers;

	private PollingTaskSchedulers.@Nullable Timer executor;

	/**
	 * Creates the refresher.
	 * @param refreshes what to refresh
	 * @param interval how often
	 * @param schedulers where the timer comes from
	 */
	public StatsGaugeRefresher(List<Runnable> refreshes, Duration interval, PollingTaskSchedulers schedulers) {
		this.schedulers = schedulers;
		this.refreshes = List.copyOf(refreshes);
		this.interval = interval;
	}

	@Override
	public synchronized void start() {
		if (this.executor != null || this.refreshes.isEmpty() || this.interval.isZero() || this.interval.isNegative()) {
			return;
		}
		PollingTaskSchedulers.Timer started = this.schedulers.start("polling-jdbc-gauges", this.interval,
				() -> this.refreshes.forEach(Runnable::run));
		this.executor = started;
	}

	@Override
	public synchronized void stop() {
		if (this.executor != null) {
			this.executor.stop(Duration.ZERO);
			this.executor = null;
		}
	}

	/** How often the gauges are refreshed; zero for never. */
	public Duration getInterval() {
		return this.interval;
	}

	@Override
	public synchronized boolean isRunning() {
		return this.executor != null;
	}

}
