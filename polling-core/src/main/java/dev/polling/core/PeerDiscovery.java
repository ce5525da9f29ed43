package dev.polling.core;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.polling.core.discovery.DnsDiscovery;
import dev.polling.core.discovery.DiscoveredPeer;
import dev.polling.core.discovery.PeerResolver;

/**
 * The peers found through one {@link DnsDiscovery}, shared by the clusters of one manager. The name
 * is resolved on a thread of its own ({@link #start()}); decisions only read the latest view, so a
 * resolver that hangs never stalls them: the view ages instead, and an aged view makes this
 * instance let go and refuse (see {@link #voids(long)} and {@link #pending(long, long)}).
 *
 * <p>An address missing from an answer stays in the view, and is asked, until it has been missing
 * for the cluster's wait time (counted from the start of the first resolution without it); an
 * address that answers with this instance's id is this instance, as with static peers.
 */
final class PeerDiscovery implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(PeerDiscovery.class);

	private static final long NONE = HoldState.NONE;

	private final DnsDiscovery config;

	private final PeerResolver resolver;

	private final TimeSource time;

	/** Peer ids that answered with this instance's id (shared with the survey, see {@link LocalInstance#selfPeers()}). */
	private final Set<String> selfPeers;

	/** The static peers by lower-case address: a discovered address that is one of them is asked under the static entry. */
	private final Map<String, String> staticIds;

	/** How long this instance's own address may be missing before its holds are void: half the shortest wait time. */
	private final long selfGraceNanos;

	/** When a missing address is forgotten: after the longest wait time. */
	private final long forgetNanos;

	private final long freshnessNanos;

	/** Guarded by this: the members by id, in the order they were found. */
	private final Map<String, Member> members = new LinkedHashMap<>();

	private volatile List<Member> snapshot = List.of();

	/** Start (monotonic nanos) of the first resolution that succeeded, or {@link #NONE}. */
	private volatile long firstSuccessStart = NONE;

	/** Start (monotonic nanos) of the latest resolution that succeeded and was applied, or {@link #NONE}. */
	private volatile long lastSuccessStart = NONE;

	private volatile @Nullable String lastFailure;

	private final AtomicLong voids = new AtomicLong();

	private final AtomicBoolean inVoid = new AtomicBoolean();

	private @Nullable ScheduledExecutorService executor;

	/**
	 * One resolved address.
	 * @param id the peer id ({@code address:port})
	 * @param peer how it is asked
	 * @param staticId the static peer with the same address (asked instead), or null
	 * @param firstSeen start of the resolution that first returned it (monotonic nanos)
	 * @param missingSince start of the first resolution without it, or {@link #NONE}
	 */
	record Member(String id, PeerDefinition peer, @Nullable String staticId, long firstSeen, Instant firstSeenWall, long missingSince,
			@Nullable Instant missingSinceWall) {

		boolean isSelf(Set<String> selfPeers) {
			return selfPeers.contains(this.id) || (this.staticId != null && selfPeers.contains(this.staticId));
		}

	}

	PeerDiscovery(DnsDiscovery config, PeerResolver resolver, TimeSource time, Set<String> selfPeers, List<PeerDefinition> staticPeers,
			Duration shortestWait, Duration longestWait) {
		this.config = config;
		this.resolver = resolver;
		this.time = time;
		this.selfPeers = selfPeers;
		this.staticIds = new LinkedHashMap<>();
		for (PeerDefinition peer : staticPeers) {
			this.staticIds.put(peer.address().toLowerCase(Locale.ROOT), peer.id());
		}
		this.selfGraceNanos = shortestWait.toNanos() / 2;
		this.forgetNanos = longestWait.toNanos();
		this.freshnessNanos = config.freshness().toNanos();
	}

	DnsDiscovery config() {
		return this.config;
	}

	/** How long this instance's own address must have been in the answers before it acquires ({@link DnsDiscovery#settleTime}). */
	long settleNanos(Duration longestDecision) {
		return this.config.settleTime(longestDecision, this.resolver.maxAnswerAge()).toNanos();
	}

	/** Starts resolving on a thread of its own, now and then every interval. */
	synchronized void start() {
		if (this.executor != null) {
			return;
		}
		ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor((task) -> {
			Thread thread = new Thread(task, "polling-discovery-" + this.config.name());
			thread.setDaemon(true);
			return thread;
		});
		executor.scheduleAtFixedRate(this::refresh, 0, this.config.interval().toNanos(), TimeUnit.NANOSECONDS);
		this.executor = executor;
	}

	@Override
	public synchronized void close() {
		if (this.executor != null) {
			this.executor.shutdownNow();
		}
	}

	/**
	 * Resolves the name once and applies the answer; on the discovery thread (or a test's). Never
	 * throws: a failed resolution keeps the previous view, which ages.
	 * @return whether the resolution succeeded
	 */
	boolean refresh() {
		long start = this.time.nanoTime();
		Instant wall = this.time.now();
		List<InetAddress> addresses;
		try {
			addresses = List.copyOf(this.resolver.resolve(this.config.name()));
		}
		catch (Exception ex) {
			String failure = ex.toString();
			if (!failure.equals(this.lastFailure)) {
				this.lastFailure = failure;
				logger.warn("DNS discovery: resolving '{}' failed ({}); the peers found before stay, and after {} ms without a resolution "
						+ "this instance lets go of its clusters and does not acquire", this.config.name(), failure,
						this.config.freshness().toMillis());
			}
			return false;
		}
		apply(addresses, start, wall);
		return true;
	}

	private synchronized void apply(List<InetAddress> addresses, long start, Instant wall) {
		if (this.lastSuccessStart != NONE && start - this.lastSuccessStart < 0) {
			return; // an older resolution that finished late
		}
		if (this.lastFailure != null) {
			this.lastFailure = null;
			logger.info("DNS discovery: '{}' resolves again", this.config.name());
		}
		Set<String> answered = new HashSet<>();
		for (InetAddress address : addresses) {
			String host = address.getHostAddress();
			String id = ((address instanceof Inet6Address) ? "[" + host + "]" : host) + ":" + this.config.port();
			answered.add(id);
			Member m = this.members.get(id);
			if (m == null) {
				PeerDefinition peer = new PeerDefinition(id, host, this.config.port(), null, this.config.username(), this.config.password());
				String staticId = this.staticIds.get(peer.address().toLowerCase(Locale.ROOT));
				this.members.put(id, new Member(id, peer, staticId, start, wall, NONE, null));
				logger.info("DNS discovery: '{}' resolves to {}{}; it is asked from the next decision on", this.config.name(), id,
						(staticId != null) ? " (the static peer '" + staticId + "')" : "");
			}
			else if (m.missingSince != NONE) {
				// its presence starts anew: a peer may have dropped it meanwhile, so it counts as new for the settle time
				this.members.put(id, new Member(id, m.peer, m.staticId, start, wall, NONE, null));
				logger.info("DNS discovery: '{}' resolves to {} again", this.config.name(), id);
			}
		}
		// after a gap without resolutions (longer than the freshness) nothing is known about the gap: missing counts start anew
		boolean afterGap = this.lastSuccessStart != NONE && start - this.lastSuccessStart > this.freshnessNanos;
		for (String id : List.copyOf(this.members.keySet())) {
			Member m = this.members.get(id);
			if (answered.contains(id)) {
				continue;
			}
			if (m.missingSince == NONE || afterGap) {
				boolean wasPresent = m.missingSince == NONE;
				this.members.put(id, new Member(id, m.peer, m.staticId, m.firstSeen, m.firstSeenWall, start, wall));
				if (wasPresent) {
					logger.info("DNS discovery: '{}' no longer resolves to {}{}; it stays a peer for one wait time", this.config.name(), id,
							m.isSelf(this.selfPeers) ? " (this instance: it lets go of its clusters after half a wait time)" : "");
				}
			}
			else if (start - m.missingSince >= this.forgetNanos) {
				this.members.remove(id);
				logger.info("DNS discovery: {} has been missing from '{}' for a wait time; it is no longer a peer", id, this.config.name());
			}
		}
		this.snapshot = List.copyOf(this.members.values());
		if (this.firstSuccessStart == NONE) {
			this.firstSuccessStart = start;
		}
		this.lastSuccessStart = start;
	}

	/** The discovered peers a cluster with this wait time asks now: answered, or missing for less than the wait time. */
	List<PeerDefinition> view(long now, long waitNanos) {
		List<PeerDefinition> view = new ArrayList<>();
		for (Member m : this.snapshot) {
			if (m.staticId == null && (m.missingSince == NONE || now - m.missingSince < waitNanos)) {
				view.add(m.peer);
			}
		}
		view.sort(Comparator.comparing(PeerDefinition::id));
		return view;
	}

	/**
	 * Why this instance must not acquire now, or null when it may: its latest resolution must have
	 * started at most the freshness ago; its first one at least a wait time ago (a peer that had left
	 * the answers before this instance first resolved them is unknown to it, but may hold until it
	 * notices that itself, within half a wait time and two intervals); and its own address must have
	 * been in the answers for the settle time, so that every peer whose view is fresh knows it.
	 * @param settleNanos {@link DnsDiscovery#settleTime(Duration)}
	 * @param waitNanos the cluster's wait time
	 */
	@Nullable String pending(long now, long settleNanos, long waitNanos) {
		long last = this.lastSuccessStart;
		if (last == NONE) {
			return "DNS discovery: '" + this.config.name() + "' has not been resolved yet";
		}
		long first = this.firstSuccessStart;
		if (now - first < waitNanos) {
			return "DNS discovery: '" + this.config.name() + "' was first resolved " + (now - first) / 1_000_000L
					+ " ms ago; a new instance acquires only after one wait time (" + waitNanos / 1_000_000L
					+ " ms), when a peer that left the answers before it could have seen it holds no longer";
		}
		if (now - last > this.freshnessNanos) {
			return "DNS discovery: the latest resolution of '" + this.config.name() + "' started " + (now - last) / 1_000_000L
					+ " ms ago, more than two intervals (" + this.config.freshness().toMillis() + " ms)";
		}
		long since = NONE;
		for (Member m : this.snapshot) {
			if (m.missingSince == NONE && m.isSelf(this.selfPeers) && (since == NONE || m.firstSeen - since < 0)) {
				since = m.firstSeen;
			}
		}
		if (since == NONE) {
			return "DNS discovery: '" + this.config.name() + "' does not resolve to this instance (yet): no resolved address at port "
					+ this.config.port() + " has answered with this instance's id";
		}
		if (now - since < settleNanos) {
			return "DNS discovery: this instance's address has been in the answers of '" + this.config.name() + "' for "
					+ (now - since) / 1_000_000L + " ms; it acquires after " + settleNanos / 1_000_000L
					+ " ms, once every peer has resolved it";
		}
		return null;
	}

	/**
	 * How many times this instance's holds became void through discovery; a hold granted before the
	 * latest is void. It grows when the view gets older than the freshness (the resolver fails or
	 * hangs) or when this instance's own address has been missing for half the shortest wait time:
	 * the peers drop it one wait time after it went missing, so it lets go well before.
	 */
	long voids(long now) {
		long last = this.lastSuccessStart;
		boolean voidNow = last == NONE || now - last > this.freshnessNanos || selfGone(now);
		if (voidNow) {
			if (this.inVoid.compareAndSet(false, true)) {
				this.voids.incrementAndGet();
			}
		}
		else {
			this.inVoid.set(false);
		}
		return this.voids.get();
	}

	private boolean selfGone(long now) {
		long missingSince = NONE;
		for (Member m : this.snapshot) {
			if (m.isSelf(this.selfPeers)) {
				if (m.missingSince == NONE) {
					return false;
				}
				if (missingSince == NONE || m.missingSince - missingSince > 0) {
					missingSince = m.missingSince;
				}
			}
		}
		return missingSince != NONE && now - missingSince >= this.selfGraceNanos;
	}

	/** The discovered peers, for the status. */
	List<DiscoveredPeer> peers() {
		List<DiscoveredPeer> peers = new ArrayList<>();
		for (Member m : this.snapshot) {
			peers.add(new DiscoveredPeer((m.staticId != null) ? m.staticId : m.id, m.peer.host(), m.peer.port(), m.firstSeenWall,
					m.missingSinceWall, m.isSelf(this.selfPeers)));
		}
		return peers;
	}

	@Override
	public String toString() {
		return Objects.toString(this.config);
	}

}
