package dev.polling.boot.autoconfigure;

import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.task.ThreadPoolTaskSchedulerBuilder;
import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import dev.polling.core.PollingManager;

/**
 * Names a cluster that had no decision one wait time after the start: nothing asks for it, so
 * nobody polls, and without this nothing would say so (no {@code @EnableScheduling}, the
 * {@code @PollingCycle}/{@code @Scheduled} method not on a bean, or a timer slower than the wait
 * time). Logs one WARN per such cluster, and {@link #test(String)} tells the health indicator. The
 * check runs once per cluster on a one-thread scheduler of its own, built with Spring Boot's
 * {@link ThreadPoolTaskSchedulerBuilder}, which ends when the checks are done or at stop.
 */
public final class NoDecisionWatch implements SmartLifecycle, Predicate<String> {

	private static final Logger logger = LoggerFactory.getLogger(NoDecisionWatch.class);

	private final PollingManager manager;

	private final ThreadPoolTaskSchedulerBuilder schedulerBuilder;

	private final Set<String> undecided = ConcurrentHashMap.newKeySet();

	private volatile @Nullable ThreadPoolTaskScheduler scheduler;

	private volatile int pending;

	/**
	 * @param manager the manager whose clusters to watch
	 * @param schedulerBuilder Spring Boot's builder of the one-thread scheduler that runs the checks
	 */
	public NoDecisionWatch(PollingManager manager, ThreadPoolTaskSchedulerBuilder schedulerBuilder) {
		this.manager = manager;
		this.schedulerBuilder = schedulerBuilder;
	}

	@Override
	public synchronized void start() {
		if (this.scheduler != null || this.manager.clusterIds().isEmpty()) {
			return;
		}
		ThreadPoolTaskScheduler scheduler = this.schedulerBuilder.poolSize(1).threadNamePrefix("polling-start-check-").build();
		scheduler.setDaemon(true);
		scheduler.initialize();
		this.scheduler = scheduler;
		this.pending = this.manager.clusterIds().size();
		Instant now = Instant.now();
		for (String clusterId : this.manager.clusterIds()) {
			Duration waitTime = this.manager.cluster(clusterId).waitTime();
			scheduler.schedule(() -> check(clusterId, waitTime), now.plus(waitTime));
		}
	}

	private void check(String clusterId, Duration waitTime) {
		try {
			if (this.manager.status(clusterId).lastDecision() == null) {
				this.undecided.add(clusterId);
				logger.warn("No polling decision for cluster '{}' in its wait time ({}) since the start: nothing asked whether "
						+ "this instance may poll, so nobody polls it from here. Likely causes: no @EnableScheduling on a "
						+ "configuration class (the @Scheduled method never runs); the @PollingCycle(\"{}\") or @Scheduled method "
						+ "is not on a bean (see the warnings at start); the timer's interval is longer than the wait time {}",
						clusterId, display(waitTime), clusterId, display(waitTime));
			}
		}
		finally {
			finishOne();
		}
	}

	private static String display(Duration duration) {
		return (duration.toMillis() % 1000 == 0) ? duration.toSeconds() + "s" : duration.toMillis() + "ms";
	}

	private synchronized void finishOne() {
		if (--this.pending == 0) {
			shutdown();
		}
	}

	private synchronized void shutdown() {
		ThreadPoolTaskScheduler scheduler = this.scheduler;
		if (scheduler != null) {
			scheduler.shutdown();
		}
	}

	/**
	 * Whether the cluster has had no decision since the start, checked one wait time after it.
	 * @param clusterId the cluster
	 * @return {@code true} from the check that found no decision until the cluster's first decision
	 */
	@Override
	public boolean test(String clusterId) {
		if (!this.undecided.contains(clusterId)) {
			return false;
		}
		if (this.manager.status(clusterId).lastDecision() != null) {
			this.undecided.remove(clusterId);
			return false;
		}
		return true;
	}

	@Override
	public synchronized void stop() {
		shutdown();
		this.scheduler = null;
	}

	@Override
	public boolean isRunning() {
		return this.scheduler != null;
	}

}
