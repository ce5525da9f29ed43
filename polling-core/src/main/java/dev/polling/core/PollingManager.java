package dev.polling.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.StandardMBean;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.polling.core.Decision.Outcome;
import dev.polling.core.Decision.Reason;
import dev.polling.core.internal.ClusterState;
import dev.polling.core.internal.StopDetector;
import dev.polling.core.jmx.IsyPollingStatusMXBean;
import dev.polling.core.jmx.JmxContract;
import dev.polling.core.jmx.JmxPeerClient;
import dev.polling.core.jmx.PollingClusterMXBean;

/**
 * Decides which instance polls each cluster. This class is where the decision is made; read
 * {@link #decide(String)} from top to bottom.
 *
 * <p>Each instance publishes, per cluster, the time since its last activity and (while acquiring)
 * the age of its candidacy in an MBean. A decision asks every peer of the cluster in parallel over
 * cached connections, waits at most the peer timeout, and then:
 * <ul>
 * <li><b>Holder renews.</b> If this instance holds the cluster (activity younger than the wait time,
 * with a one-second margin), it extends its hold <em>before</em> asking, so no peer can see the hold
 * lapse, and is granted unless a peer with a lower instance id holds it too (then it yields). No
 * settle time is paid.</li>
 * <li><b>Candidate acquires.</b> Otherwise it is refused if any peer holds or is acquiring. If none
 * does, it announces candidacy, waits the settle time and asks again. It is refused if a peer now
 * holds, if a candidate peer announced clearly earlier (by more than half the settle time, measured
 * against this instance's own candidacy age at the moment it asked), or if a candidate peer has a
 * lower instance id; otherwise it is granted. Two candidates that announced at nearly the same time
 * see each other and agree by instance id; a candidate that announced after the other's final read
 * sees it as clearly older (or already holding) and yields. So at most one instance is granted among
 * the peers that answer.</li>
 * </ul>
 * A peer that refuses the connection is gone and counts as idle. A peer that times out or fails is
 * unknown: {@link UnreachablePeerPolicy#PROCEED} counts it as idle, {@link
 * UnreachablePeerPolicy#PRESUME_LAST_KNOWN} counts it as holding while its last answer said so and is
 * younger than the wait time.
 */
public final class PollingManager implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(PollingManager.class);

	/** How many decisions in a row a candidate leaves a free cluster to a peer holding fewer clusters. */
	static final int MAX_DEFERRALS = 3;

	/** A holder renews without settle time only while this much of its wait time is left. */
	static final Duration RENEWAL_MARGIN = Duration.ofSeconds(1);

	private final PollingSettings settings;

	private final Map<String, PeerDefinition> peers;

	private final Map<String, ClusterRuntime> clusters;

	private final PeerClient peerClient;

	private final boolean ownsPeerClient;

	private final TimeSource time;

	private final PollingListener listener;

	private final @Nullable MBeanServer mbeanServer;

	private final List<ObjectName> registeredMBeans = new ArrayList<>();

	/** Peers recognised as this instance. */
	private final Set<String> selfPeers = ConcurrentHashMap.newKeySet();

	private volatile boolean closed;

	/** Stops of this JVM longer than the peer timeout void the holds (see {@link StopDetector}); null when no cluster needs it. */
	private final @Nullable StopDetector stopDetector;

	/** A gap shorter than this never counts as a stop of the JVM. */
	static final Duration MIN_STOP_THRESHOLD = Duration.ofSeconds(1);

	private final boolean balanceClusters;

	/** Runs the requests to coordinators (database rows) so a decision can stop waiting for them. */
	private final ExecutorService coordinatorCalls = Executors.newCachedThreadPool((task) -> {
		Thread thread = new Thread(task, "polling-coordinator");
		thread.setDaemon(true);
		return thread;
	});

	/** When this instance may hand the next cluster over for balance (monotonic nanos). */
	private volatile long nextHandover;

	private PollingManager(Builder builder) {
		this.settings = builder.settings;
		this.time = builder.time;
		this.balanceClusters = builder.balanceClusters;
		this.nextHandover = this.time.nanoTime();
		this.listener = builder.listener;
		this.peers = Collections.unmodifiableMap(new LinkedHashMap<>(builder.peers));
		validate(builder);
		boolean anyStopSensitive = builder.clusters.values().stream()
			.anyMatch((cluster) -> isStopSensitive(builder.coordinators.get(cluster.id())));
		this.stopDetector = anyStopSensitive ? new StopDetector(stopThreshold(), this::onStopped) : null;
		Map<String, ClusterRuntime> runtimes = new LinkedHashMap<>();
		for (ClusterDefinition cluster : builder.clusters.values()) {
			List<PeerDefinition> clusterPeers = new ArrayList<>();
			for (PeerDefinition peer : this.peers.values()) {
				if (cluster.peerIds().isEmpty() || cluster.peerIds().contains(peer.id())) {
					clusterPeers.add(peer);
				}
			}
			ClusterCoordinator coordinator = builder.coordinators.get(cluster.id());
			StopDetector stops = this.stopDetector;
			boolean stopSensitive = stops != null && isStopSensitive(coordinator);
			ClusterState state = stopSensitive ? new ClusterState(this.time, cluster.waitTime().toNanos(), stops::stops)
					: new ClusterState(this.time, cluster.waitTime().toNanos());
			runtimes.put(cluster.id(), new ClusterRuntime(cluster, (coordinator != null) ? List.of() : clusterPeers, state, coordinator,
					stopSensitive));
		}
		this.clusters = Collections.unmodifiableMap(runtimes);
		this.clusters.values().forEach((c) -> c.handoverUntil = this.time.nanoTime());
		this.ownsPeerClient = builder.peerClient == null;
		try {
			for (String peerId : builder.peerTls.keySet()) {
				if (!this.peers.containsKey(peerId)) {
					throw new IllegalArgumentException("TLS is given for unknown peer '" + peerId + "'; known peers: " + this.peers.keySet());
				}
			}
			this.peerClient = (builder.peerClient != null) ? builder.peerClient
					: new JmxPeerClient(this.settings, this.time, JmxPeerClient.DEFAULT_MAX_PENDING_PER_PEER, builder.peerTls);
			this.mbeanServer = builder.mbeanServer;
			List<String> standalone = this.clusters.values().stream().filter(ClusterRuntime::isStandalone).map((c) -> c.definition.id()).toList();
			if (!standalone.isEmpty()) {
				logger.warn("No peers are configured for polling: this instance runs standalone and is granted every poll of {}. "
						+ "Configure the peers for a cluster of several instances.", standalone);
			}
			registerMBeans();
		}
		catch (RuntimeException | Error ex) {
			if (this.stopDetector != null) {
				this.stopDetector.close(); // no heartbeat thread left behind by a manager that was never built
			}
			throw ex;
		}
	}

	/**
	 * Whether a stop of this JVM can let a peer take the cluster over while this instance still
	 * believes it holds it: a cluster decided by JMX peers. Under {@code proceed} a peer counts an
	 * unreachable holder as idle after the peer timeout; under {@code presume-last-known} a peer that
	 * never had an answer from this holder (restarted meanwhile) presumes nothing either (chaos run 12:
	 * 4 two-holder periods right after a SIGCONT). A database coordinator waits the failover period
	 * in database time, by which the hold has lapsed here too.
	 */
	private boolean isStopSensitive(@Nullable ClusterCoordinator coordinator) {
		return coordinator == null && !this.peers.isEmpty();
	}

	/**
	 * A gap this long counts as a stop: the peer timeout (a shorter stop cannot have let a peer take
	 * over: its request would have been answered), but at least one second, so that scheduling hiccups
	 * on a loaded machine do not hand clusters over.
	 */
	private Duration stopThreshold() {
		Duration timeout = this.settings.peerTimeout();
		return (timeout.compareTo(MIN_STOP_THRESHOLD) < 0) ? MIN_STOP_THRESHOLD : timeout;
	}

	/**
	 * Whether this JVM resumed from a stop less than twice the peer timeout ago (and the cluster is
	 * one a stop matters for): it does not acquire the cluster yet.
	 */
	private boolean justStopped(ClusterRuntime c) {
		StopDetector stops = this.stopDetector;
		return c.stopSensitive && stops != null && stops.stoppedWithin(this.settings.peerTimeout().multipliedBy(2));
	}

	/** The stop detector, null when no cluster needs one; for tests of what follows a stop. */
	@Nullable StopDetector stopDetector() {
		return this.stopDetector;
	}

	/** Called once per detected stop of this JVM: the holds granted before it are void. */
	private void onStopped(long gapNanos) {
		Map<String, ClusterRuntime> all = this.clusters;
		if (all == null) {
			return;
		}
		List<String> released = new ArrayList<>();
		for (ClusterRuntime c : all.values()) {
			if (c.held && !c.state.isHolding()) {
				released.add(c.definition.id());
				updateHeld(c, false);
			}
		}
		logger.warn("This instance ({}) did not run for {} ms (stopped, suspended or paused longer than the peer timeout of {} ms): "
				+ "peers may have taken over, so it lets go of {} and competes anew at the next decision", this.settings.instanceId(),
				gapNanos / 1_000_000L, this.settings.peerTimeout().toMillis(), released.isEmpty() ? "no cluster" : released);
	}

	private void validate(Builder builder) {
		if (builder.clusters.isEmpty()) {
			throw new IllegalArgumentException("No polling clusters are defined; define at least one cluster");
		}
		for (String clusterId : builder.coordinators.keySet()) {
			if (!builder.clusters.containsKey(clusterId)) {
				throw new IllegalArgumentException("A coordinator is given for unknown cluster '" + clusterId + "'; known clusters: "
						+ builder.clusters.keySet());
			}
		}
		Map<String, String> addresses = new LinkedHashMap<>();
		for (PeerDefinition peer : builder.peers.values()) {
			String address = peer.address().toLowerCase(java.util.Locale.ROOT);
			String other = addresses.putIfAbsent(address, peer.id());
			if (other != null) {
				throw new IllegalArgumentException("Peers '" + other + "' and '" + peer.id() + "' have the same address "
						+ peer.address() + "; remove one of them or fix its address");
			}
		}
		for (ClusterDefinition cluster : builder.clusters.values()) {
			for (String peerId : cluster.peerIds()) {
				if (!builder.peers.containsKey(peerId)) {
					throw new IllegalArgumentException("Cluster '" + cluster.id() + "' names unknown peer '" + peerId
							+ "'; known peers: " + builder.peers.keySet() + ". Define the peer or remove it from the cluster");
				}
			}
			if (this.settings.peerTimeout().multipliedBy(2).compareTo(cluster.waitTime()) >= 0) {
				throw new IllegalArgumentException("Peer timeout " + this.settings.peerTimeout().toMillis()
						+ " ms is not shorter than half the wait time of cluster '" + cluster.id() + "' ("
						+ cluster.waitTime().toMillis() + " ms); lower the peer timeout or raise the wait time");
			}
		}
	}

	public static Builder builder() {
		return new Builder();
	}

	// ---------------------------------------------------------------- the seed's API

	/** Whether this instance may poll the cluster now (seed: {@code startePolling}). */
	public boolean tryStartPolling(String clusterId) {
		return decide(clusterId).isGranted();
	}

	/**
	 * Records polling activity (seed: {@code aktualisiereZeitpunktLetztePollingAktivitaet}): extends
	 * this instance's hold. Activity extends a hold, it never creates one, so a call on an instance
	 * that was not granted the cluster (or whose hold lapsed) changes nothing and returns false. No I/O,
	 * no lock.
	 * @return whether this instance holds the cluster and its hold was extended
	 */
	public boolean recordActivity(String clusterId) {
		return runtime(clusterId).state.recordActivity();
	}

	/** This instance's last activity (seed: {@code getZeitpunktLetztePollingAktivitaet}); empty when never or released. */
	public Optional<Instant> lastActivity(String clusterId) {
		long elapsed = runtime(clusterId).state.elapsedMillis();
		return (elapsed == Long.MAX_VALUE) ? Optional.empty() : Optional.of(this.time.now().minusMillis(elapsed));
	}

	// ---------------------------------------------------------------- the decision

	/**
	 * Decides whether this instance may poll the cluster now, asking the peers. Returns within about
	 * twice the peer timeout plus the settle time, whatever the peers do; never throws for a peer's
	 * fault.
	 * @throws UnknownClusterException if the cluster is not defined
	 */
	public Decision decide(String clusterId) {
		return decide(runtime(clusterId));
	}

	private Decision decide(ClusterRuntime c) {
		long start = this.time.nanoTime();
		c.decisionLock.lock();
		try {
			Decision decision = decideLocked(c, start);
			c.lastDecision = decision;
			afterDecision(c, decision);
			return decision;
		}
		finally {
			c.decisionLock.unlock();
		}
	}

	private Decision decideLocked(ClusterRuntime c, long start) {
		if (this.closed) {
			return decision(c, Reason.CLOSED, List.of(), start);
		}
		if (c.state.isPaused()) {
			// a paused JMX cluster still asks the peers: presume-last-known judges a peer that falls silent
			// by its latest answer, and after resume that answer must not be the one from before the pause
			// (which showed the peer idle, not holding the cluster this instance left to it)
			return decision(c, Reason.PAUSED, (c.coordinator != null) ? List.of() : observePeers(c), start);
		}
		if (c.coordinator != null) {
			return decideByCoordinator(c, c.coordinator, start);
		}
		if (c.peers.isEmpty()) {
			if (!c.state.recordActivity()) {
				c.state.grant();
			}
			return decision(c, Reason.STANDALONE, List.of(), start);
		}

		// Holder: extend first, then check that no peer with precedence holds too.
		if (c.state.renewIfHolding(RENEWAL_MARGIN.toNanos())) {
			List<PeerObservation> observations = observePeers(c);
			if (!c.state.isHolding()) {
				// this JVM was stopped while it asked (the hold is void) or the cluster was released meanwhile
				return decision(c, c.state.isPaused() ? Reason.PAUSED : Reason.STOPPED, observations, start);
			}
			for (PeerObservation o : observations) {
				if (isHolding(c, o) && o.state() == PeerState.ANSWERED && precedes(o.instanceId())) {
					c.state.release();
					logger.warn("Cluster '{}': peer {} ({}) holds it too and has precedence; this instance lets go",
							c.definition.id(), o.peerId(), o.instanceId());
					return decision(c, Reason.YIELDED_TO_PEER, observations, start);
				}
			}
			PeerObservation lighter = this.balanceClusters ? lighterPeer(observations) : null;
			if (lighter != null) {
				long now = this.time.nanoTime();
				c.state.release();
				c.handoverUntil = now + c.definition.waitTime().toNanos();
				this.nextHandover = now + c.definition.waitTime().toNanos() / 2;
				logger.info("Cluster '{}': handed over to balance the clusters (this instance held {}, peer '{}' holds {})",
						c.definition.id(), heldClusters() + 1, lighter.peerId(), lighter.heldClusters());
				return decision(c, Reason.HANDED_OVER, observations, start);
			}
			return decision(c, Reason.RENEWED, observations, start);
		}
		if (this.time.nanoTime() - c.handoverUntil < 0) {
			// still ask the peers while holding off: presume-last-known judges a peer that falls silent by
			// the latest answer, and the peer that took the cluster over must be known as its holder (without
			// this, a holder frozen during the hold-off was judged by a pre-handover answer and taken over
			// within seconds in the chaos run)
			return decision(c, Reason.HANDED_OVER, observePeers(c), start);
		}

		// Candidate, first round: refuse cheaply while anybody holds or acquires.
		List<PeerObservation> first = observePeers(c);
		if (justStopped(c)) {
			// just resumed from a stop: requests that were under way during it report peers as unknown
			// (timed out, still pending) because this JVM did not run, and proceed would count them idle;
			// seen in the chaos run: a resumed instance took a cluster 60 ms after SIGCONT while its peer held it
			return decision(c, Reason.STOPPED, first, start);
		}
		Reason refusal = refusalBeforeAnnouncing(c, first);
		if (refusal != null) {
			return decision(c, refusal, first, start);
		}
		if (this.balanceClusters && c.deferrals < MAX_DEFERRALS && hasLighterPeer(first)) {
			c.deferrals++;
			return decision(c, Reason.LEFT_TO_LIGHTER_PEER, first, start);
		}
		if (this.settings.grantProtocol() == GrantProtocol.CHECK_THEN_ACT) {
			c.state.grant();
			return decision(c, Reason.NO_ACTIVE_PEER, first, start);
		}

		// Announce, settle, ask again. Peers whose state was unknown in the first round are not asked
		// again (the policy already covers them); without any answering peer there is nobody to race.
		long announced = c.state.announce();
		boolean granted = false;
		try {
			boolean anyAnswered = first.stream().anyMatch((o) -> o.state() == PeerState.ANSWERED);
			long settleNanos = anyAnswered ? this.settings.settleTime().toNanos() : 0;
			if (settleNanos > 0) {
				TimeUnit.NANOSECONDS.sleep(settleNanos);
			}
			long ownAgeMillis = (this.time.nanoTime() - announced) / 1_000_000L;
			List<PeerObservation> second = observePeers(c, first);
			refusal = refusalAfterSettling(c, second, ownAgeMillis);
			if (refusal == null && this.time.nanoTime() - announced > maxCandidateAgeNanos()) {
				refusal = Reason.DECISION_TOO_SLOW;
			}
			if (refusal != null) {
				return decision(c, refusal, second, start);
			}
			c.state.grant();
			granted = true;
			return decision(c, Reason.NO_ACTIVE_PEER, second, start);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return decision(c, Reason.INTERRUPTED, List.of(), start);
		}
		finally {
			if (!granted) {
				c.state.withdraw();
			}
		}
	}

	/** The cluster is decided by a shared system (a database row) instead of the peers. */
	private Decision decideByCoordinator(ClusterRuntime c, ClusterCoordinator coordinator, long start) {
		long before = this.time.nanoTime();
		ClusterCoordinator.Claim claim = acquireWithin(c, coordinator, coordinatorBound());
		Duration latency = Duration.ofNanos(this.time.nanoTime() - before);
		PeerObservation observation = claim.isUnavailable()
				? new PeerObservation("coordinator", coordinator.describe(), PeerState.ERROR, PeerFault.IO, null, PeerObservation.NEVER, -1,
						latency, this.time.now(), claim.failure())
				: new PeerObservation("coordinator", coordinator.describe(), PeerState.ANSWERED, PeerFault.NONE, claim.holder(),
						(claim.holderAgeMillis() < 0) ? PeerObservation.NEVER : claim.holderAgeMillis(), -1, latency, this.time.now(),
						"epoch " + claim.epoch());
		List<PeerObservation> observations = List.of(observation);
		if (claim.granted()) {
			if (!c.state.recordActivity()) {
				c.state.grant();
			}
			c.epoch = claim.epoch();
			return decision(c, claim.renewed() ? Reason.RENEWED : Reason.NO_ACTIVE_PEER, observations, start);
		}
		c.state.release();
		return decision(c, claim.isUnavailable() ? Reason.COORDINATION_UNAVAILABLE : Reason.PEER_ACTIVE, observations, start);
	}

	/**
	 * How long a decision waits for the coordinator: twice the peer timeout, as a decision by the
	 * peers (the coordinator's own lock timeout is the peer timeout in the starter, so a decision that
	 * waited for a row lock still has a peer timeout for the connection and the rest).
	 */
	private Duration coordinatorBound() {
		return this.settings.peerTimeout().multipliedBy(2);
	}

	/**
	 * Asks the coordinator on a thread of its own and waits at most the bound. A database that does
	 * not answer (pool exhausted, network gone: a connection pool waits its whole connection timeout,
	 * 30 s by default, and a blackholed socket longer) must not stall the decision, the timer thread
	 * running it and every task behind it. While an earlier request for the cluster is still pending
	 * the decision is refused at once instead of piling up threads; a late grant is not acted on (the
	 * next decision renews it, and until then nobody else takes the row before the failover period).
	 */
	private ClusterCoordinator.Claim acquireWithin(ClusterRuntime c, ClusterCoordinator coordinator, Duration bound) {
		CompletableFuture<ClusterCoordinator.Claim> call;
		synchronized (c) {
			if (!c.coordinatorCall.isDone()) {
				return ClusterCoordinator.Claim.unavailable("an earlier request to " + coordinator.describe() + " has been pending for "
						+ (this.time.nanoTime() - c.coordinatorCallSince) / 1_000_000L + " ms");
			}
			try {
				call = CompletableFuture.supplyAsync(() -> coordinator.acquire(c.definition, this.settings.instanceId()),
						this.coordinatorCalls);
			}
			catch (RejectedExecutionException ex) {
				return ClusterCoordinator.Claim.unavailable("the polling manager is closed");
			}
			c.coordinatorCall = call;
			c.coordinatorCallSince = this.time.nanoTime();
		}
		try {
			ClusterCoordinator.Claim claim = call.get(bound.toNanos(), TimeUnit.NANOSECONDS);
			if (c.coordinatorSlow) {
				c.coordinatorSlow = false;
				logger.info("Cluster '{}': {} answers again", c.definition.id(), coordinator.describe());
			}
			return claim;
		}
		catch (TimeoutException ex) {
			String failure = "no answer from " + coordinator.describe() + " within " + bound.toMillis()
					+ " ms (twice the peer timeout); is the database reachable, is the connection pool exhausted?";
			if (!c.coordinatorSlow) {
				c.coordinatorSlow = true;
				logger.warn("Cluster '{}': {}; refusing until it answers", c.definition.id(), failure);
			}
			return ClusterCoordinator.Claim.unavailable(failure);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return ClusterCoordinator.Claim.unavailable("interrupted while waiting for " + coordinator.describe());
		}
		catch (ExecutionException ex) {
			// the coordinator answers faults of the shared system itself; what reaches here is a bug or bad input
			Throwable cause = ex.getCause();
			if (cause instanceof RuntimeException runtime) {
				throw runtime;
			}
			if (cause instanceof Error error) {
				throw error;
			}
			throw new IllegalStateException(cause);
		}
	}

	private @Nullable Reason refusalBeforeAnnouncing(ClusterRuntime c, List<PeerObservation> observations) {
		for (PeerObservation o : observations) {
			if (isHolding(c, o)) {
				return (o.state() == PeerState.ANSWERED) ? Reason.PEER_ACTIVE : Reason.PEER_PRESUMED_ACTIVE;
			}
		}
		if (this.settings.grantProtocol() == GrantProtocol.ANNOUNCE) {
			for (PeerObservation o : observations) {
				if (isLiveCandidate(o)) {
					return Reason.PEER_CANDIDATE;
				}
			}
		}
		return null;
	}

	private @Nullable Reason refusalAfterSettling(ClusterRuntime c, List<PeerObservation> observations, long ownAgeMillis) {
		long clearlyOlderMillis = this.settings.settleTime().toMillis() / 2;
		for (PeerObservation o : observations) {
			if (isHolding(c, o)) {
				return (o.state() == PeerState.ANSWERED) ? Reason.PEER_ACTIVE : Reason.PEER_PRESUMED_ACTIVE;
			}
		}
		for (PeerObservation o : observations) {
			if (isLiveCandidate(o) && (o.candidateAgeMillis() - ownAgeMillis > clearlyOlderMillis || precedes(o.instanceId()))) {
				return Reason.PEER_CANDIDATE;
			}
		}
		return null;
	}

	/**
	 * A peer that answered and holds at least two clusters fewer than this instance, if handing one
	 * over is due (at most one handover per half wait time).
	 */
	private @Nullable PeerObservation lighterPeer(List<PeerObservation> observations) {
		if (this.time.nanoTime() - this.nextHandover < 0) {
			return null;
		}
		int mine = heldClusters();
		PeerObservation lightest = null;
		for (PeerObservation o : observations) {
			if (o.state() == PeerState.ANSWERED && o.heldClusters() >= 0
					&& (lightest == null || o.heldClusters() < lightest.heldClusters())) {
				lightest = o;
			}
		}
		return (lightest != null && lightest.heldClusters() <= mine - 2) ? lightest : null;
	}

	/** Whether a peer that answered holds fewer clusters than this instance. */
	private boolean hasLighterPeer(List<PeerObservation> observations) {
		int mine = heldClusters();
		return observations.stream().anyMatch((o) -> o.state() == PeerState.ANSWERED && o.heldClusters() >= 0 && o.heldClusters() < mine);
	}

	/** How many clusters this instance holds. */
	private int heldClusters() {
		int held = 0;
		for (ClusterRuntime c : this.clusters.values()) {
			if (c.state.isHolding()) {
				held++;
			}
		}
		return held;
	}

	/** Whether a peer with this instance id wins a tie against this instance. */
	private boolean precedes(@Nullable String peerInstanceId) {
		return peerInstanceId != null && peerInstanceId.compareTo(this.settings.instanceId()) < 0;
	}

	private boolean isLiveCandidate(PeerObservation o) {
		return o.isCandidate() && o.candidateAgeMillis() <= maxCandidateAgeNanos() / 1_000_000L;
	}

	/** Longest a decision can legitimately take: two rounds and the settle time, plus a margin. */
	private long maxCandidateAgeNanos() {
		return this.settings.peerTimeout().multipliedBy(2).plus(this.settings.settleTime()).plusMillis(500).toNanos();
	}

	/** Whether the observation counts as a holding peer, applying the unreachable-peer policy. */
	private boolean isHolding(ClusterRuntime c, PeerObservation o) {
		Duration wait = c.definition.waitTime();
		if (o.state() == PeerState.ANSWERED) {
			return o.isHolding(wait);
		}
		if (o.state().isUnknown() && this.settings.unreachablePeerPolicy() == UnreachablePeerPolicy.PRESUME_LAST_KNOWN) {
			LastAnswer last = c.lastAnswers.get(o.peerId());
			if (last == null || !last.observation.isHolding(wait)) {
				return false;
			}
			// the silence counts from when this instance first saw it (its first unknown observation after
			// the last answer), not from the last answer: if this instance was itself stalled (a GC pause, a
			// frozen JVM) its last answer is old although the peer answered the others all along
			Long silentSince = c.silentSince.get(o.peerId());
			long since = (silentSince != null) ? silentSince : this.time.nanoTime();
			return this.time.nanoTime() - since < wait.toNanos();
		}
		return false;
	}

	// ---------------------------------------------------------------- asking the peers

	private List<PeerObservation> observePeers(ClusterRuntime c) {
		return observePeers(c, null);
	}

	/**
	 * Asks every peer of the cluster in parallel and waits at most the peer timeout in total. Peers
	 * whose previous observation in this decision was unknown are not asked again.
	 */
	private List<PeerObservation> observePeers(ClusterRuntime c, @Nullable List<PeerObservation> previous) {
		Duration timeout = this.settings.peerTimeout();
		long deadline = this.time.nanoTime() + timeout.toNanos();
		List<CompletableFuture<PeerObservation>> futures = new ArrayList<>(c.peers.size());
		for (int i = 0; i < c.peers.size(); i++) {
			PeerDefinition peer = c.peers.get(i);
			if (previous != null && previous.get(i).state().isUnknown()) {
				futures.add(CompletableFuture.completedFuture(previous.get(i)));
			}
			else if (this.selfPeers.contains(peer.id())) {
				futures.add(CompletableFuture.completedFuture(new PeerObservation(peer.id(), peer.address(), PeerState.SELF,
						PeerFault.NONE, this.settings.instanceId(), PeerObservation.NEVER, -1, Duration.ZERO, this.time.now(), null)));
			}
			else {
				futures.add(this.peerClient.observe(peer, c.definition, timeout));
			}
		}
		List<PeerObservation> observations = new ArrayList<>(futures.size());
		boolean interrupted = false;
		for (int i = 0; i < futures.size(); i++) {
			PeerDefinition peer = c.peers.get(i);
			PeerObservation o;
			try {
				long remaining = Math.max(0, deadline - this.time.nanoTime());
				o = interrupted ? futures.get(i).getNow(null) : futures.get(i).get(remaining, TimeUnit.NANOSECONDS);
				if (o == null) {
					o = timedOut(peer, timeout);
				}
			}
			catch (TimeoutException ex) {
				o = timedOut(peer, timeout);
			}
			catch (InterruptedException ex) {
				interrupted = true;
				o = timedOut(peer, timeout);
			}
			catch (ExecutionException ex) {
				o = PeerObservation.failed(peer, PeerState.ERROR, PeerFault.IO, timeout, this.time.now(),
						"peer client failed: " + ex.getCause());
			}
			boolean reused = previous != null && previous.get(i) == o;
			observations.add(reused ? o : recognise(c, o));
		}
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
		return observations;
	}

	private PeerObservation timedOut(PeerDefinition peer, Duration timeout) {
		return PeerObservation.failed(peer, PeerState.UNRESPONSIVE, PeerFault.TIMEOUT, timeout, this.time.now(),
				"no answer within " + timeout.toMillis() + " ms");
	}

	/** Marks this instance itself, remembers answers for the policy, logs state changes once. */
	private PeerObservation recognise(ClusterRuntime c, PeerObservation o) {
		if (o.state() == PeerState.ANSWERED && this.settings.instanceId().equals(o.instanceId())) {
			if (this.selfPeers.add(o.peerId())) {
				logger.info("Peer '{}' ({}) is this instance ({}); it is skipped from now on", o.peerId(), o.address(),
						this.settings.instanceId());
			}
			o = new PeerObservation(o.peerId(), o.address(), PeerState.SELF, PeerFault.NONE, o.instanceId(), PeerObservation.NEVER, -1,
					o.latency(), o.observedAt(), null);
		}
		if (o.state() == PeerState.ANSWERED) {
			c.lastAnswers.put(o.peerId(), new LastAnswer(o, this.time.nanoTime()));
			c.silentSince.remove(o.peerId());
		}
		else if (o.state().isUnknown()) {
			c.silentSince.putIfAbsent(o.peerId(), this.time.nanoTime());
		}
		c.lastObservations.put(o.peerId(), o);
		PeerObservation previous = c.loggedStates.put(o.peerId(), o);
		if (previous == null || previous.state() != o.state() || previous.fault() != o.fault()) {
			logStateChange(c, previous, o);
		}
		try {
			this.listener.onPeerObservation(c.definition.id(), o);
		}
		catch (RuntimeException ex) {
			logger.debug("Polling listener failed on peer observation", ex);
		}
		return o;
	}

	private void logStateChange(ClusterRuntime c, @Nullable PeerObservation previous, PeerObservation o) {
		String was = (previous != null) ? previous.state() + (previous.fault() != PeerFault.NONE ? "/" + previous.fault() : "") : "unknown";
		switch (o.state()) {
			case ANSWERED, SELF -> {
				if (previous != null && previous.state() != PeerState.ANSWERED && previous.state() != PeerState.SELF) {
					logger.info("Cluster '{}': peer '{}' ({}) answers again (was {})", c.definition.id(), o.peerId(), o.address(), was);
				}
			}
			case REFUSED -> logger.info("Cluster '{}': peer '{}' ({}) refuses connections; counted as gone (was {})",
					c.definition.id(), o.peerId(), o.address(), was);
			default -> logger.warn("Cluster '{}': peer '{}' ({}) is {}/{}: {}; policy {} applies (was {})", c.definition.id(),
					o.peerId(), o.address(), o.state(), o.fault(), o.detail(), this.settings.unreachablePeerPolicy(), was);
		}
	}

	// ---------------------------------------------------------------- cycles, pause, release

	/**
	 * Runs one polling cycle: decides, runs the task only when granted, and records activity at its
	 * end (also when it throws). A second cycle of the same cluster in this instance is refused with
	 * {@link Reason#LOCAL_CYCLE_RUNNING} while one runs, without asking the peers.
	 * @return the decision
	 * @throws E what the task throws
	 */
	public <E extends Exception> Decision runIfGranted(String clusterId, CycleTask<E> task) throws E {
		ClusterRuntime c = runtime(clusterId);
		long start = this.time.nanoTime();
		if (!c.cycleLock.tryLock()) {
			Decision refused = decision(c, Reason.LOCAL_CYCLE_RUNNING, List.of(), start);
			afterDecision(c, refused);
			return refused;
		}
		try {
			Decision decision = decide(c);
			if (decision.isGranted()) {
				try {
					task.run();
				}
				finally {
					c.state.recordActivity();
				}
			}
			return decision;
		}
		finally {
			c.cycleLock.unlock();
		}
	}

	/** Whether a cycle of the cluster runs in this instance now. */
	public boolean isCycleRunning(String clusterId) {
		return runtime(clusterId).cycleLock.isLocked();
	}

	/** Whether this instance holds the cluster: granted, activity younger than the wait time, not paused. */
	public boolean isHolding(String clusterId) {
		return runtime(clusterId).state.isHolding();
	}

	/**
	 * Pauses the cluster on this instance: it reports "never" at once (so a peer takes over at its
	 * next tick) and is refused until {@link #resume(String)}.
	 */
	public void pause(String clusterId) {
		ClusterRuntime c = runtime(clusterId);
		c.state.pause();
		releaseCoordinatedWithin(c, this.settings.peerTimeout());
		logger.info("Cluster '{}' paused on this instance; a peer can take over at its next tick", clusterId);
		updateHeld(c, false);
	}

	/** Resumes a paused cluster; the next decision competes normally. */
	public void resume(String clusterId) {
		runtime(clusterId).state.resume();
		logger.info("Cluster '{}' resumed on this instance", clusterId);
	}

	public boolean isPaused(String clusterId) {
		return runtime(clusterId).state.isPaused();
	}

	/** Lets go of the cluster now (reports "never") without pausing it. */
	public void release(String clusterId) {
		ClusterRuntime c = runtime(clusterId);
		c.state.release();
		releaseCoordinatedWithin(c, this.settings.peerTimeout());
		updateHeld(c, false);
	}

	/**
	 * Releases a coordinated cluster in the database, waiting at most the bound: the database may be
	 * unreachable, and a connection pool waits its whole connection timeout (30 s by default). The
	 * release runs after any request still pending for the cluster (so a late acquisition cannot
	 * undo it). A release not confirmed in time only means that a peer takes over after the failover
	 * period.
	 */
	private void releaseCoordinatedWithin(ClusterRuntime c, Duration bound) {
		ClusterCoordinator coordinator = c.coordinator;
		if (coordinator == null) {
			return;
		}
		CompletableFuture<?> call;
		synchronized (c) {
			CompletableFuture<?> previous = c.coordinatorCall;
			try {
				// on a thread of its own that first waits for the pending request: chaining on its completion
				// could run the release on this thread, or not at all once the manager is closed
				call = CompletableFuture.runAsync(() -> {
					previous.handle((result, failure) -> null).join();
					coordinator.release(c.definition, this.settings.instanceId());
				}, this.coordinatorCalls);
			}
			catch (RejectedExecutionException ex) {
				return;
			}
			c.coordinatorCall = call;
			c.coordinatorCallSince = this.time.nanoTime();
		}
		try {
			call.get(Math.max(1, bound.toMillis()), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | TimeoutException ex) {
			logger.warn("Cluster '{}': {} did not confirm the release within {} ms ({}); a peer takes over after the failover period",
					c.definition.id(), coordinator.describe(), bound.toMillis(),
					(ex instanceof TimeoutException) ? "no answer" : String.valueOf(ex.getCause()));
		}
	}

	/**
	 * The fencing token of a cluster decided by a {@link ClusterCoordinator}: the epoch of this
	 * instance's latest grant, which grows whenever the holder changes. Pass it to writes that must
	 * be rejected once another instance has taken over. Empty for JMX-coordinated clusters and before
	 * the first grant.
	 */
	public java.util.OptionalLong fencingToken(String clusterId) {
		long epoch = runtime(clusterId).epoch;
		return (epoch < 0) ? java.util.OptionalLong.empty() : java.util.OptionalLong.of(epoch);
	}

	/** Releases every cluster, unregisters the MBeans and closes the connections to the peers. */
	@Override
	public void close() {
		if (this.closed) {
			return;
		}
		this.closed = true;
		Duration bound = this.settings.peerTimeout();
		for (ClusterRuntime c : this.clusters.values()) {
			boolean locked = false;
			try {
				// a decision stuck on an unreachable coordinator must not hold up the shutdown
				locked = c.decisionLock.tryLock(bound.toMillis(), TimeUnit.MILLISECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			try {
				c.state.release();
				releaseCoordinatedWithin(c, bound);
				updateHeld(c, false);
			}
			finally {
				if (locked) {
					c.decisionLock.unlock();
				}
			}
		}
		unregisterMBeans();
		if (this.stopDetector != null) {
			this.stopDetector.close();
		}
		// requests still waiting for the database finish on their own (a release then still lands)
		this.coordinatorCalls.shutdown();
		if (this.ownsPeerClient) {
			this.peerClient.close();
		}
	}

	// ---------------------------------------------------------------- status

	public PollingSettings settings() {
		return this.settings;
	}

	public Set<String> clusterIds() {
		return this.clusters.keySet();
	}

	public ClusterDefinition cluster(String clusterId) {
		return runtime(clusterId).definition;
	}

	public Map<String, PeerDefinition> peers() {
		return this.peers;
	}

	/** Whether no peers are configured and no cluster has a coordinator, so every decision is granted. */
	public boolean isStandalone() {
		return this.clusters.values().stream().allMatch(ClusterRuntime::isStandalone);
	}

	/** A snapshot of one cluster for endpoints and health. */
	public ClusterStatus status(String clusterId) {
		ClusterRuntime c = runtime(clusterId);
		long elapsed = c.state.elapsedMillis();
		List<PeerObservation> peerStates = new ArrayList<>();
		for (PeerDefinition peer : c.peers) {
			PeerObservation o = c.lastObservations.get(peer.id());
			if (o != null) {
				peerStates.add(o);
			}
		}
		return new ClusterStatus(c.definition, c.state.isHolding(), c.state.isPaused(), c.cycleLock.isLocked(),
				(elapsed == Long.MAX_VALUE) ? null : this.time.now().minusMillis(elapsed),
				(elapsed == Long.MAX_VALUE) ? null : Duration.ofMillis(elapsed), c.lastDecision,
				c.peers.stream().map(PeerDefinition::id).toList(), peerStates);
	}

	/** Snapshots of all clusters, in definition order. */
	public List<ClusterStatus> statuses() {
		return this.clusters.keySet().stream().map(this::status).toList();
	}

	// ---------------------------------------------------------------- internals

	private ClusterRuntime runtime(String clusterId) {
		Objects.requireNonNull(clusterId, "clusterId must not be null");
		ClusterRuntime c = this.clusters.get(clusterId);
		if (c == null) {
			throw new UnknownClusterException(clusterId, this.clusters.keySet());
		}
		return c;
	}

	private Decision decision(ClusterRuntime c, Reason reason, List<PeerObservation> observations, long start) {
		return new Decision(c.definition.id(), reason.outcome(), reason, observations,
				Duration.ofNanos(this.time.nanoTime() - start), this.time.now());
	}

	private void afterDecision(ClusterRuntime c, Decision decision) {
		if (decision.reason() != Reason.LEFT_TO_LIGHTER_PEER && decision.reason() != Reason.LOCAL_CYCLE_RUNNING) {
			c.deferrals = 0;
		}
		if (decision.reason() == Reason.PEER_ACTIVE || decision.reason() == Reason.PEER_PRESUMED_ACTIVE
				|| decision.reason() == Reason.YIELDED_TO_PEER) {
			c.peerHeldSince = true;
		}
		if (decision.reason() != Reason.LOCAL_CYCLE_RUNNING) {
			updateHeld(c, c.state.isHolding());
		}
		try {
			this.listener.onDecision(decision);
		}
		catch (RuntimeException ex) {
			logger.debug("Polling listener failed on decision", ex);
		}
	}

	private void updateHeld(ClusterRuntime c, boolean holding) {
		boolean was = c.held;
		if (was == holding) {
			return;
		}
		c.held = holding;
		boolean takeover = holding && c.peerHeldSince;
		if (holding) {
			c.peerHeldSince = false;
			logger.info("This instance ({}) now holds cluster '{}'{}", this.settings.instanceId(), c.definition.id(),
					takeover ? ", taking over from a peer" : "");
		}
		else {
			logger.info("This instance ({}) no longer holds cluster '{}'", this.settings.instanceId(), c.definition.id());
		}
		try {
			this.listener.onHoldChanged(c.definition.id(), holding, takeover);
		}
		catch (RuntimeException ex) {
			logger.debug("Polling listener failed on hold change", ex);
		}
	}

	private void registerMBeans() {
		if (this.mbeanServer == null) {
			return;
		}
		for (ClusterRuntime c : this.clusters.values()) {
			JmxContract contract = this.settings.jmxContract();
			ObjectName name = contract.objectName(this.settings.jmxDomain(), c.definition);
			try {
				if (this.mbeanServer.isRegistered(name)) {
					this.mbeanServer.unregisterMBean(name);
					logger.warn("Replaced an MBean already registered as {}", name);
				}
				this.mbeanServer.registerMBean(mbean(contract, new ClusterMBean(c)), name);
				this.registeredMBeans.add(name);
			}
			catch (Exception ex) {
				unregisterMBeans();
				throw new IllegalStateException("Could not register the polling MBean " + name + ": " + ex.getMessage(), ex);
			}
		}
	}

	/** The MBean with exactly the contract's management interface (no isy-polling attributes in the native one). */
	private static <T extends PollingClusterMXBean> StandardMBean mbean(JmxContract contract, ClusterMBean mbean) {
		@SuppressWarnings("unchecked")
		Class<T> type = (Class<T>) contract.mbeanInterface();
		return new StandardMBean(type.cast(mbean), type, true);
	}

	private void unregisterMBeans() {
		if (this.mbeanServer == null) {
			return;
		}
		for (ObjectName name : this.registeredMBeans) {
			try {
				if (this.mbeanServer.isRegistered(name)) {
					this.mbeanServer.unregisterMBean(name);
				}
			}
			catch (Exception ex) {
				logger.debug("Could not unregister {}", name, ex);
			}
		}
		this.registeredMBeans.clear();
	}

	/** A task run by {@link #runIfGranted(String, CycleTask)}. */
	@FunctionalInterface
	public interface CycleTask<E extends Exception> {

		void run() throws E;

	}

	private record LastAnswer(PeerObservation observation, long nanos) {
	}

	private static final class ClusterRuntime {

		final ClusterDefinition definition;

		final List<PeerDefinition> peers;

		final ClusterState state;

		final ReentrantLock decisionLock = new ReentrantLock();

		final ReentrantLock cycleLock = new ReentrantLock();

		final Map<String, LastAnswer> lastAnswers = new ConcurrentHashMap<>();

		/** Per peer, when this instance first found it unknown after its last answer (monotonic nanos). */
		final Map<String, Long> silentSince = new ConcurrentHashMap<>();

		final Map<String, PeerObservation> lastObservations = new ConcurrentHashMap<>();

		final Map<String, PeerObservation> loggedStates = new ConcurrentHashMap<>();

		final @Nullable ClusterCoordinator coordinator;

		volatile @Nullable Decision lastDecision;

		volatile boolean held;

		/** The latest request to the coordinator (guarded by this runtime); one at a time. */
		CompletableFuture<?> coordinatorCall = CompletableFuture.completedFuture(null);

		/** When the latest request to the coordinator started (monotonic nanos). */
		long coordinatorCallSince;

		/** Whether the coordinator's latest answer missed the bound (logged once per outage). */
		volatile boolean coordinatorSlow;

		/** Whether a stop of this JVM voids the hold (see {@link StopDetector}). */
		final boolean stopSensitive;

		/** Fencing token of the latest grant by the coordinator, -1 when none. */
		volatile long epoch = -1;

		/** Until when this instance holds back from the cluster after handing it over (monotonic nanos). */
		volatile long handoverUntil;

		/** Decisions in a row that left the free cluster to a peer holding fewer clusters. */
		volatile int deferrals;

		/** Whether a peer was seen holding since this instance last held: the next acquisition is a takeover. */
		volatile boolean peerHeldSince;

		ClusterRuntime(ClusterDefinition definition, List<PeerDefinition> peers, ClusterState state,
				@Nullable ClusterCoordinator coordinator, boolean stopSensitive) {
			this.definition = definition;
			this.peers = List.copyOf(peers);
			this.state = state;
			this.coordinator = coordinator;
			this.stopSensitive = stopSensitive;
		}

		boolean isStandalone() {
			return this.peers.isEmpty() && this.coordinator == null;
		}

	}

	/** The MBean peers read; one per cluster. */
	private final class ClusterMBean implements IsyPollingStatusMXBean {

		private final ClusterRuntime c;

		ClusterMBean(ClusterRuntime c) {
			this.c = c;
		}

		@Override
		public String getClusterId() {
			return this.c.definition.id();
		}

		@Override
		public String getClusterName() {
			return this.c.definition.name();
		}

		@Override
		public String getInstanceId() {
			return PollingManager.this.settings.instanceId();
		}

		@Override
		public long getElapsedMillis() {
			return this.c.state.elapsedMillis();
		}

		@Override
		public long[] getCoordinationState() {
			long[] snapshot = this.c.state.snapshot();
			// paused here, or just resumed from a stop (does not acquire yet): takes no part in balancing this
			// cluster, so peers neither hand it over to this instance nor leave it free for it
			boolean outOfBalancing = this.c.state.isPaused() || justStopped(this.c);
			return new long[] { snapshot[0], snapshot[1], outOfBalancing ? -1 : heldClusters() };
		}

		@Override
		public String getLastActivity() {
			long elapsed = this.c.state.elapsedMillis();
			return (elapsed == Long.MAX_VALUE) ? "never" : PollingManager.this.time.now().minusMillis(elapsed).toString();
		}

		@Override
		public boolean isHolding() {
			return this.c.state.isHolding();
		}

		@Override
		public boolean isPaused() {
			return this.c.state.isPaused();
		}

		@Override
		public long getCandidateAgeMillis() {
			return this.c.state.candidateAgeMillis();
		}

		@Override
		public long getWaitTimeMillis() {
			return this.c.definition.waitTime().toMillis();
		}

		/**
		 * isy-polling peers read only this attribute and know no candidacy; while this instance is a
		 * candidate it reports 0 (just active), so that an isy-polling peer asking during the settle
		 * time is refused. Instances of ours read {@code ElapsedMillis} instead.
		 */
		@Override
		public long getZeitraumLetztePollingAktivitaet() {
			return (this.c.state.candidateAgeMillis() >= 0) ? 0 : this.c.state.elapsedMillis();
		}

		@Override
		public Date getZeitpunktLetztePollingAktivitaet() {
			long elapsed = this.c.state.elapsedMillis();
			return (elapsed == Long.MAX_VALUE) ? new Date(0) : Date.from(PollingManager.this.time.now().minusMillis(elapsed));
		}

	}

	/** Builds a {@link PollingManager}. */
	public static final class Builder {

		private PollingSettings settings = PollingSettings.defaults();

		private final Map<String, ClusterDefinition> clusters = new LinkedHashMap<>();

		private final Map<String, PeerDefinition> peers = new LinkedHashMap<>();

		private TimeSource time = TimeSource.SYSTEM;

		private PollingListener listener = PollingListener.NONE;

		private @Nullable MBeanServer mbeanServer;

		private @Nullable PeerClient peerClient;

		private final Map<String, ClusterCoordinator> coordinators = new LinkedHashMap<>();

		private final Map<String, javax.net.ssl.SSLContext> peerTls = new LinkedHashMap<>();

		private boolean balanceClusters;

		private Builder() {
		}

		/**
		 * Whether to spread clusters among the instances (seed: load distribution): a holder that
		 * holds at least two clusters more than a peer of the cluster it renews hands that cluster
		 * over (the peer takes it at its next tick) and holds back from it for one wait time; at most
		 * one handover per half wait time. JMX clusters only. Off by default.
		 */
		public Builder balanceClusters(boolean balanceClusters) {
			this.balanceClusters = balanceClusters;
			return this;
		}

		/**
		 * Talks to the peer over TLS with the given context (its trust store must trust the peer's
		 * certificate; its key material is presented when the peer requires client certificates).
		 */
		public Builder peerTls(String peerId, javax.net.ssl.SSLContext context) {
			this.peerTls.put(Objects.requireNonNull(peerId, "peerId must not be null"),
					Objects.requireNonNull(context, "context must not be null"));
			return this;
		}

		/**
		 * Decides the cluster through the coordinator (e.g. a database row) instead of asking the
		 * peers over JMX.
		 */
		public Builder coordinator(String clusterId, ClusterCoordinator coordinator) {
			this.coordinators.put(Objects.requireNonNull(clusterId, "clusterId must not be null"),
					Objects.requireNonNull(coordinator, "coordinator must not be null"));
			return this;
		}

		public Builder settings(PollingSettings settings) {
			this.settings = Objects.requireNonNull(settings, "settings must not be null");
			return this;
		}

		public Builder cluster(ClusterDefinition cluster) {
			Objects.requireNonNull(cluster, "cluster must not be null");
			if (this.clusters.putIfAbsent(cluster.id(), cluster) != null) {
				throw new IllegalArgumentException("Cluster '" + cluster.id() + "' is defined twice; cluster ids must be unique");
			}
			return this;
		}

		public Builder clusters(Collection<ClusterDefinition> clusters) {
			clusters.forEach(this::cluster);
			return this;
		}

		public Builder peer(PeerDefinition peer) {
			Objects.requireNonNull(peer, "peer must not be null");
			if (this.peers.putIfAbsent(peer.id(), peer) != null) {
				throw new IllegalArgumentException("Peer '" + peer.id() + "' is defined twice; peer ids must be unique");
			}
			return this;
		}

		public Builder peers(Collection<PeerDefinition> peers) {
			peers.forEach(this::peer);
			return this;
		}

		public Builder timeSource(TimeSource time) {
			this.time = Objects.requireNonNull(time, "time source must not be null");
			return this;
		}

		public Builder listener(PollingListener listener) {
			this.listener = Objects.requireNonNull(listener, "listener must not be null");
			return this;
		}

		/** Where the cluster MBeans are registered, usually the one a connector server serves; none if not set. */
		public Builder mbeanServer(@Nullable MBeanServer mbeanServer) {
			this.mbeanServer = mbeanServer;
			return this;
		}

		/** The transport to the peers; by default a {@link JmxPeerClient} owned (and closed) by the manager. */
		public Builder peerClient(@Nullable PeerClient peerClient) {
			this.peerClient = peerClient;
			return this;
		}

		public PollingManager build() {
			return new PollingManager(this);
		}

	}

}
