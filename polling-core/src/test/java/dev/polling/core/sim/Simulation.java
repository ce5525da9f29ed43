package dev.polling.core.sim;

import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.InstanceNotFoundException;
import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;

import org.jspecify.annotations.Nullable;

import dev.polling.core.ClusterDefinition;
import dev.polling.core.Decision;
import dev.polling.core.PeerClient;
import dev.polling.core.PeerDefinition;
import dev.polling.core.PeerFault;
import dev.polling.core.PeerObservation;
import dev.polling.core.PeerState;
import dev.polling.core.PollingListener;
import dev.polling.core.PollingManager;
import dev.polling.core.PollingSettings;
import dev.polling.core.SimulationHooks;
import dev.polling.core.TestBuilders;
import dev.polling.core.TimeSource;
import dev.polling.core.PollingClusterMXBean;

/**
 * A deterministic simulation of a cluster of real {@link PollingManager}s: the real decision code
 * (PeerDecider, Protocol, HoldState, PeerSurvey, the cluster MBean) on one virtual clock, a
 * simulated network and simulated JVM stops, every choice drawn from one seeded random generator,
 * so that a seed reproduces a run exactly.
 *
 * <h2>How it runs</h2>
 * A discrete-event scheduler owns the virtual clock and a queue of timed events. Each instance has
 * one thread of its own, its fixed-delay timer, which runs its ticks ({@code runIfGranted} with a task
 * of random length, sometimes {@code decide} then {@code recordActivity}). These threads are
 * coroutines: exactly one thread runs at any moment, and control passes between the scheduler and an
 * instance's thread only at the points where the real code waits or could be descheduled:
 * <ul>
 * <li>the settle wait and a cycle's work ({@link TimeSource#sleep}): the thread parks until its wake-up event;</li>
 * <li>waiting for a peer's answer ({@code CompletableFuture.get(timeout)} in PeerSurvey): the future
 * handed out by the simulated {@link PeerClient} parks the thread until the answer is delivered or the
 * deadline passes, whichever event comes first; the requests of one round are in flight together;</li>
 * <li>preemption: at a clock read ({@link TimeSource#nanoTime}) the thread may be descheduled for up to
 * 2 ms, so other events (a release, a peer's read of this instance's MBean, a stop) can fall between any
 * two steps of the decision or of a compare-and-set loop of the hold state; never inside the monitor that
 * reports hold changes, which the scheduler's own calls need. Rarely (fault {@code starvation}) the thread
 * is not scheduled for 0.3 to 3 s while the rest of its JVM runs.</li>
 * </ul>
 * So the decisions of several instances interleave at every waiting point, not only as whole decisions.
 *
 * <h2>The network</h2>
 * A request is read at the target after a latency of up to 3 ms: the target's {@code CoordinationState}
 * and {@code InstanceId} are read from its own in-JVM MBean server, exactly the attributes a real peer
 * reads, and turned into an answered observation as {@code JmxPeerClient} does; the answer arrives after
 * another latency. A request to a target whose JVM is stopped is read when it resumes; to a crashed or
 * exited instance it is refused (a gone peer); to a closed manager whose JVM still runs it fails with a
 * missing MBean (unknown). Lossy runs also drop requests, delay answers by half to one and a half peer
 * timeouts, or fail them with an I/O error. Answers to an instance that is stopped arrive when it resumes.
 *
 * <h2>Stops</h2>
 * A stopped instance runs nothing: its timer thread, its answers, its deliveries all wait for the
 * resume. Its stop source imitates the real {@code StopDetector}: it beats every {@code min(100 ms,
 * threshold / 4)} while running and at every query, and on resume counts a stop when the gap since the
 * last beat exceeds the threshold (half the peer timeout), so a stop just below the threshold can be
 * detected or not depending on the beat phase. Stops of every length are drawn, including chains of short
 * stops.
 *
 * <h2>The invariant and its excusal rule</h2>
 * After every event: among the instances that run (not crashed or exited, not stopped, manager not
 * closed), at most one {@code isHolding} the cluster. In runs without network faults there is no
 * excusal: any two holders are a violation. In lossy runs (where, under {@code proceed}, an instance
 * that cannot reach a peer counts it idle by design) two holders X and Y are excused when the network
 * injected a fault (a dropped request, an answer delayed by at least half the peer timeout, an I/O
 * error) on a request from X to Y or from Y to X less than E ago, with E = wait time + longest cycle
 * + longest tick delay + 2 peer timeouts + settle time: the longest a double hold caused by such a fault
 * can last before the holder without precedence renews, sees the other and yields. Excused checks are
 * counted. A stopped target's silence is never excused: that is what stop detection is for.
 *
 * <h2>Liveness</h2>
 * After the chaos phase the cluster is healed (no more faults, paused instances resumed, gone ones
 * restarted). Once every stop is over and the just-stopped guard (2 peer timeouts) and one wait time
 * have passed, some instance must hold; then the holder is crashed, released or paused, and some
 * running instance must hold again within {@link SimConfig#TAKEOVER_BOUND}.
 */
public final class Simulation {

	/** The virtual clock's value at the start of a run. */
	static final long START = 1_000_000_000_000L;

	/** The one cluster of the simulated instances. */
	public static final String CLUSTER = "c1";

	private static final Instant EPOCH = Instant.parse("2026-01-01T00:00:00Z");

	private static final long NONE = Long.MIN_VALUE;

	private static final long PT = SimConfig.PEER_TIMEOUT.toNanos();

	private static final long WAIT = SimConfig.WAIT_TIME.toNanos();

	private static final long THRESHOLD = PT / 2;

	/** The real detector's beat interval: several beats per threshold, at most 100 ms. */
	private static final long BEAT = Math.max(1_000_000L, Math.min(100_000_000L, THRESHOLD / 4));

	/**
	 * How long two holders are excused after a network fault between them (lossy runs only); with the
	 * longer wait time of a rolling change in those runs.
	 */
	static final long EXCUSE = WAIT + SimConfig.MAX_CYCLE.toNanos() + SimConfig.MAX_TICK.toNanos() + 2 * PT
			+ SimConfig.SETTLE_TIME.toNanos();

	private final long excuse;

	private static final String[] ATTRIBUTES = { PollingClusterMXBean.COORDINATION_STATE, PollingClusterMXBean.INSTANCE_ID };

	private static final StackWalker STACK = StackWalker.getInstance();

	private static final Set<String> MONITOR_METHODS = Set.of("syncHeld", "afterDecision");

	private final SimConfig config;

	private final long seed;

	private final SplittableRandom rng;

	private final Trace trace = new Trace();

	private final PriorityQueue<Event> queue = new PriorityQueue<>();

	private long sequence;

	/** Virtual monotonic time, nanoseconds. */
	private long now = START;

	private final Semaphore schedulerTurn = new Semaphore(0);

	private final VirtualClock clock = new VirtualClock();

	private final ClusterDefinition cluster;

	/** The cluster with the other wait time of a rolling configuration change. */
	private final ClusterDefinition otherCluster;

	private final List<Node> nodes = new ArrayList<>();

	private final Map<String, Node> byId = new HashMap<>();

	private final List<PeerDefinition> peers = new ArrayList<>();

	/** Per pair of instances, when the network last injected a fault on a request between them. */
	private final long[][] lastFault;

	private boolean healing;

	/** While the checks read the instances: their reads are no beats of the simulated stop detectors. */
	private boolean observing;

	private long requests;

	private long decisions;

	private long grants;

	private long excused;

	private long stopsDetected;

	private long takeoverNanos = -1;

	private long events;

	private @Nullable String violation;

	private long decisionsAtViolation;

	private @Nullable Throwable actorFailure;

	/** Orders the starts and ends of cycles (several can fall on one virtual nanosecond). */
	private long cycleSequence;

	/** Cycles that ended and may still overlap a running one. */
	private final List<SimCycle> endedCycles = new ArrayList<>();

	private final CycleStats cycleStats = new CycleStats();

	private Simulation(SimConfig config, long seed) {
		this.config = config;
		this.seed = seed;
		this.rng = new SplittableRandom(seed);
		this.cluster = cluster(config, SimConfig.WAIT_TIME);
		this.otherCluster = cluster(config, SimConfig.OTHER_WAIT_TIME);
		this.excuse = EXCUSE + (config.rolling() ? SimConfig.OTHER_WAIT_TIME.toNanos() - WAIT : 0);
		this.lastFault = new long[config.instances()][config.instances()];
		for (long[] row : this.lastFault) {
			java.util.Arrays.fill(row, NONE);
		}
		for (int i = 0; i < config.instances(); i++) {
			String id = String.valueOf((char) ('a' + i));
			PeerDefinition peer = PeerDefinition.of(id, "sim-" + id, 9000 + i);
			Node node = new Node(id, i);
			this.nodes.add(node);
			this.byId.put(id, node);
			this.peers.add(peer);
		}
	}

	private static ClusterDefinition cluster(SimConfig config, java.time.Duration waitTime) {
		return (config.maxCycleTime() != null) ? ClusterDefinition.of(CLUSTER, waitTime).withMaxCycleTime(config.maxCycleTime())
				: ClusterDefinition.of(CLUSTER, waitTime);
	}

	/** Discards what is written to it. */
	private static final PrintStream DISCARD = new PrintStream(OutputStream.nullOutputStream());

	/**
	 * Runs one simulation. The instances' own log lines (standard error, where the tests' logger writes)
	 * are discarded while it runs, a megabyte per thousand decisions otherwise; the trace tells what
	 * happened. {@code -Dpolling.sim.logs=true} keeps them.
	 */
	public static SimResult run(SimConfig config, long seed) {
		boolean quiet = !Boolean.getBoolean("polling.sim.logs");
		PrintStream err = System.err;
		if (quiet) {
			System.setErr(DISCARD);
		}
		try {
			return new Simulation(config, seed).run();
		}
		finally {
			if (quiet) {
				System.setErr(err);
			}
		}
	}

	private SimResult run() {
		try {
			for (Node node : this.nodes) {
				long first = this.config.synchronizedStart() ? this.rng.nextLong(1_000_000L) : this.rng.nextLong(SimConfig.TICK.toNanos());
				start(node, first);
			}
			scheduleChaos();
			long maxEvents = 20_000L * Math.max(1, this.config.decisions()) + 1_000_000L;
			while (this.violation == null && this.decisions < this.config.decisions()) {
				step();
				if (this.events > maxEvents) {
					fail("no progress: " + this.events + " events for " + this.decisions + " decisions");
				}
			}
			if (this.violation == null && this.config.liveness()) {
				liveness();
			}
		}
		finally {
			for (Node node : this.nodes) {
				if (!node.down) {
					kill(node, false);
				}
			}
		}
		return new SimResult(this.seed, this.config, this.decisions, this.violation, this.decisionsAtViolation, this.excused, this.grants,
				this.stopsDetected, this.takeoverNanos, this.now - START, this.trace, this.cycleStats);
	}

	// ---------------------------------------------------------------- scheduler

	private static final class Event implements Comparable<Event> {

		final long time;

		final long sequence;

		final @Nullable Node node;

		/** The incarnation the event belongs to; -1 for any (a read at a target: whoever listens then). */
		final int generation;

		final Runnable action;

		Event(long time, long sequence, @Nullable Node node, int generation, Runnable action) {
			this.time = time;
			this.sequence = sequence;
			this.node = node;
			this.generation = generation;
			this.action = action;
		}

		@Override
		public int compareTo(Event o) {
			int c = Long.compare(this.time, o.time);
			return (c != 0) ? c : Long.compare(this.sequence, o.sequence);
		}

	}

	/** Schedules an action; bound to a node, it waits while the node's JVM is stopped and is dropped for another incarnation. */
	private void at(long time, @Nullable Node node, int generation, Runnable action) {
		this.queue.add(new Event(Math.max(time, this.now), this.sequence++, node, generation, action));
	}

	private void step() {
		Event e = this.queue.poll();
		if (e == null) {
			fail("the event queue ran dry");
			return;
		}
		this.now = Math.max(this.now, e.time);
		execute(e);
	}

	private void execute(Event e) {
		Node node = e.node;
		if (node != null) {
			if (e.generation >= 0 && e.generation != node.generation) {
				return;
			}
			if (node.stopped) {
				node.deferred.add(e);
				return;
			}
		}
		this.events++;
		e.action.run();
		check();
	}

	private void runUntil(long time) {
		while (this.violation == null) {
			Event next = this.queue.peek();
			if (next == null || next.time > time) {
				this.now = Math.max(this.now, time);
				return;
			}
			step();
		}
	}

	// ---------------------------------------------------------------- coroutines

	/** Thrown out of a parked thread of an instance that crashed or exited, to unwind it. */
	private static final class Aborted extends Error {

		private static final long serialVersionUID = 1L;

		Aborted() {
			super("instance gone", null, false, false);
		}

	}

	private static final class ActorThread extends Thread {

		@Nullable Actor actor;

		ActorThread(Runnable body, String name) {
			super(body, name);
			setDaemon(true);
		}

	}

	/** An instance's timer thread, run as a coroutine of the scheduler. */
	private final class Actor {

		final Node node;

		final int generation;

		final Semaphore turn = new Semaphore(0);

		final ActorThread thread;

		@Nullable Runnable task;

		boolean aborted;

		boolean exit;

		long waitToken;

		Actor(Node node) {
			this.node = node;
			this.generation = node.generation;
			this.thread = new ActorThread(this::body, "sim-" + node.id + "-" + node.generation);
			this.thread.actor = this;
			this.thread.start();
		}

		private void body() {
			this.turn.acquireUninterruptibly();
			while (!this.exit) {
				Runnable t = this.task;
				try {
					if (t != null) {
						t.run();
					}
				}
				catch (Aborted ex) {
					// the instance is gone
				}
				catch (Throwable ex) {
					if (!this.aborted && Simulation.this.actorFailure == null) {
						Simulation.this.actorFailure = ex;
					}
				}
				this.task = null;
				Simulation.this.schedulerTurn.release();
				this.turn.acquireUninterruptibly();
			}
			Simulation.this.schedulerTurn.release();
		}

	}

	/** Gives the turn to the actor until it parks or finishes its task; scheduler thread only. */
	private void resume(Actor actor) {
		if (currentActor() != null) {
			throw new IllegalStateException("resume called on an instance's thread");
		}
		actor.turn.release();
		this.schedulerTurn.acquireUninterruptibly();
	}

	/** Gives the turn back to the scheduler until an event wakes this actor; the actor's own thread only. */
	private void park(Actor actor) {
		if (actor.aborted) {
			throw new Aborted();
		}
		this.schedulerTurn.release();
		actor.turn.acquireUninterruptibly();
		if (actor.aborted) {
			throw new Aborted();
		}
	}

	private void wake(Actor actor, long token) {
		if (actor.task != null && actor.waitToken == token && !actor.aborted) {
			resume(actor);
		}
	}

	private void startTask(Actor actor, Runnable task) {
		actor.task = task;
		resume(actor);
	}

	private static @Nullable Actor currentActor() {
		return (Thread.currentThread() instanceof ActorThread t) ? t.actor : null;
	}

	/** Ends the actor's thread: unwinds a task it is parked in, then lets the thread finish. */
	private void end(Actor actor) {
		if (actor.task != null) {
			actor.aborted = true;
			resume(actor);
		}
		actor.exit = true;
		actor.turn.release();
		this.schedulerTurn.acquireUninterruptibly();
	}

	private final class VirtualClock implements TimeSource {

		@Override
		public long nanoTime() {
			Actor actor = currentActor();
			if (actor != null && !actor.aborted) {
				maybePreempt(actor);
			}
			return Simulation.this.now;
		}

		@Override
		public Instant now() {
			return EPOCH.plusNanos(Simulation.this.now - START);
		}

		@Override
		public void sleep(Duration duration) {
			Actor actor = currentActor();
			if (actor == null) {
				throw new IllegalStateException("sleep outside an instance's thread");
			}
			long token = ++actor.waitToken;
			at(Simulation.this.now + Math.max(0, duration.toNanos()), actor.node, actor.generation, () -> wake(actor, token));
			park(actor);
		}

	}

	private void maybePreempt(Actor actor) {
		double p = this.config.faults().preemption();
		double starve = this.healing ? 0 : this.config.faults().starvation();
		if (p + starve <= 0) {
			return;
		}
		double r = this.rng.nextDouble();
		if (r >= p + starve || !preemptible()) {
			return;
		}
		long pause;
		if (r < starve) {
			pause = 300_000_000L + this.rng.nextLong(2_700_000_000L);
			trace(actor.node, "timer thread starved for " + pause / 1_000L + "us");
		}
		else {
			pause = 1 + this.rng.nextLong(2_000_000L);
		}
		long token = ++actor.waitToken;
		at(this.now + pause, actor.node, actor.generation, () -> wake(actor, token));
		park(actor);
	}

	/** Not inside the monitor that reports hold changes (the scheduler's release, pause and close take it too). */
	private static boolean preemptible() {
		return STACK.walk((frames) -> frames.noneMatch((f) -> (f.getClassName().equals("dev.polling.core.ClusterRuntime")
				&& MONITOR_METHODS.contains(f.getMethodName())) || f.getClassName().equals("dev.polling.core.Events")));
	}

	// ---------------------------------------------------------------- instances

	/** What the simulated JVM's stop detector knows; one per incarnation. */
	private final class JvmStops implements SimulationHooks.Stops {

		long count;

		long lastStop = NONE;

		long beatAnchor;

		long lastBeat;

		JvmStops() {
			this.beatAnchor = Simulation.this.now;
			this.lastBeat = Simulation.this.now;
		}

		@Override
		public long stops() {
			if (!Simulation.this.observing) {
				this.lastBeat = Math.max(this.lastBeat, Simulation.this.now);
			}
			return this.count;
		}

		@Override
		public boolean stoppedWithin(Duration window) {
			stops();
			return this.lastStop != NONE && Simulation.this.now - this.lastStop < window.toNanos();
		}

		/** The last beat before a stop that began at {@code t}: the heartbeat thread's, or a query's. */
		long lastBeatBefore(long t) {
			long periodic = this.beatAnchor + ((t - this.beatAnchor) / BEAT) * BEAT;
			return Math.max(periodic, this.lastBeat);
		}

	}

	/** One instance slot: successive incarnations of the instance with one id. */
	private final class Node {

		final String id;

		final int index;

		int generation;

		@Nullable PollingManager manager;

		@Nullable MBeanServer mbeans;

		@Nullable ObjectName objectName;

		@Nullable Actor actor;

		JvmStops stops = new JvmStops();

		boolean down = true;

		/** Runs with {@link SimConfig#OTHER_WAIT_TIME} (a rolling configuration change). */
		boolean otherSettings;

		boolean closed;

		/** Whether the manager was told to shut down (it closes once the running cycle ended). */
		boolean shuttingDown;

		boolean stopped;

		long stopStart;

		long resumeAt;

		final List<Event> deferred = new ArrayList<>();

		@Nullable Decision lastDecision;

		/** The cycle body running on this instance (a {@code runIfGranted} task), or null. */
		@Nullable SimCycle cycle;

		/** Until when the timer thread's latest work (a cycle, or the work after a plain decide) runs, unless its JVM stops. */
		long busyUntil;

		/** Whether the timer thread is inside {@code runIfGranted}, before its task started. */
		boolean awaitingCycle;

		Node(String id, int index) {
			this.id = id;
			this.index = index;
		}

		boolean running() {
			return !this.down && !this.stopped && !this.closed;
		}

		PollingManager manager() {
			PollingManager m = this.manager;
			if (m == null) {
				throw new IllegalStateException(this.id + " has no manager");
			}
			return m;
		}

		boolean holding() {
			return running() && manager().isHolding(CLUSTER);
		}

	}

	private void start(Node node, long firstTick) {
		node.generation++;
		node.down = false;
		node.closed = false;
		node.shuttingDown = false;
		node.stopped = false;
		node.deferred.clear();
		node.stops = new JvmStops();
		node.mbeans = MBeanServerFactory.newMBeanServer();
		PollingSettings settings = new PollingSettings(node.id, SimConfig.PEER_TIMEOUT, this.config.policy(),
				SimConfig.SETTLE_TIME, "dev.polling.sim");
		ClusterDefinition cluster = node.otherSettings ? this.otherCluster : this.cluster;
		node.objectName = settings.jmxContract().objectName(settings.jmxDomain(), cluster);
		PollingManager.Builder builder = PollingManager.builder()
			.settings(settings)
			.cluster(cluster)
			.peers(this.peers)
			.timeSource(this.clock)
			.peerClient(new SimPeerClient(node, node.generation))
			.mbeanServer(node.mbeans)
			.listener(new Listener(node));
		if (this.config.checkThenAct()) {
			TestBuilders.checkThenAct(builder);
		}
		node.manager = SimulationHooks.stopSource(builder, node.stops).build();
		node.actor = new Actor(node);
		node.lastDecision = null;
		trace(node, "started (incarnation " + node.generation + ")" + (node.otherSettings ? " with the other wait time" : ""));
		scheduleTick(node, firstTick);
	}

	/** The JVM is gone (crash or exit): its threads end, its port refuses connections. */
	private void kill(Node node, boolean trace) {
		SimCycle running = node.cycle;
		if (running != null) {
			if (node.stopped && this.now - node.stops.lastBeatBefore(node.stopStart) > THRESHOLD) {
				// killed while stopped longer than the threshold: the stop would have voided its hold
				running.voidedAt = Math.min(running.voidedAt, node.stopStart);
			}
			endCycle(node, running, "ends: the JVM is gone");
		}
		node.awaitingCycle = false;
		node.down = true;
		node.stopped = false;
		node.generation++;
		Actor actor = node.actor;
		node.actor = null;
		if (actor != null) {
			end(actor);
		}
		node.manager = null;
		node.mbeans = null;
		for (Event e : node.deferred) {
			at(this.now, e.node, e.generation, e.action);
		}
		node.deferred.clear();
		if (trace) {
			trace(node, "gone (connections refused)");
		}
	}

	private final class Listener implements PollingListener {

		private final Node node;

		Listener(Node node) {
			this.node = node;
		}

		@Override
		public void onDecision(Decision decision) {
			decided(this.node, decision);
			if (this.node.awaitingCycle && decision.isGranted() && cycleAction()) {
				operatorAction(this.node, "between grant and cycle start");
			}
		}

		@Override
		public void onHoldChanged(String clusterId, boolean holding, boolean takeover) {
			trace(this.node, holding ? "now holds" + (takeover ? " (takeover)" : "") : "no longer holds");
		}

	}

	private void decided(Node node, Decision d) {
		this.decisions++;
		node.lastDecision = d;
		if (d.reason() == Decision.Reason.NO_ACTIVE_PEER) {
			this.grants++;
		}
		else if (d.reason() == Decision.Reason.SETTINGS_MISMATCH) {
			this.cycleStats.mismatchRefusals++;
		}
		else if (d.reason() == Decision.Reason.RENEWED_DESPITE_SETTINGS_MISMATCH) {
			this.cycleStats.mismatchRenewals++;
		}
		StringBuilder b = new StringBuilder(96);
		b.append("decided ").append(d.outcome()).append(' ').append(d.reason()).append(" in ").append(d.duration().toNanos() / 1_000L)
			.append("us [");
		for (int i = 0; i < d.peers().size(); i++) {
			if (i > 0) {
				b.append(", ");
			}
			describe(b, d.peers().get(i));
		}
		trace(node, b.append(']').toString());
	}

	private static void describe(StringBuilder b, PeerObservation o) {
		b.append(o.peerId()).append(':');
		switch (o.state()) {
			case ANSWERED -> b.append("e=").append((o.elapsedMillis() == PeerObservation.NEVER) ? "never" : Long.toString(o.elapsedMillis()))
				.append(" c=").append(o.candidateAgeMillis()).append(" h=").append(o.heldClusters());
			case SELF -> b.append("self");
			default -> b.append(o.state()).append('/').append(o.fault());
		}
	}

	private void trace(Node node, String what) {
		this.trace.add(this.now, node.id, what);
	}

	private void trace(String who, String what) {
		this.trace.add(this.now, who, what);
	}

	// ---------------------------------------------------------------- ticks

	private void scheduleTick(Node node, long delay) {
		int generation = node.generation;
		at(this.now + delay, node, generation, () -> tick(node, generation));
	}

	private void tick(Node node, int generation) {
		Actor actor = node.actor;
		if (node.down || node.closed || actor == null || actor.generation != generation || actor.task != null) {
			return;
		}
		boolean plain = this.rng.nextInt(5) == 0;
		long work = cycleLength();
		PollingManager manager = node.manager();
		startTask(actor, () -> {
			if (plain) {
				Decision d = manager.decide(CLUSTER);
				if (d.isGranted()) {
					node.busyUntil = this.now + work;
					if (work > 0) {
						this.clock.sleep(Duration.ofNanos(work));
					}
					manager.recordActivity(CLUSTER);
				}
			}
			else {
				node.awaitingCycle = true;
				try {
					manager.runIfGranted(CLUSTER, () -> {
						node.awaitingCycle = false;
						SimCycle cycle = beginCycle(node, work);
						if (cycleAction()) {
							at(this.now + this.rng.nextLong(work + 1), node, generation, () -> operatorAction(node, "mid-cycle"));
						}
						if (work > 0) {
							this.clock.sleep(Duration.ofNanos(work));
						}
						endCycle(node, cycle, "ends");
					});
				}
				finally {
					node.awaitingCycle = false;
				}
			}
			scheduleTick(node, SimConfig.TICK.toNanos() + this.rng.nextLong(SimConfig.TICK_JITTER.toNanos() + 1));
		});
	}

	private long cycleLength() {
		double r = this.rng.nextDouble();
		if (r < 0.6) {
			return 0;
		}
		double longCycles = this.healing ? 0 : this.config.faults().longCycles();
		if (r < 0.6 + longCycles) {
			return WAIT + this.rng.nextLong(SimConfig.MAX_CYCLE.toNanos() - WAIT + 1);
		}
		return 1_000_000L + this.rng.nextLong(300_000_000L);
	}

	// ---------------------------------------------------------------- cycles

	/** One cycle body as the user sees it: from the start of the {@code runIfGranted} task to its end (or the JVM's end). */
	private static final class SimCycle {

		final Node node;

		final long start;

		final long startSequence;

		/** When the network last injected a fault between this instance and each other one, at the start. */
		final long[] faultsAtStart;

		/** When the task's work is done if its JVM is not stopped meanwhile. */
		long plannedEnd;

		long end = NONE;

		long endSequence;

		/** When a stop of this JVM began that voided the cycle's hold (detected, or killed while stopped that long), or NONE. */
		long voidedAt = Long.MAX_VALUE;

		SimCycle(Node node, long start, long startSequence, long[] faultsAtStart) {
			this.node = node;
			this.start = start;
			this.startSequence = startSequence;
			this.faultsAtStart = faultsAtStart;
		}

	}

	private SimCycle beginCycle(Node node, long work) {
		SimCycle cycle = new SimCycle(node, this.now, this.cycleSequence++, this.lastFault[node.index].clone());
		cycle.plannedEnd = this.now + work;
		node.busyUntil = cycle.plannedEnd;
		node.cycle = cycle;
		this.cycleStats.cycles++;
		trace(node, "cycle starts, runs " + work / 1_000L + "us");
		return cycle;
	}

	/**
	 * Ends a cycle and compares it with every cycle of another instance that ended before it and
	 * overlapped it (each overlapping pair is compared once, when the later of the two ends).
	 */
	private void endCycle(Node node, SimCycle cycle, String what) {
		if (node.cycle != cycle) {
			return;
		}
		node.cycle = null;
		cycle.end = this.now;
		cycle.endSequence = this.cycleSequence++;
		trace(node, "cycle " + what);
		for (SimCycle other : this.endedCycles) {
			if (other.node != node && other.endSequence > cycle.startSequence) {
				judgeOverlap(cycle, other);
			}
		}
		this.endedCycles.add(cycle);
		long oldestRunning = this.now;
		for (Node n : this.nodes) {
			SimCycle running = n.cycle;
			if (running != null) {
				oldestRunning = Math.min(oldestRunning, running.start);
			}
		}
		long bound = oldestRunning;
		this.endedCycles.removeIf((c) -> c.end < bound);
	}

	/**
	 * Two cycles of different instances overlapped. Excused only: after a network fault between the two
	 * (lossy runs, as for holders); when the earlier cycle's hold was voided by a stop of its JVM that began
	 * before the later cycle started (its task runs on; {@code recordActivity} tells it so); when the later
	 * cycle started at least {@code max-cycle-time} after the earlier one (the keep-alive ends there).
	 */
	private void judgeOverlap(SimCycle a, SimCycle b) {
		SimCycle earlier = (a.startSequence < b.startSequence) ? a : b;
		SimCycle later = (earlier == a) ? b : a;
		long fault = later.faultsAtStart[earlier.node.index];
		Duration max = this.config.maxCycleTime();
		if (this.config.faults().lossy() && fault != NONE && later.start - fault < this.excuse) {
			this.cycleStats.excusedNetwork++;
		}
		else if (earlier.voidedAt <= later.start) {
			this.cycleStats.excusedStop++;
		}
		else if (max != null && later.start - earlier.start >= max.toNanos()) {
			this.cycleStats.excusedMaxCycle++;
		}
		else {
			fail("two cycles at once: " + earlier.node.id + " from " + (earlier.start - START) / 1_000L + "us to "
					+ ((earlier.end == NONE) ? "-" : (earlier.end - START) / 1_000L + "us") + ", " + later.node.id + " from "
					+ (later.start - START) / 1_000L + "us to " + ((later.end == NONE) ? "-" : (later.end - START) / 1_000L + "us"));
		}
	}

	/** Whether an operator action hits this cycle (between grant and start, or mid-cycle). */
	private boolean cycleAction() {
		double p = this.healing ? 0 : this.config.faults().cycleActions();
		return p > 0 && this.rng.nextDouble() < p;
	}

	/** What an operator (or the balancing) does to the cluster on an instance at a chosen point of its cycle. */
	private void operatorAction(Node node, String where) {
		if (this.healing || !node.running()) {
			return;
		}
		int kind = this.rng.nextInt(10);
		trace(node, "operator action " + where);
		if (kind < 3) {
			pause(node);
		}
		else if (kind < 5) {
			release(node);
		}
		else if (kind < 6) {
			trace(node, "operator's hand-over (was holding: " + node.holding() + ")");
			node.manager().handOver(CLUSTER);
		}
		else if (kind < 8) {
			if (node.manager().isPaused(CLUSTER)) {
				resumeCluster(node);
			}
			else {
				pause(node);
			}
		}
		else if (kind < 9) {
			close(node);
		}
		else {
			handOver(node);
		}
	}

	private void handOver(Node node) {
		trace(node, "balancing handover (was holding: " + node.holding() + ")");
		SimulationHooks.handOver(node.manager(), CLUSTER);
	}

	// ---------------------------------------------------------------- network

	/** The simulated transport of one incarnation of an instance. */
	private final class SimPeerClient implements PeerClient {

		private final Node from;

		private final int generation;

		SimPeerClient(Node from, int generation) {
			this.from = from;
			this.generation = generation;
		}

		@Override
		public CompletableFuture<PeerObservation> observe(PeerDefinition peer, ClusterDefinition cluster, Duration timeout) {
			return request(this.from, this.generation, peer);
		}

		@Override
		public void close() {
			// nothing to close
		}

	}

	/** A future whose timed get parks the asking instance's thread in virtual time. */
	private final class SimFuture extends CompletableFuture<PeerObservation> {

		@Nullable Actor waiter;

		long waiterToken;

		@Override
		public PeerObservation get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
			if (!isDone()) {
				Actor actor = currentActor();
				if (actor == null) {
					throw new IllegalStateException("a timed get outside an instance's thread");
				}
				long deadline = Simulation.this.now + unit.toNanos(timeout);
				while (!isDone()) {
					if (Simulation.this.now - deadline >= 0) {
						this.waiter = null;
						throw new TimeoutException();
					}
					long token = ++actor.waitToken;
					this.waiter = actor;
					this.waiterToken = token;
					at(deadline, actor.node, actor.generation, () -> wake(actor, token));
					park(actor);
				}
				this.waiter = null;
			}
			return super.get();
		}

		@Override
		public PeerObservation get() throws InterruptedException, ExecutionException {
			if (!isDone()) {
				throw new IllegalStateException("an untimed get would block the simulation");
			}
			return super.get();
		}

		@Override
		public PeerObservation join() {
			if (!isDone()) {
				throw new IllegalStateException("a join would block the simulation");
			}
			return super.join();
		}

		void deliver(PeerObservation o) {
			complete(o);
			Actor actor = this.waiter;
			if (actor != null) {
				wake(actor, this.waiterToken);
			}
		}

	}

	private long latency() {
		return 50_000L + this.rng.nextLong(3_000_000L);
	}

	private CompletableFuture<PeerObservation> request(Node from, int fromGeneration, PeerDefinition peer) {
		SimFuture future = new SimFuture();
		Node target = this.byId.get(peer.id());
		long start = this.now;
		String tag = "#" + (++this.requests) + " " + from.id + "->" + peer.id();
		boolean network = !this.healing && this.config.faults().lossy();
		double r = network ? this.rng.nextDouble() : 1;
		FaultMix f = this.config.faults();
		if (r < f.loss()) {
			fault(from, target);
			trace(from, tag + " lost");
			return future;
		}
		boolean slow = r >= f.loss() && r < f.loss() + f.slow();
		boolean error = r >= f.loss() + f.slow() && r < f.loss() + f.slow() + f.error();
		if (slow || error) {
			fault(from, target);
		}
		at(this.now + latency(), target, -1, () -> read(future, from, fromGeneration, target, peer, start, tag, slow, error));
		return future;
	}

	private void fault(Node a, Node b) {
		this.lastFault[a.index][b.index] = this.now;
		this.lastFault[b.index][a.index] = this.now;
	}

	private void read(SimFuture future, Node from, int fromGeneration, Node target, PeerDefinition peer, long start, String tag, boolean slow,
			boolean error) {
		long back = slow ? PT / 2 + this.rng.nextLong(PT + 1) : latency();
		long arrival = this.now + back;
		Duration latency = Duration.ofNanos(arrival - start);
		PeerObservation o;
		if (error) {
			o = PeerObservation.failed(peer, PeerState.ERROR, PeerFault.IO, latency, this.clock.now(), "simulated I/O error");
		}
		else if (target.down) {
			o = PeerObservation.failed(peer, PeerState.REFUSED, PeerFault.CONNECTION_REFUSED, latency, this.clock.now(), "connection refused");
		}
		else {
			o = answer(target, peer, latency);
		}
		StringBuilder b = new StringBuilder(64).append(tag).append(" read ");
		describe(b, o);
		b.append(slow ? " slow, arrives +" : " arrives +").append((arrival - start) / 1_000L).append("us");
		trace(target, b.toString());
		PeerObservation answer = o;
		at(arrival, from, fromGeneration, () -> future.deliver(answer));
	}

	/** Reads the target's MBean as a real peer does (the same attributes) and makes the observation as JmxPeerClient does. */
	private PeerObservation answer(Node target, PeerDefinition peer, Duration latency) {
		MBeanServer server = target.mbeans;
		ObjectName name = target.objectName;
		AttributeList attributes;
		try {
			if (server == null || name == null) {
				throw new InstanceNotFoundException();
			}
			attributes = server.getAttributes(name, ATTRIBUTES);
		}
		catch (InstanceNotFoundException ex) {
			return PeerObservation.failed(peer, PeerState.ERROR, PeerFault.MISSING_MBEAN, latency, this.clock.now(), "no MBean " + name);
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
		long[] state = null;
		String instanceId = null;
		for (Attribute a : attributes.asList()) {
			if (a.getName().equals(PollingClusterMXBean.COORDINATION_STATE)) {
				state = (long[]) a.getValue();
			}
			else if (a.getName().equals(PollingClusterMXBean.INSTANCE_ID)) {
				instanceId = (String) a.getValue();
			}
		}
		if (state == null || state.length < 7) {
			throw new IllegalStateException("CoordinationState missing or short: " + java.util.Arrays.toString(state));
		}
		return new PeerObservation(peer.id(), peer.address(), PeerState.ANSWERED, PeerFault.NONE, instanceId, state[0], state[1], latency,
				this.clock.now(), null, (int) Math.min(Integer.MAX_VALUE, state[2]),
				new PeerObservation.Published(state[3], state[4], state[5], state[6]));
	}

	// ---------------------------------------------------------------- faults

	private void scheduleChaos() {
		double rate = this.config.faults().chaosRate();
		if (rate <= 0 || this.healing) {
			return;
		}
		long gap = (long) (-Math.log(1 - this.rng.nextDouble()) / rate * 1e9);
		at(this.now + gap, null, -1, this::chaos);
	}

	private void chaos() {
		if (this.healing) {
			return;
		}
		FaultMix f = this.config.faults();
		double r = this.rng.nextDouble() * f.chaosRate();
		Node node = this.nodes.get(this.rng.nextInt(this.nodes.size()));
		if (r < f.stops()) {
			stop(node);
		}
		else if ((r -= f.stops()) < f.crashes()) {
			crash(node);
		}
		else if ((r -= f.crashes()) < f.closes()) {
			close(node);
		}
		else if ((r -= f.closes()) < f.releases()) {
			this.observing = true;
			Node holder = this.nodes.stream().filter(Node::holding).findFirst().orElse(null);
			this.observing = false;
			release((holder != null && this.rng.nextInt(4) != 0) ? holder : node);
		}
		else {
			pause(node);
		}
		scheduleChaos();
	}

	private long stopLength() {
		double r = this.rng.nextDouble();
		if (r < 0.35) {
			return 1_000_000L + this.rng.nextLong(THRESHOLD);
		}
		if (r < 0.55) {
			return THRESHOLD - 5_000_000L + this.rng.nextLong(10_000_000L);
		}
		if (r < 0.75) {
			return THRESHOLD + this.rng.nextLong(PT - THRESHOLD + 100_000_000L);
		}
		if (r < 0.95) {
			return PT + this.rng.nextLong(2 * PT);
		}
		return 3_000_000_000L + this.rng.nextLong(12_000_000_000L);
	}

	private void stop(Node node) {
		if (node.down || node.stopped) {
			return;
		}
		long length = stopLength();
		node.stopped = true;
		node.stopStart = this.now;
		node.resumeAt = this.now + length;
		int generation = node.generation;
		trace(node, "JVM stopped for " + length / 1_000L + "us");
		at(this.now + length, null, -1, () -> resumeJvm(node, generation));
	}

	private void resumeJvm(Node node, int generation) {
		if (node.generation != generation || !node.stopped) {
			return;
		}
		node.stopped = false;
		JvmStops stops = node.stops;
		long gap = this.now - stops.lastBeatBefore(node.stopStart);
		boolean detected = gap > THRESHOLD;
		if (detected) {
			stops.count++;
			stops.lastStop = this.now;
			this.stopsDetected++;
			SimCycle running = node.cycle;
			if (running != null) {
				running.voidedAt = Math.min(running.voidedAt, node.stopStart);
			}
		}
		stops.beatAnchor = this.now;
		stops.lastBeat = this.now;
		trace(node, "JVM resumes, gap " + gap / 1_000L + "us: " + (detected ? "stop detected" : "not detected"));
		List<Event> pending = new ArrayList<>(node.deferred);
		node.deferred.clear();
		for (int i = pending.size() - 1; i > 0; i--) {
			int j = this.rng.nextInt(i + 1);
			Event t = pending.get(i);
			pending.set(i, pending.get(j));
			pending.set(j, t);
		}
		for (Event e : pending) {
			if (this.violation != null) {
				return;
			}
			execute(e);
		}
	}

	private void crash(Node node) {
		if (node.down) {
			return;
		}
		trace(node, "crashes");
		kill(node, true);
		scheduleRestart(node);
	}

	private void scheduleRestart(Node node) {
		int generation = node.generation;
		at(this.now + 500_000_000L + this.rng.nextLong(4_500_000_000L), null, -1, () -> {
			if (node.generation == generation && node.down) {
				if (this.config.rolling()) {
					node.otherSettings = this.rng.nextBoolean();
				}
				start(node, this.rng.nextLong(SimConfig.TICK.toNanos()));
			}
		});
	}

	/**
	 * The application shuts down as the starter does it: {@code shutdown()} (refused from now on, the
	 * running cycle's hold handed over when it ends), then, once no cycle runs, {@code close()}, and the
	 * JVM exits shortly after. (The starter waits at most {@code polling.shutdown.timeout}; here long
	 * enough for every cycle.)
	 */
	private void close(Node node) {
		if (!node.running() || node.shuttingDown) {
			return;
		}
		node.shuttingDown = true;
		trace(node, "shutdown (cycle running: " + node.manager().isCycleRunning(CLUSTER) + ")");
		node.manager().shutdown();
		int generation = node.generation;
		at(this.now, node, generation, () -> closeAfterCycle(node, generation));
	}

	private void closeAfterCycle(Node node, int generation) {
		if (node.generation != generation || node.down || node.closed) {
			return;
		}
		if (node.manager().isCycleRunning(CLUSTER)) {
			at(this.now + 10_000_000L, node, generation, () -> closeAfterCycle(node, generation));
			return;
		}
		node.closed = true;
		trace(node, "manager closed");
		node.manager().close();
		at(this.now + this.rng.nextLong(500_000_000L), null, -1, () -> {
			if (node.generation == generation && !node.down) {
				trace(node, "JVM exits");
				kill(node, true);
				scheduleRestart(node);
			}
		});
	}

	private void release(Node node) {
		if (!node.running()) {
			return;
		}
		trace(node, "release (was holding: " + node.holding() + ")");
		node.manager().release(CLUSTER);
	}

	private void pause(Node node) {
		if (!node.running() || node.manager().isPaused(CLUSTER)) {
			return;
		}
		trace(node, "pause (was holding: " + node.holding() + ")");
		node.manager().pause(CLUSTER);
		int generation = node.generation;
		at(this.now + 500_000_000L + this.rng.nextLong(4_500_000_000L), node, generation, () -> resumeCluster(node));
	}

	private void resumeCluster(Node node) {
		if (!node.down && !node.closed && node.manager().isPaused(CLUSTER)) {
			trace(node, "resume");
			node.manager().resume(CLUSTER);
		}
	}

	// ---------------------------------------------------------------- checks

	private void check() {
		if (this.violation != null) {
			return;
		}
		this.observing = true;
		try {
			checkHolders();
		}
		finally {
			this.observing = false;
		}
	}

	private void checkHolders() {
		Throwable failure = this.actorFailure;
		if (failure != null) {
			java.io.StringWriter text = new java.io.StringWriter();
			failure.printStackTrace(new java.io.PrintWriter(text));
			fail("an instance's tick threw: " + text);
			return;
		}
		Node first = null;
		for (Node node : this.nodes) {
			if (!node.holding()) {
				continue;
			}
			if (first == null) {
				first = node;
				continue;
			}
			for (Node other : this.nodes) {
				if (other == node || other.index > node.index || !other.holding()) {
					continue;
				}
				if (excused(other, node)) {
					this.excused++;
				}
				else {
					fail("two holders: " + other.id + " and " + node.id + " (" + status() + ")");
					return;
				}
			}
		}
	}

	private boolean excused(Node a, Node b) {
		long at = this.lastFault[a.index][b.index];
		return this.config.faults().lossy() && at != NONE && this.now - at < this.excuse;
	}

	private String status() {
		StringBuilder b = new StringBuilder();
		for (Node node : this.nodes) {
			if (b.length() > 0) {
				b.append("; ");
			}
			b.append(node.id).append(' ');
			if (node.down) {
				b.append("down");
				continue;
			}
			b.append(node.stopped ? "stopped " : "").append(node.closed ? "closed " : "");
			PollingManager m = node.manager();
			b.append(m.isHolding(CLUSTER) ? "holding" : "not holding").append(m.isPaused(CLUSTER) ? " paused" : "");
			Decision d = node.lastDecision;
			if (d != null) {
				b.append(", last decision ").append(d.reason());
			}
		}
		return b.toString();
	}

	private void fail(String message) {
		if (this.violation == null) {
			this.violation = message;
			this.decisionsAtViolation = this.decisions;
			trace("sim", "VIOLATION " + message);
		}
	}

	private boolean isHolding(Node node) {
		this.observing = true;
		try {
			return node.holding();
		}
		finally {
			this.observing = false;
		}
	}

	private boolean anyoneHolds() {
		this.observing = true;
		try {
			return this.nodes.stream().anyMatch(Node::holding);
		}
		finally {
			this.observing = false;
		}
	}

	private void liveness() {
		this.healing = true;
		trace("sim", "healing: no more faults");
		long quiet = this.now;
		for (Node node : this.nodes) {
			if (node.otherSettings) {
				// the rolling change completes: the instance is restarted with the same settings as the others
				if (!node.down) {
					kill(node, true);
				}
				node.otherSettings = false;
				start(node, this.rng.nextLong(SimConfig.TICK.toNanos()));
			}
			else if (node.down || node.closed) {
				if (!node.down) {
					kill(node, true);
				}
				start(node, this.rng.nextLong(SimConfig.TICK.toNanos()));
			}
			else {
				if (node.stopped) {
					quiet = Math.max(quiet, node.resumeAt);
				}
				if (node.busyUntil > this.now) {
					// work that began before the healing (up to three wait times) keeps its timer thread busy
					quiet = Math.max(quiet, node.busyUntil + (node.stopped ? node.resumeAt - this.now : 0));
				}
				int generation = node.generation;
				at(this.now, node, generation, () -> resumeCluster(node));
			}
		}
		long deadline = quiet + 2 * PT + WAIT + SimConfig.TAKEOVER_BOUND.toNanos();
		runUntil(deadline);
		if (this.violation != null) {
			return;
		}
		this.observing = true;
		Node holder = this.nodes.stream().filter(Node::holding).findFirst().orElse(null);
		this.observing = false;
		if (holder == null) {
			fail("liveness: nobody holds the cluster " + (deadline - quiet) / 1_000_000L + " ms after the faults ended (" + status() + ")");
			return;
		}
		int mode = this.rng.nextInt(3);
		switch (mode) {
			case 0 -> crash(holder);
			case 1 -> release(holder);
			default -> pause(holder);
		}
		// a release or pause during a cycle hands over when the cycle ends
		long handoverBound = this.now + SimConfig.MAX_CYCLE.toNanos() + 1_000_000_000L;
		while (this.violation == null && isHolding(holder)) {
			Event next = this.queue.peek();
			if (next == null || next.time > handoverBound) {
				fail("liveness: the holder " + holder.id + " still holds " + (handoverBound - this.now) / 1_000_000L + " ms after it was "
						+ ((mode == 1) ? "released" : "paused") + " (" + status() + ")");
				return;
			}
			step();
		}
		long left = this.now;
		long bound = left + SimConfig.TAKEOVER_BOUND.toNanos();
		while (this.violation == null && !anyoneHolds()) {
			Event next = this.queue.peek();
			if (next == null || next.time > bound) {
				fail("liveness: nobody acquired within " + SimConfig.TAKEOVER_BOUND.toMillis() + " ms after the holder " + holder.id + " "
						+ ((mode == 0) ? "crashed" : (mode == 1) ? "released" : "paused") + " (" + status() + ")");
				return;
			}
			step();
		}
		if (this.violation == null) {
			this.takeoverNanos = this.now - left;
			trace("sim", "takeover after " + this.takeoverNanos / 1_000L + "us");
		}
	}

}
