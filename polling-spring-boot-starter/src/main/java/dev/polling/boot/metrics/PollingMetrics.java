package dev.polling.boot.metrics;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.jspecify.annotations.Nullable;

import dev.polling.core.Decision;
import dev.polling.core.PeerObservation;
import dev.polling.core.PeerState;
import dev.polling.core.PollingListener;
import dev.polling.core.PollingManager;

/**
 * Micrometer meters of the polling clusters, each tagged with {@code cluster}:
 * <ul>
 * <li>{@value #DECISIONS} (counter): decisions, tagged {@code outcome} (granted, refused) and
 * {@code reason} (e.g. renewed, peer-active, paused);</li>
 * <li>{@value #DECISION_DURATION} (timer): how long decisions take, tagged {@code outcome};</li>
 * <li>{@value #HOLDING} (gauge): 1 while this instance holds the cluster, else 0;</li>
 * <li>{@value #PAUSED} (gauge): 1 while the cluster is paused on this instance, else 0;</li>
 * <li>{@value #ACTIVITY_AGE} (time gauge, seconds): time since this instance's last activity, NaN
 * when never or released;</li>
 * <li>{@value #PEER_REQUESTS} (timer): requests to peers, tagged {@code peer} and {@code state}
 * (answered, refused, unresponsive, error);</li>
 * <li>{@value #TAKEOVERS} (counter): how often this instance acquired the cluster;</li>
 * <li>{@value #CYCLE_OVERRUNS} (counter): reports of a cycle running longer than the wait time (one
 * per wait time while it runs).</li>
 * </ul>
 * Events arrive through the {@link PollingListener} callbacks of the manager; the gauges read the
 * manager.
 */
public class PollingMetrics implements MeterBinder, PollingListener {

	/** Decisions, by outcome and reason. */
	public static final String DECISIONS = "polling.decisions";

	/** Decision latency. */
	public static final String DECISION_DURATION = "polling.decision.duration";

	/** Whether this instance holds the cluster. */
	public static final String HOLDING = "polling.holding";

	/** Whether the cluster is paused on this instance. */
	public static final String PAUSED = "polling.paused";

	/** Time since this instance's last activity. */
	public static final String ACTIVITY_AGE = "polling.activity.age";

	/** Requests to peers, by peer and state. */
	public static final String PEER_REQUESTS = "polling.peer.requests";

	/** Acquisitions of a cluster by this instance. */
	public static final String TAKEOVERS = "polling.takeovers";

	/** Cycles running longer than the wait time, one count per wait time while they run. */
	public static final String CYCLE_OVERRUNS = "polling.cycle.overruns";

	private final Supplier<@Nullable PollingManager> manager;

	private final List<MeterRegistry> registries = new CopyOnWriteArrayList<>();

	/**
	 * Creates the meters' binder.
	 * @param manager supplies the manager whose clusters the gauges read (looked up lazily, as the
	 *        manager itself reports to this listener)
	 */
	public PollingMetrics(Supplier<@Nullable PollingManager> manager) {
		this.manager = manager;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		PollingManager manager = this.manager.get();
		if (manager == null) {
			return;
		}
		for (String clusterId : manager.clusterIds()) {
			Gauge.builder(HOLDING, manager, (m) -> m.isHolding(clusterId) ? 1 : 0)
				.tag("cluster", clusterId)
				.description("Whether this instance holds the polling cluster (1) or not (0)")
				.register(registry);
			Gauge.builder(PAUSED, manager, (m) -> m.isPaused(clusterId) ? 1 : 0)
				.tag("cluster", clusterId)
				.description("Whether the polling cluster is paused on this instance (1) or not (0)")
				.register(registry);
			TimeGauge.builder(ACTIVITY_AGE, manager, TimeUnit.SECONDS, (m) -> activityAgeSeconds(m, clusterId))
				.tag("cluster", clusterId)
				.description("Time since this instance's last polling activity; NaN when never")
				.register(registry);
			Counter.builder(TAKEOVERS)
				.tag("cluster", clusterId)
				.description("How often this instance acquired the polling cluster")
				.register(registry);
			Counter.builder(CYCLE_OVERRUNS)
				.tag("cluster", clusterId)
				.description("Reports of a polling cycle running longer than the wait time, one per wait time while it runs")
				.register(registry);
		}
		this.registries.add(registry);
	}

	private static double activityAgeSeconds(PollingManager manager, String clusterId) {
		Duration elapsed = manager.status(clusterId).elapsed();
		return (elapsed != null) ? elapsed.toNanos() / 1e9 : Double.NaN;
	}

	@Override
	public void onDecision(Decision decision) {
		String outcome = tagValue(decision.outcome());
		for (MeterRegistry registry : this.registries) {
			Counter.builder(DECISIONS)
				.tag("cluster", decision.clusterId())
				.tag("outcome", outcome)
				.tag("reason", tagValue(decision.reason()))
				.description("Polling decisions by outcome and reason")
				.register(registry)
				.increment();
			Timer.builder(DECISION_DURATION)
				.tag("cluster", decision.clusterId())
				.tag("outcome", outcome)
				.description("How long polling decisions take")
				.register(registry)
				.record(decision.duration());
		}
	}

	@Override
	public void onPeerObservation(String clusterId, PeerObservation observation) {
		if (observation.state() == PeerState.SELF) {
			return;
		}
		for (MeterRegistry registry : this.registries) {
			Timer.builder(PEER_REQUESTS)
				.tag("cluster", clusterId)
				.tag("peer", observation.peerId())
				.tag("state", tagValue(observation.state()))
				.description("Requests to polling peers by outcome")
				.register(registry)
				.record(observation.latency());
		}
	}

	@Override
	public void onHoldChanged(String clusterId, boolean holding, boolean takeover) {
		if (!holding || !takeover) {
			return;
		}
		for (MeterRegistry registry : this.registries) {
			Counter.builder(TAKEOVERS).tag("cluster", clusterId).register(registry).increment();
		}
	}

	@Override
	public void onCycleOverrun(String clusterId, Duration running) {
		for (MeterRegistry registry : this.registries) {
			Counter.builder(CYCLE_OVERRUNS).tag("cluster", clusterId).register(registry).increment();
		}
	}

	private static String tagValue(Enum<?> value) {
		return value.name().toLowerCase(Locale.ROOT).replace('_', '-');
	}

}
