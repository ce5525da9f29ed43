package dev.polling.boot.autoconfigure.jdbc;

import dev.polling.jdbc.queue.QueueListener;
import dev.polling.jdbc.queue.QueueStats;
import dev.polling.jdbc.queue.WorkQueue;
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
 * Micrometer meters of the work queue: a {@link QueueListener} for the counters, and gauges read
 * from {@link WorkQueue#stats()} (in database time) at each {@link #refresh()}, which the starter
 * runs every 15 s.
 * <ul>
 * <li>{@value #BACKLOG}: gauge, NEW and FAILED messages, tag {@code queue};</li>
 * <li>{@value #OLDEST_AGE}: gauge, seconds since the oldest waiting message was enqueued;</li>
 * <li>{@value #IN_PROGRESS}: gauge, claimed messages;</li>
 * <li>{@value #DEAD}: gauge, dead messages waiting for an operator;</li>
 * <li>{@value #COMPLETED}, {@value #RETRIES}, {@value #DEAD_LETTERS}, {@value #FENCING_REJECTIONS},
 * {@value #CLAIMS_LOST}: counters of this instance, tag {@code queue};</li>
 * <li>{@value #LEASES_EXPIRED}: counter of expired leases this instance recovered.</li>
 * </ul>
 */
public final class QueueMetrics implements QueueListener, MeterBinder {

	/** Gauge: NEW and FAILED messages per queue. */
	public static final String BACKLOG = "polling.queue.backlog";

	/** Gauge: age in seconds of the oldest waiting message per queue. */
	public static final String OLDEST_AGE = "polling.queue.oldest.age";

	/** Gauge: IN_PROGRESS messages per queue. */
	public static final String IN_PROGRESS = "polling.queue.in.progress";

	/** Gauge: DEAD messages per queue. */
	public static final String DEAD = "polling.queue.dead";

	/** Counter: completed messages. */
	public static final String COMPLETED = "polling.queue.completed";

	/** Counter: failed attempts scheduled for a retry. */
	public static final String RETRIES = "polling.queue.retries";

	/** Counter: messages that went dead. */
	public static final String DEAD_LETTERS = "polling.queue.dead.letters";

	/** Counter: writes rejected by the fence. */
	public static final String FENCING_REJECTIONS = "polling.queue.fencing.rejections";

	/** Counter: claims this instance lost (lease expired and recovered elsewhere). */
	public static final String CLAIMS_LOST = "polling.queue.claims.lost";

	/** Counter: expired leases recovered by this instance. */
	public static final String LEASES_EXPIRED = "polling.queue.leases.expired";

	private static final Logger logger = LoggerFactory.getLogger(QueueMetrics.class);

	private final Supplier<WorkQueue> queue;

	private final List<MeterRegistry> registries = new CopyOnWriteArrayList<>();

	private final List<MultiGauge[]> gauges = new CopyOnWriteArrayList<>();

	private final KnownNames known;

	/**
	 * Creates the meters.
	 * @param queue the queue whose statistics the gauges show (looked up lazily)
	 */
	public QueueMetrics(Supplier<WorkQueue> queue) {
		this(queue, List::of);
	}

	/**
	 * Creates the meters.
	 * @param queue the queue whose statistics the gauges show (looked up lazily)
	 * @param queues the queues of this application (looked up lazily): their gauges show 0 rather than
	 * nothing while they have no open rows
	 */
	public QueueMetrics(Supplier<WorkQueue> queue, Supplier<? extends java.util.Collection<String>> queues) {
		this.queue = queue;
		this.known = new KnownNames(queues);
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		this.registries.add(registry);
		Counter.builder(LEASES_EXPIRED).description("Expired leases recovered by this instance").register(registry);
		this.gauges.add(new MultiGauge[] {
				MultiGauge.builder(BACKLOG).description("Messages waiting to be processed (NEW and FAILED)").register(registry),
				MultiGauge.builder(OLDEST_AGE).description("Age of the oldest waiting message").baseUnit("seconds")
					.register(registry),
				MultiGauge.builder(IN_PROGRESS).description("Messages claimed by a worker").register(registry),
				MultiGauge.builder(DEAD).description("Dead messages waiting for an operator").register(registry) });
		refresh();
	}

	/**
	 * Reads the queue statistics and updates the gauges; failures are logged at debug level.
	 */
	public void refresh() {
		if (this.gauges.isEmpty()) {
			return;
		}
		List<QueueStats> stats;
		try {
			stats = this.queue.get().admin().stats();
		}
		catch (RuntimeException ex) {
			logger.debug("Could not read the work queue statistics for the gauges", ex);
			return;
		}
		stats = this.known.complete(stats, QueueStats::queue, (name) -> new QueueStats(name, 0, 0, 0, 0, 0, null));
		for (MultiGauge[] gauge : this.gauges) {
			gauge[0].register(stats.stream().map((s) -> MultiGauge.Row.of(Tags.of("queue", s.queue()), s.backlog())).toList(), true);
			gauge[1].register(stats.stream()
				.map((s) -> MultiGauge.Row.of(Tags.of("queue", s.queue()),
						(s.oldestWaiting() != null) ? s.oldestWaiting().toMillis() / 1000.0 : 0.0))
				.toList(), true);
			gauge[2].register(stats.stream().map((s) -> MultiGauge.Row.of(Tags.of("queue", s.queue()), s.inProgress())).toList(), true);
			gauge[3].register(stats.stream().map((s) -> MultiGauge.Row.of(Tags.of("queue", s.queue()), s.dead())).toList(), true);
		}
	}

	@Override
	public void onCompleted(String queue) {
		count(COMPLETED, "Messages completed by this instance", queue, 1);
	}

	@Override
	public void onRetryScheduled(String queue) {
		count(RETRIES, "Failed attempts scheduled for a retry", queue, 1);
	}

	@Override
	public void onDead(String queue) {
		count(DEAD_LETTERS, "Messages that went dead after their last attempt", queue, 1);
	}

	@Override
	public void onFenceRejected(String queue) {
		count(FENCING_REJECTIONS, "Writes rejected because the claim was lost", queue, 1);
	}

	@Override
	public void onClaimsLost(String queue, int count) {
		count(CLAIMS_LOST, "Claims this instance lost after their lease expired", queue, count);
	}

	@Override
	public void onLeasesExpired(int count) {
		for (MeterRegistry registry : this.registries) {
			registry.counter(LEASES_EXPIRED).increment(count);
		}
	}

	private void count(String name, String description, String queue, int amount) {
		this.known.saw(queue);
		for (MeterRegistry registry : this.registries) {
			Counter.builder(name).description(description).tag("queue", queue).register(registry).increment(amount);
		}
	}

}
