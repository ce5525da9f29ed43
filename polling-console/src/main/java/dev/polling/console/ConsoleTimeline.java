package dev.polling.console;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import dev.polling.core.Decision;
import dev.polling.core.PeerObservation;
import dev.polling.core.PollingListener;

/**
 * What happened to each cluster on this instance, newest first, for the console's timeline: hold
 * changes, changes of the decision's outcome, reason or holder (a decision equal to the one before
 * only counts up the repeats of its entry), overrunning cycles and the actions taken through the
 * console. A bounded ring per cluster in memory (no table); gone at a restart. Its {@link #version()}
 * grows with every new entry, for the page's "has anything changed" question.
 * <p>
 * Called on the deciding threads: every method is short and never throws.
 */
public final class ConsoleTimeline implements PollingListener {

	/** How long an entry is kept, counted from its last repeat. */
	public static final Duration DEFAULT_RETENTION = Duration.ofHours(6);

	private final int size;

	private final Duration retention;

	private final Function<String, Duration> waitTimes;

	private final Clock clock;

	private final Instant startedAt;

	private final AtomicLong version = new AtomicLong();

	private final Map<String, Deque<Entry>> entries = new HashMap<>();

	private final Map<String, String> lastDecisionKeys = new HashMap<>();

	private final Map<String, Instant> holderSince = new HashMap<>();

	/**
	 * Creates an empty timeline.
	 * @param size the entries kept per cluster
	 * @param clock the clock the entries are stamped with
	 * @param waitTimes the wait time of a cluster (whether a peer's answer means it holds the cluster)
	 */
	public ConsoleTimeline(int size, Clock clock, Function<String, Duration> waitTimes) {
		this(size, DEFAULT_RETENTION, clock, waitTimes);
	}

	/**
	 * Creates an empty timeline.
	 * @param size the entries kept per cluster
	 * @param retention how long an entry is kept after its last repeat (the timeline covers the last hours)
	 * @param clock the clock the entries are stamped with
	 * @param waitTimes the wait time of a cluster (whether a peer's answer means it holds the cluster)
	 */
	public ConsoleTimeline(int size, Duration retention, Clock clock, Function<String, Duration> waitTimes) {
		if (size < 1) {
			throw new IllegalArgumentException("size must be positive, was " + size);
		}
		if (retention.isNegative() || retention.isZero()) {
			throw new IllegalArgumentException("retention must be positive, was " + retention);
		}
		this.size = size;
		this.retention = retention;
		this.clock = clock;
		this.waitTimes = waitTimes;
		this.startedAt = clock.instant();
	}

	@Override
	public void onDecision(Decision decision) {
		String holder = holderOf(decision, waitTime(decision.clusterId()));
		String key = decision.outcome() + "/" + decision.reason() + "/" + holder;
		synchronized (this) {
			String previous = this.lastDecisionKeys.put(decision.clusterId(), key);
			Deque<Entry> ring = ring(decision.clusterId());
			if (key.equals(previous) && !ring.isEmpty() && ring.peekFirst().kind().equals("decision")) {
				Entry last = ring.pollFirst();
				ring.addFirst(last.repeated(decision.decidedAt()));
				return;
			}
			String previousHolder = (previous != null) ? previous.substring(previous.lastIndexOf('/') + 1) : null;
			if (!holder.equals(previousHolder)) {
				this.holderSince.put(decision.clusterId(), decision.decidedAt());
			}
			String text = decision.outcome().name().toLowerCase(java.util.Locale.ROOT) + ": "
					+ decision.reason().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-')
					+ (holder.isEmpty() ? "" : " (holder " + holder + ")");
			add(ring, new Entry(decision.decidedAt(), "decision", text, decision.detail(), 1, decision.decidedAt()));
		}
	}

	private Duration waitTime(String clusterId) {
		try {
			return this.waitTimes.apply(clusterId);
		}
		catch (RuntimeException ex) { // the manager is not there (yet): no peer counts as holding
			return Duration.ZERO;
		}
	}

	@Override
	public void onHoldChanged(String clusterId, boolean holding, boolean takeover) {
		Instant now = this.clock.instant();
		String text = holding ? (takeover ? "this instance took over (a peer held it before)" : "this instance now holds it")
				: "this instance let go";
		synchronized (this) {
			this.holderSince.put(clusterId, now);
			add(ring(clusterId), new Entry(now, "hold", text, null, 1, now));
		}
	}

	@Override
	public void onCycleOverrun(String clusterId, Duration running) {
		Instant now = this.clock.instant();
		synchronized (this) {
			add(ring(clusterId), new Entry(now, "overrun",
					"a cycle has run " + running.toSeconds() + " s, longer than the wait time", null, 1, now));
		}
	}

	/**
	 * Records an action taken through the console.
	 * @param clusterId the cluster
	 * @param text what was done and by whom
	 */
	public void action(String clusterId, String text) {
		Instant now = this.clock.instant();
		synchronized (this) {
			add(ring(clusterId), new Entry(now, "action", text, null, 1, now));
		}
	}

	/** The entries of a cluster within the retention, newest first, at most {@code limit}. */
	public synchronized List<Entry> entries(String clusterId, int limit) {
		Deque<Entry> ring = this.entries.get(clusterId);
		if (ring == null) {
			return List.of();
		}
		dropExpired(ring);
		List<Entry> copy = new ArrayList<>(Math.min(limit, ring.size()));
		Iterator<Entry> it = ring.iterator();
		while (it.hasNext() && copy.size() < limit) {
			copy.add(it.next());
		}
		return copy;
	}

	/** Since when the holder as seen by the decisions (or this instance's hold) is the current one, or null. */
	public synchronized @Nullable Instant holderSince(String clusterId) {
		return this.holderSince.get(clusterId);
	}

	/** Grows with every new entry. */
	public long version() {
		return this.version.get();
	}

	/** When this timeline (and so the console) started. */
	public Instant startedAt() {
		return this.startedAt;
	}

	private Deque<Entry> ring(String clusterId) {
		return this.entries.computeIfAbsent(clusterId, (id) -> new ArrayDeque<>());
	}

	private void add(Deque<Entry> ring, Entry entry) {
		ring.addFirst(entry);
		while (ring.size() > this.size) {
			ring.pollLast();
		}
		dropExpired(ring);
		this.version.incrementAndGet();
	}

	/** Drops the oldest entries whose last repeat is older than the retention (the newest is first). */
	private void dropExpired(Deque<Entry> ring) {
		Instant oldest = this.clock.instant().minus(this.retention);
		while (!ring.isEmpty() && ring.peekLast().lastAt().isBefore(oldest)) {
			ring.pollLast();
		}
	}

	/** How long an entry is kept after its last repeat. */
	public Duration retention() {
		return this.retention;
	}

	/** The instance id of the peer (or the coordinator's holder) that answered holding in a decision, or "". */
	static String holderOf(Decision decision, Duration waitTime) {
		if (decision.isGranted()) {
			return "this instance";
		}
		for (PeerObservation observation : decision.peers()) {
			if (observation.isHolding(waitTime) && observation.instanceId() != null) {
				return observation.instanceId();
			}
		}
		return "";
	}

	/**
	 * One thing that happened.
	 * @param at when (the first of its repeats)
	 * @param kind decision, hold, overrun or action
	 * @param text what happened
	 * @param detail what an operator must know about it, or null
	 * @param repeats how many equal decisions in a row it stands for
	 * @param lastAt when the last of them happened
	 */
	public record Entry(Instant at, String kind, String text, @Nullable String detail, int repeats, Instant lastAt) {

		Entry repeated(Instant when) {
			return new Entry(this.at, this.kind, this.text, this.detail, this.repeats + 1, when);
		}

	}

}
