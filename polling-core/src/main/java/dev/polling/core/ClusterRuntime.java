package dev.polling.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.polling.core.Decision.Reason;

/**
 * One cluster in this instance: its hold, its peers or coordinator, its locks. Decisions of one
 * cluster run one at a time ({@link #decide()}); cycles too ({@link #runIfGranted}). Listeners are
 * called after the decision lock is released.
 */
final class ClusterRuntime {

	private static final Logger logger = LoggerFactory.getLogger(ClusterRuntime.class);

	private final ClusterDefinition definition;

	private final LocalInstance instance;

	private final HoldState state;

	private final PeerSurvey survey;

	private final @Nullable CoordinatedCluster coordinated;

	private final ReentrantLock decisionLock = new ReentrantLock();

	/** The span of the decision under way, read and written under the decision lock only. */
	private DecisionObserver.DecisionSpan span = DecisionObserver.DecisionSpan.NONE;

	private final ReentrantLock cycleLock = new ReentrantLock();

	private volatile @Nullable Decision lastDecision;

	/** What this instance remembers of the peers (written under the decision lock). */
	volatile Protocol.Memory memory = Protocol.Memory.EMPTY;

	/** Until when this instance holds back from the cluster after handing it over (monotonic nanos). */
	volatile long handoverUntil;

	/** An operator's hand-over waits for the running cycle: the hold-back starts when that cycle ends. */
	volatile boolean handOverPending;

	/** Errors about a peer already logged (disagreement, configuration fault), by peer: with when they were logged. */
	final Map<String, LoggedError> loggedErrors = new ConcurrentHashMap<>();

	/** An error logged about a peer, and when (monotonic nanos). */
	record LoggedError(String message, long at) {
	}

	/** Decisions in a row that left the free cluster to a peer holding fewer clusters. */
	volatile int deferrals;

	/** Guarded by this: whether the listener was last told that this instance holds the cluster. */
	private boolean held;

	/** Guarded by this: whether a peer was seen holding since this instance last held (the next acquisition is a takeover). */
	private boolean peerHeldSince;

	/** Whether a shutdown already released the coordinator's lock (closed: nothing acquires it again here). */
	private volatile boolean releasedForShutdown;

	/** When the running cycle's overrun was last reported (monotonic nanos), or {@link HoldState#NONE}. */
	private volatile long overrunReportedAt = HoldState.NONE;

	ClusterRuntime(ClusterDefinition definition, LocalInstance instance, List<PeerDefinition> peers,
			@Nullable ClusterCoordinator coordinator, boolean stopSensitive, @Nullable PeerDiscovery discovery) {
		this.definition = definition;
		this.instance = instance;
		long maxCycle = (definition.maxCycleTime() != null) ? definition.maxCycleTime().toNanos() : Long.MAX_VALUE;
		LongSupplier stops = (discovery != null) ? () -> instance.stops() + discovery.voids(instance.time().nanoTime()) : instance::stops;
		this.state = new HoldState(instance.time(), definition.waitTime().toNanos(), maxCycle, stopSensitive ? stops : () -> 0);
		this.survey = new PeerSurvey(instance, definition, (coordinator != null) ? List.of() : peers, discovery);
		this.coordinated = (coordinator != null) ? new CoordinatedCluster(this, coordinator) : null;
		this.handoverUntil = instance.time().nanoTime();
	}

	ClusterDefinition definition() {
		return this.definition;
	}

	String id() {
		return this.definition.id();
	}

	LocalInstance instance() {
		return this.instance;
	}

	HoldState state() {
		return this.state;
	}

	PeerSurvey survey() {
		return this.survey;
	}

	@Nullable CoordinatedCluster coordinated() {
		return this.coordinated;
	}

	@Nullable Decision lastDecision() {
		return this.lastDecision;
	}

	boolean isStandalone() {
		return this.survey.peers().isEmpty() && this.survey.discovery() == null && this.coordinated == null;
	}

	boolean isCycleRunning() {
		return this.cycleLock.isLocked();
	}

	// ---------------------------------------------------------------- deciding

	Decision decide() {
		long start = this.instance.time().nanoTime();
		List<PeerObservation> observed = new ArrayList<>();
		Decision decision;
		DecisionObserver.DecisionSpan span = this.instance.events().decisionStarting(id());
		this.decisionLock.lock();
		try {
			this.span = span;
			try {
				decision = decideLocked(start, observed);
			}
			catch (RuntimeException ex) {
				Events.failed(span, ex);
				throw ex;
			}
			Events.ended(span, decision);
			this.lastDecision = decision;
			if (decision.reason() != Reason.LEFT_TO_LIGHTER_PEER) {
				this.deferrals = 0;
			}
		}
		finally {
			this.span = DecisionObserver.DecisionSpan.NONE;
			this.decisionLock.unlock();
		}
		afterDecision(decision, observed);
		return decision;
	}

	private Decision decideLocked(long start, List<PeerObservation> observed) {
		if (this.state.isClosed()) {
			return decision(Reason.CLOSED, List.of(), start);
		}
		if (this.state.isPaused()) {
			// a paused JMX cluster still asks the peers: presume-last-known judges a peer that falls silent by its
			// latest answer, and after resume that answer must not be the one from before the pause
			return decision(Reason.PAUSED, (this.coordinated != null) ? List.of() : survey(this.survey.peers(), null, observed), start);
		}
		if (this.coordinated != null) {
			// never while a cycle runs: its decisions keep asking the coordinator, which keeps the row until the cycle ends
			if (!this.state.isHolding() && !isCycleRunning() && holdingBack()) {
				return decision(Reason.HANDED_OVER, List.of(), start);
			}
			return this.coordinated.decide(start);
		}
		if (isStandalone()) {
			if (!this.state.recordActivity()) {
				this.state.grantNow();
			}
			return decision(Reason.STANDALONE, List.of(), start);
		}
		return PeerDecider.decide(this, start, observed);
	}

	/**
	 * The runtimes of the clusters, each with the peers it asks (all, or those its definition names)
	 * and its coordinator if it has one; warns once about clusters that run standalone.
	 */
	static Map<String, ClusterRuntime> assemble(Collection<ClusterDefinition> definitions, Map<String, PeerDefinition> peers,
			Map<String, ClusterCoordinator> coordinators, LocalInstance instance, @Nullable PeerDiscovery discovery,
			List<ClusterDefinition> discovering) {
		Map<String, ClusterRuntime> runtimes = new LinkedHashMap<>();
		for (ClusterDefinition cluster : definitions) {
			List<PeerDefinition> clusterPeers = new ArrayList<>();
			for (PeerDefinition peer : peers.values()) {
				if (cluster.peerIds().isEmpty() || cluster.peerIds().contains(peer.id())) {
					clusterPeers.add(peer);
				}
			}
			ClusterCoordinator coordinator = coordinators.get(cluster.id());
			PeerDiscovery clusterDiscovery = discovering.contains(cluster) ? discovery : null;
			boolean stopSensitive = coordinator == null && (!clusterPeers.isEmpty() || clusterDiscovery != null);
			runtimes.put(cluster.id(), new ClusterRuntime(cluster, instance, clusterPeers, coordinator, stopSensitive, clusterDiscovery));
		}
		List<String> standalone = runtimes.values().stream().filter(ClusterRuntime::isStandalone).map(ClusterRuntime::id).toList();
		if (!standalone.isEmpty()) {
			logger.warn("No peers are configured for polling: this instance runs standalone and is granted every poll of {}. "
					+ "Configure the peers for a cluster of several instances.", standalone);
		}
		return Collections.unmodifiableMap(runtimes);
	}

	/** A snapshot for endpoints and health. */
	ClusterStatus status() {
		long elapsed = this.state.elapsedMillis();
		long cycleNanos = this.state.cycleNanos();
		TimeSource time = this.instance.time();
		return new ClusterStatus(this.definition, this.state.isHolding(), this.state.isPaused(), isCycleRunning(),
				(elapsed == Long.MAX_VALUE) ? null : time.now().minusMillis(elapsed),
				(elapsed == Long.MAX_VALUE) ? null : Duration.ofMillis(elapsed), lastDecision(),
				this.survey.peers().stream().map(PeerDefinition::id).toList(), this.survey.lastObservations(),
				(cycleNanos < 0) ? null : Duration.ofNanos(cycleNanos), this.state.isHandingOver());
	}

	/**
	 * Asks the peers and remembers their answers for the policy.
	 * @param peers the peers to ask: the current ones ({@link PeerSurvey#peers()}), the same list in both rounds of a decision
	 */
	List<PeerObservation> survey(List<PeerDefinition> peers, @Nullable List<PeerObservation> previous, List<PeerObservation> observed) {
		// peer checks outside a decision (checkPeers) belong to no decision span
		DecisionObserver.DecisionSpan current = this.decisionLock.isHeldByCurrentThread() ? this.span : DecisionObserver.DecisionSpan.NONE;
		List<PeerObservation> observations = this.survey.observe(peers, previous, observed, current);
		this.memory = this.memory.remember(observations, this.instance.time().nanoTime());
		return observations;
	}

	Decision decision(Reason reason, List<PeerObservation> observations, long start) {
		return decision(reason, observations, start, null);
	}

	Decision decision(Reason reason, List<PeerObservation> observations, long start, @Nullable String detail) {
		TimeSource time = this.instance.time();
		return new Decision(this.definition.id(), reason.outcome(), reason, observations, Duration.ofNanos(time.nanoTime() - start),
				time.now(), detail);
	}

	private void afterDecision(Decision decision, List<PeerObservation> observed) {
		if (decision.reason() == Reason.PEER_ACTIVE || decision.reason() == Reason.PEER_PRESUMED_ACTIVE
				|| decision.reason() == Reason.YIELDED_TO_PEER) {
			synchronized (this) {
				this.peerHeldSince = true;
			}
		}
		if (decision.reason() != Reason.LOCAL_CYCLE_RUNNING) {
			syncHeld();
		}
		this.instance.events().decided(decision, observed);
	}

	/** Tells the listener (and the log) when this instance starts or stops holding; one change at a time. */
	synchronized void syncHeld() {
		boolean holding = this.state.isHolding();
		if (this.held == holding) {
			return;
		}
		this.held = holding;
		boolean takeover = holding && this.peerHeldSince;
		String instanceId = this.instance.settings().instanceId();
		if (holding) {
			this.peerHeldSince = false;
			logger.info("This instance ({}) now holds cluster '{}'{}", instanceId, id(), takeover ? ", taking over from a peer" : "");
		}
		else {
			logger.info("This instance ({}) no longer holds cluster '{}'", instanceId, id());
		}
		this.instance.events().holdChanged(id(), holding, takeover);
	}

	// ---------------------------------------------------------------- cycles, pause, release

	<E extends Exception> Decision runIfGranted(PollingManager.CycleTask<E> task) throws E {
		long start = this.instance.time().nanoTime();
		if (!this.cycleLock.tryLock()) {
			DecisionObserver.DecisionSpan span = this.instance.events().decisionStarting(id());
			Decision refused = decision(Reason.LOCAL_CYCLE_RUNNING, List.of(), start);
			Events.ended(span, refused);
			this.lastDecision = refused;
			afterDecision(refused, List.of());
			return refused;
		}
		try {
			Decision decision = decide();
			if (!decision.isGranted()) {
				return decision;
			}
			long generation = this.state.generation();
			if (!this.state.beginCycle(generation)) {
				// the hold ended between the grant and the start (a pause, release or close, e.g. from a listener's onDecision,
				// or a stop of this JVM): peers were told "never", so the task must not run
				Decision ended = decision(endedBeforeCycle(), decision.peers(), start,
						"the hold ended between the grant and the start of the cycle; the cycle did not run");
				this.lastDecision = ended;
				syncHeld();
				return ended;
			}
			try {
				task.run();
			}
			finally {
				boolean handedOver = this.state.endCycle(generation);
				this.overrunReportedAt = HoldState.NONE;
				if (this.handOverPending) {
					this.handOverPending = false;
					holdBack();
				}
				if (handedOver) {
					completeHandover();
				}
				syncHeld();
			}
			return decision;
		}
		finally {
			this.cycleLock.unlock();
		}
	}

	/** Why a granted hold ended before its cycle started. */
	private Reason endedBeforeCycle() {
		if (this.state.isClosed()) {
			return Reason.CLOSED;
		}
		if (this.state.isPaused()) {
			return Reason.PAUSED;
		}
		return this.instance.justStopped() ? Reason.STOPPED : Reason.RELEASED;
	}

	/** After a cycle that a pause, release, balancing handover or shutdown waited for: the hold ended, the lock goes too. */
	private void completeHandover() {
		if (this.coordinated != null) {
			this.coordinated.releaseWithin(this.instance.settings().peerTimeout());
			this.releasedForShutdown = this.state.isClosed();
		}
		logger.info("Cluster '{}': the running cycle ended; handed over, a peer can take over at its next tick", id());
	}

	/** Reports a cycle that runs longer than the wait time, once per wait time; called by the heartbeat. */
	void checkCycle() {
		long running = this.state.cycleNanos();
		if (running < this.definition.waitTime().toNanos()) {
			return;
		}
		long now = this.instance.time().nanoTime();
		long reported = this.overrunReportedAt;
		if (reported != HoldState.NONE && now - reported < this.definition.waitTime().toNanos()) {
			return;
		}
		this.overrunReportedAt = now;
		Duration max = this.definition.maxCycleTime();
		logger.warn("Cluster '{}': a cycle has run for {} ms, longer than the wait time of {} ms; {}", id(), running / 1_000_000L,
				this.definition.waitTime().toMillis(), (max == null) ? "the hold stays alive while it runs"
						: "the hold stays alive until the max cycle time of " + max.toMillis() + " ms and lapses one wait time later");
		this.instance.events().cycleOverrun(id(), Duration.ofNanos(running));
	}

	/** What makes this instance let go of the cluster. */
	enum LetGo {

		PAUSE("paused"), RELEASE("released"), HAND_OVER("handed over"), SHUTDOWN("shut down");

		private final String text;

		LetGo(String text) {
			this.text = text;
		}

	}

	/**
	 * The one path of a pause, a release and a shutdown (a balancing handover takes the same path in
	 * {@link HoldState#letGo}): without a running cycle the hold ends now and a coordinator's lock is
	 * freed; during a cycle both happen when the cycle ends (or its maximum cycle time passes). Returns
	 * at once either way.
	 */
	void letGo(LetGo why) {
		if (why == LetGo.HAND_OVER) {
			// before the hold ends, so that no decision between the two re-acquires it here
			this.handOverPending = true;
		}
		boolean deferred = this.state.letGo(-1, why == LetGo.PAUSE, why == LetGo.SHUTDOWN);
		if (why == LetGo.HAND_OVER && !deferred) {
			this.handOverPending = false;
			holdBack();
		}
		if (deferred) {
			logger.info("Cluster '{}' {} on this instance; a cycle is running, the cluster is handed over when it ends", id(), why.text);
		}
		else {
			if (this.coordinated != null) {
				this.coordinated.releaseWithin(this.instance.settings().peerTimeout());
				this.releasedForShutdown = why == LetGo.SHUTDOWN;
			}
			logger.info("Cluster '{}' {} on this instance; a peer can take over at its next tick", id(), why.text);
		}
		syncHeld();
	}

	void pause() {
		letGo(LetGo.PAUSE);
	}

	void release() {
		letGo(LetGo.RELEASE);
	}

	void handOver() {
		letGo(LetGo.HAND_OVER);
	}

	/** Starts one wait time of holding back (after a hand-over): decisions meanwhile are {@link Reason#HANDED_OVER}. */
	void holdBack() {
		this.handoverUntil = this.instance.time().nanoTime() + this.definition.waitTime().toNanos();
	}

	/** Whether this instance holds back from the cluster: a hand-over waits for its cycle, or one wait time since. */
	boolean holdingBack() {
		return this.handOverPending || this.instance.time().nanoTime() - this.handoverUntil < 0;
	}

	/**
	 * Releases for good and at once, also under a running cycle (after {@link #letGo} with
	 * {@link LetGo#SHUTDOWN}, the cycle had its time). Closing the hold state first makes any
	 * acquisition still running fail its grant; a coordinated cluster's release waits behind a pending
	 * request, at most the peer timeout.
	 */
	void close() {
		this.state.close();
		if (this.coordinated != null && !this.releasedForShutdown) {
			this.coordinated.releaseWithin(this.instance.settings().peerTimeout());
		}
		syncHeld();
	}

}
