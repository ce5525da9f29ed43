package dev.polling.boot.autoconfigure.jdbc;

import dev.polling.jdbc.delivery.DeliveryGuard;
import dev.polling.jdbc.delivery.DeliveryListener;
import dev.polling.jdbc.delivery.DeliveryStats;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Micrometer meters of the delivery guard: a {@link DeliveryListener} for the counters, and gauges
 * read from {@link DeliveryGuard#stats()} at each {@link #refresh()} (every 15 s).
 * <ul>
 * <li>{@value #BACKLOG}: gauge, PENDING and FAILED messages, tag {@code destination};</li>
 * <li>{@value #OLDEST_AGE}: gauge, seconds since the oldest waiting message was stored;</li>
 * <li>{@value #IN_DOUBT}: gauge, IN_DOUBT messages waiting for an operator;</li>
 * <li>{@value #DEAD}: gauge, DEAD messages waiting for an operator;</li>
 * <li>{@value #DELIVERED}, {@value #RETRIES}, {@value #DEAD_LETTERS}, {@value #BECAME_IN_DOUBT},
 * {@value #FENCING_REJECTIONS}: counters of this instance, tag {@code destination};</li>
 * <li>{@value #LEASES_EXPIRED}: counter of expired sends this instance recovered.</li>
 * </ul>
 */
public final class DeliveryMetrics implements DeliveryListener, MeterBinder {

	/** Gauge: PENDING and FAILED messages per destination. */
	public static final String BACKLOG = "polling.delivery.backlog";

	/** Gauge: age in seconds of the oldest waiting message per destination. */
	public static final String OLDEST_AGE = "polling.delivery.oldest.age";

	/** Gauge: IN_DOUBT messages per destination. */
	public static final String IN_DOUBT = "polling.delivery.in.doubt";

	/** Gauge: DEAD messages per destination. */
	public static final String DEAD = "polling.delivery.dead";

	/** Counter: delivered messages. */
	public static final String DELIVERED = "polling.delivery.delivered";

	/** Counter: definite failures scheduled for a retry. */
	public static final String RETRIES = "polling.delivery.retries";

	/** Counter: messages that went dead. */
	public static final String DEAD_LETTERS = "polling.delivery.dead.letters";

	/** Counter: messages that became IN_DOUBT. */
	public static final String BECAME_IN_DOUBT = "polling.delivery.in.doubt.events";

	/** Counter: post-updates rejected by the fence. */
	public static final String FENCING_REJECTIONS = "polling.delivery.fencing.rejections";

	/** Counter: expired sends recovered by this instance. */
	public static final String LEASES_EXPIRED = "polling.delivery.leases.expired";

	private static final Logger logger = LoggerFactory.getLogger(DeliveryMetrics.class);

	private final Supplier<DeliveryGuard> guard;

	private final List<MeterRegistry> registries = new CopyOnWriteArrayList<>();

	private final List<MultiGauge[]> gauges = new CopyOnWriteArrayList<>();

	private final KnownNames known;

	/**
	 * Creates the meters.
	 * @param guard the guard whose statistics the gauges show (looked up lazily)
	 */
	public DeliveryMetrics(Supplier<DeliveryGuard> guard) {
		this(guard, List::of);
	}

	/**
	 * Creates the meters.
	 * @param guard the guard whose statistics the gauges show (looked up lazily)
	 * @param destinations the destinations of this application (looked up lazily): their gauges show 0 rather than
	 * nothing while they have no open rows
	 */
	public DeliveryMetrics(Supplier<DeliveryGuard> guard, Supplier<? extends java.util.Collection<String>> destinations) {
		this.guard = guard;
		this.known = new KnownNames(destinations);
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		this.registries.add(registry);
		Counter.builder(LEASES_EXPIRED).description("Expired sends recovered by this instance").register(registry);
		this.gauges.add(new MultiGauge[] {
				MultiGauge.builder(BACKLOG).description("Messages waiting to be sent (PENDING and FAILED)").register(registry),
				MultiGauge.builder(OLDEST_AGE).description("Age of the oldest waiting message").baseUnit("seconds")
					.register(registry),
				MultiGauge.builder(IN_DOUBT).description("Sends with an unknown outcome, waiting for an operator")
					.register(registry),
				MultiGauge.builder(DEAD).description("Dead messages waiting for an operator").register(registry) });
		refresh();
	}

	/**
	 * Reads the guard's statistics and updates the gauges; failures are logged at debug level.
	 */
	public void refresh() {
		if (this.gauges.isEmpty()) {
			return;
		}
		List<DeliveryStats> stats;
		try {
			stats = this.guard.get().admin().stats();
		}
		catch (RuntimeException ex) {
			logger.debug("Could not read the delivery statistics for the gauges", ex);
			return;
		}
		stats = this.known.complete(stats, DeliveryStats::destination, (name) -> new DeliveryStats(name, 0, 0, 0, 0, 0, null));
		for (MultiGauge[] gauge : this.gauges) {
			gauge[0].register(stats.stream().map((s) -> MultiGauge.Row.of(tags(s), s.backlog())).toList(), true);
			gauge[1].register(stats.stream()
				.map((s) -> MultiGauge.Row.of(tags(s),
						(s.oldestPending() != null) ? s.oldestPending().toMillis() / 1000.0 : 0.0))
				.toList(), true);
			gauge[2].register(stats.stream().map((s) -> MultiGauge.Row.of(tags(s), s.inDoubt())).toList(), true);
			gauge[3].register(stats.stream().map((s) -> MultiGauge.Row.of(tags(s), s.dead())).toList(), true);
		}
	}

	private static Tags tags(DeliveryStats stats) {
		return Tags.of("destination", stats.destination());
	}

	@Override
	public void onDelivered(String destination) {
		count(DELIVERED, "Messages delivered by this instance", destination, 1);
	}

	@Override
	public void onRetryScheduled(String destination) {
		count(RETRIES, "Definite failures scheduled for a retry", destination, 1);
	}

	@Override
	public void onDead(String destination) {
		count(DEAD_LETTERS, "Messages that went dead after their last attempt", destination, 1);
	}

	@Override
	public void onInDoubt(String destination, int count) {
		count(BECAME_IN_DOUBT, "Messages whose send has an unknown outcome", destination, count);
	}

	@Override
	public void onFenceRejected(String destination) {
		count(FENCING_REJECTIONS, "Post-updates rejected because the lease expired during the send", destination, 1);
	}

	@Override
	public void onLeasesExpired(int count) {
		for (MeterRegistry registry : this.registries) {
			registry.counter(LEASES_EXPIRED).increment(count);
		}
	}

	private void count(String name, String description, String destination, int amount) {
		this.known.saw(destination);
		for (MeterRegistry registry : this.registries) {
			Counter.builder(name).description(description).tag("destination", destination).register(registry)
				.increment(amount);
		}
	}

}
