package dev.polling.core;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the clusters of one manager share: this instance's settings and incarnation, the clock, the
 * transport to the peers, the listener, the stop source (the stop detector), the peer entries recognised as this
 * instance, and the balancing state.
 */
final class LocalInstance {

	private static final Logger logger = LoggerFactory.getLogger(LocalInstance.class);

	private static final SecureRandom RANDOM = new SecureRandom();

	private final PollingSettings settings;

	/** A random number per start, published beside the instance id: another process with the same id has another one. */
	private final long incarnation;

	private final TimeSource time;

	private final PeerClient peerClient;

	private final Events events;

	private final @Nullable StopSource stopSource;

	private final boolean balanceClusters;

	private final GrantProtocol grantProtocol;

	private final Set<String> selfPeers = ConcurrentHashMap.newKeySet();

	/** When this instance may hand the next cluster over for balance (monotonic nanos). */
	private volatile long nextHandover;

	private volatile Collection<ClusterRuntime> clusters = Set.of();

	LocalInstance(PollingSettings settings, TimeSource time, PeerClient peerClient, Events events, @Nullable StopSource stopSource,
			boolean balanceClusters, GrantProtocol grantProtocol) {
		this.settings = settings;
		this.incarnation = newIncarnation();
		this.time = time;
		this.peerClient = peerClient;
		this.events = events;
		this.stopSource = stopSource;
		this.balanceClusters = balanceClusters;
		this.grantProtocol = grantProtocol;
		this.nextHandover = time.nanoTime();
	}

	private static long newIncarnation() {
		long value;
		do {
			value = RANDOM.nextLong();
		}
		while (value == 0);
		return value;
	}

	void clusters(Collection<ClusterRuntime> clusters) {
		this.clusters = clusters;
	}

	PollingSettings settings() {
		return this.settings;
	}

	/** {@link GrantProtocol#ANNOUNCE} except in tests and the benchmark that compare the known-bad protocol. */
	GrantProtocol grantProtocol() {
		return this.grantProtocol;
	}

	long incarnation() {
		return this.incarnation;
	}

	TimeSource time() {
		return this.time;
	}

	PeerClient peerClient() {
		return this.peerClient;
	}

	Events events() {
		return this.events;
	}

	Set<String> selfPeers() {
		return this.selfPeers;
	}

	boolean balanceClusters() {
		return this.balanceClusters;
	}

	/** How many stops of this JVM were detected so far (0 without a detector). */
	long stops() {
		StopSource stops = this.stopSource;
		return (stops != null) ? stops.stops() : 0;
	}

	/**
	 * Whether this JVM resumed from a stop less than three peer timeouts ago: answers to requests
	 * under way during the stop say nothing about the peers, so it does not acquire yet. Three, not
	 * two: a peer that found this JVM unknown in its first round grants within two peer timeouts of
	 * that round's start or not at all (see {@code PeerDecider.notAfter}), so its grant is over before
	 * this instance competes again.
	 */
	boolean justStopped() {
		StopSource stops = this.stopSource;
		return stops != null && stops.stoppedWithin(this.settings.peerTimeout().multipliedBy(3));
	}

	/** After the clusters were closed: shuts the coordinators down and closes the peer client if this instance owns it. */
	void close(boolean ownsPeerClient) {
		for (ClusterRuntime c : this.clusters) {
			CoordinatedCluster coordinated = c.coordinated();
			if (coordinated != null) {
				coordinated.shutdown();
			}
		}
		if (ownsPeerClient) {
			this.peerClient.close();
		}
	}

	/** Asks the peers of every cluster decided by its peers without deciding (see {@link PollingManager#checkPeers()}). */
	Map<String, List<PeerObservation>> checkPeers() {
		Map<String, List<PeerObservation>> result = new LinkedHashMap<>();
		for (ClusterRuntime c : this.clusters) {
			if (c.coordinated() == null && !c.survey().peers().isEmpty() && !c.state().isClosed()) {
				result.put(c.id(), PeerDecider.checkPeers(c));
			}
		}
		return result;
	}

	/**
	 * The stop detector of a manager, or null when no cluster is decided by its peers (a coordinator's
	 * store, or standalone, is not misled by a stop of this JVM).
	 * @param threshold the gap that counts as a stop, or null for {@link #stopThreshold(PollingSettings)}
	 */
	static @Nullable StopDetector stopDetector(PollingSettings settings, boolean noPeers, Set<String> clusters,
			Set<String> coordinated, @Nullable Duration threshold, Runnable heartbeat) {
		if (noPeers || coordinated.containsAll(clusters)) {
			return null;
		}
		return new StopDetector((threshold != null) ? threshold : stopThreshold(settings), (gap) -> logStop(settings, gap), heartbeat);
	}

	/** How many clusters this instance holds. */
	int heldClusters() {
		int held = 0;
		for (ClusterRuntime c : this.clusters) {
			if (c.state().isHolding()) {
				held++;
			}
		}
		return held;
	}

	/** Whether a handover for balance is due now. */
	boolean handoverDue() {
		return this.time.nanoTime() - this.nextHandover >= 0;
	}

	/** Records a handover: the next one is due after half the wait time. */
	void handedOver(Duration waitTime) {
		this.nextHandover = this.time.nanoTime() + waitTime.toNanos() / 2;
	}

	/**
	 * A gap this long counts as a stop of the JVM: half the peer timeout. A peer's request waits the
	 * whole peer timeout before it counts this instance as unknown (and, under proceed, as idle), so
	 * a shorter stop is answered in time; the margin covers the request's own latency.
	 */
	static Duration stopThreshold(PollingSettings settings) {
		return settings.peerTimeout().dividedBy(2);
	}

	/**
	 * Called once per detected stop of this JVM, on whichever thread noticed it: the holds granted
	 * before it are void already ({@link HoldState}); the heartbeat tells the listener.
	 */
	static void logStop(PollingSettings settings, long gapNanos) {
		logger.warn("This instance ({}) did not run for {} ms (stopped, suspended or paused longer than half the peer timeout of {} ms): "
				+ "peers may have taken over, so it lets go of every cluster it held and competes anew at the next decision",
				settings.instanceId(), gapNanos / 1_000_000L, settings.peerTimeout().toMillis());
	}

	/** On the heartbeat: reports holds that ended without a decision (a stop, a lapse) and cycles that overrun. */
	static void checkClusters(@Nullable Map<String, ClusterRuntime> clusters) {
		if (clusters != null) {
			for (ClusterRuntime c : clusters.values()) {
				c.syncHeld();
				c.checkCycle();
			}
		}
	}

}
