package dev.polling.e2e.instance;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;
import org.springframework.jdbc.core.simple.JdbcClient;

import dev.polling.core.PollingManager;

/**
 * The chaos run's extra clusters (profile {@code chaos}, {@code application-chaos.yml} of this
 * module's instance jar): every
 * configured cluster whose id starts with {@value #PREFIX} is decided at each tick of one timer, all
 * of them at once on a thread each, so their decisions overlap (and with them the requests to the
 * peers). The ticks are aligned to the wall clock ({@code e2e.ticks.period}, default 4 s), so all
 * instances decide at the same moment. A granted cycle does nothing but record in
 * {@code tick_cycles} which instance ran which cluster in which period (the chaos and soak drivers
 * read it); the decision and
 * the hold are the same as with {@code @PollingCycle}, which would need one method per cluster.
 * A cluster whose previous decision or cycle has not ended is skipped at that tick.
 */
final class TickClusters implements SmartLifecycle {

	static final String PREFIX = "TICK_";

	private static final Logger logger = LoggerFactory.getLogger(TickClusters.class);

	private final PollingManager polling;

	private final JdbcClient jdbc;

	private final Duration period;

	private final List<String> clusters;

	private final Set<String> running = ConcurrentHashMap.newKeySet();

	private @Nullable ScheduledExecutorService timer;

	private @Nullable ExecutorService workers;

	TickClusters(PollingManager polling, JdbcClient jdbc, Duration period) {
		this.polling = polling;
		this.jdbc = jdbc;
		this.period = period;
		this.clusters = polling.clusterIds().stream().filter((id) -> id.startsWith(PREFIX)).sorted().toList();
	}

	@Override
	public synchronized void start() {
		if (this.clusters.isEmpty()) {
			logger.warn("Profile chaos: no cluster id starts with {}; nothing to tick", PREFIX);
			return;
		}
		AtomicInteger count = new AtomicInteger();
		this.workers = Executors.newFixedThreadPool(this.clusters.size(), (r) -> daemon(r, "tick-" + count.incrementAndGet()));
		this.timer = Executors.newSingleThreadScheduledExecutor((r) -> daemon(r, "tick-timer"));
		long periodMillis = this.period.toMillis();
		long initialDelay = periodMillis - System.currentTimeMillis() % periodMillis;
		this.timer.scheduleAtFixedRate(this::tick, initialDelay, periodMillis, TimeUnit.MILLISECONDS);
		logger.info("Profile chaos: {} tick clusters ({} .. {}) decided together every {} ms, aligned to the wall clock",
				this.clusters.size(), this.clusters.get(0), this.clusters.get(this.clusters.size() - 1), periodMillis);
	}

	private void tick() {
		ExecutorService pool = this.workers;
		if (pool == null) {
			return;
		}
		// the period this tick belongs to, the same on every instance (one clock): the nearest period
		// start, as the timer fires at one, a little late or (drifting) early; the soak counts the
		// periods in which two instances ran one cluster
		long periodMillis = this.period.toMillis();
		long tickAt = (System.currentTimeMillis() + periodMillis / 2) / periodMillis * periodMillis;
		for (String cluster : this.clusters) {
			if (!this.running.add(cluster)) {
				continue;
			}
			try {
				pool.execute(() -> {
					try {
						this.polling.runIfGranted(cluster, () -> record(cluster, tickAt));
					}
					catch (RuntimeException ex) {
						logger.warn("Tick cluster {}: cycle failed: {}", cluster, ex.toString());
					}
					finally {
						this.running.remove(cluster);
					}
				});
			}
			catch (RejectedExecutionException ex) {
				this.running.remove(cluster);
			}
		}
	}

	private void record(String cluster, long tickAt) {
		this.jdbc.sql("INSERT INTO tick_cycles (cluster, instance_id, tick_at) VALUES (?, ?, ?)")
			.params(cluster, this.polling.settings().instanceId(), tickAt)
			.update();
	}

	@Override
	public synchronized void stop() {
		if (this.timer != null) {
			this.timer.shutdownNow();
			this.timer = null;
		}
		if (this.workers != null) {
			this.workers.shutdown();
			try {
				this.workers.awaitTermination(5, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			this.workers = null;
		}
	}

	@Override
	public synchronized boolean isRunning() {
		return this.timer != null;
	}

	private static Thread daemon(Runnable runnable, String name) {
		Thread thread = new Thread(runnable, name);
		thread.setDaemon(true);
		return thread;
	}

}
