package dev.polling.core.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.concurrent.Semaphore;
import java.util.function.LongSupplier;

import org.jspecify.annotations.Nullable;

import dev.polling.core.ClusterCoordinator;
import dev.polling.core.ClusterDefinition;
import dev.polling.core.Decision;
import dev.polling.core.PollingListener;
import dev.polling.core.PollingManager;
import dev.polling.core.PollingSettings;
import dev.polling.core.SimulationHooks;
import dev.polling.core.TimeSource;

/**
 * The cycle invariant for a cluster decided by a {@link ClusterCoordinator}, with the coordinator
 * (over a simulated or in-memory store) as the parameter: several real {@link PollingManager}s, one
 * per instance, each with its own coordinator of the store, on one virtual clock, every choice drawn
 * from one seeded generator.
 *
 * <h2>How it runs</h2>
 * A discrete-event scheduler owns the virtual clock. Each instance's timer thread is a coroutine: it
 * runs {@code runIfGranted} with a task of random length (0, 1-300 ms, or one to three wait times),
 * then waits 0.5-1.5 s; exactly one thread runs at a time, and control passes at the task's work
 * and the wait between ticks. A store request is atomic on the virtual clock (it runs on the
 * coordinator's request thread while the deciding thread waits for it; nothing else happens
 * meanwhile); latency within the coordinator's margins is the subject of the store modules'
 * hold-level simulations. A seed gives the same run every time, whatever the machine's load: the
 * scheduler decides only on the virtual clock and on flags its threads set before handing the turn
 * back (never on whether a thread has terminated yet), and it stops the run as a violation if a
 * request was still under way when it went on (the core's real-time wait for it ran out).
 *
 * <h2>Faults</h2>
 * Requests to the store fail before they are applied (3 %) or lose their answer after (3 %);
 * operator actions (pause, release, resume, a balancing handover, a shutdown with a restart) at
 * random times, in the listener's {@code onDecision} between a grant and the start of its cycle, and
 * inside cycles; JVM freezes (below the stop threshold, or longer than the failover period) and
 * crashes with a restart under the same instance id; a third of the seeds set {@code max-cycle-time};
 * and the store's own faults ({@link Store#fault}: a lock forgotten or deleted, a lease written with
 * another duration).
 *
 * <h2>Checks</h2>
 * <ul>
 * <li>Cycles: when a cycle ends (its task returns, or its JVM crashes) it is compared with every
 * cycle of another incarnation that ended before; two that overlap are a violation unless excused,
 * counted by reason: the store's documented gaps, each under its own name ({@link Store#gapNames}: the later
 * cycle's instance entered it between the two starts), {@code store} (the store broke its word: a
 * store fault between the earlier cycle's start and the later one's, for stores whose faults excuse
 * overlaps at all, {@link Store#faultsExcuse}), {@code freeze} (the earlier cycle's JVM froze between the two
 * starts; the task, which the library cannot interrupt, runs on after it), {@code maxCycleTime} (the
 * later cycle started at least {@code max-cycle-time} after the earlier one). The failover period
 * (40 s) is longer than the longest cycle plus the tick delay, as the coordinators' documentation
 * requires.</li>
 * <li>Fencing, for stores that hand out tokens: a new grant's token exceeds every token granted
 * before it for the cluster, a renewal's is not below it (it may exceed it: its own grant whose answer was lost); excused only after a store fault (a
 * reset of the store; for stores whose faults excuse nothing, only after an instance logged that the
 * store lost history, {@link Store#resetLogged}), counted as {@code tokenResets}; or after a store
 * fault that nobody logged, by a process that never saw the higher token ({@link Store#neverSaw}),
 * counted apart as {@code tokenResetsUnlogged}. Stores without tokens must hand out none.</li>
 * </ul>
 */
public final class StoreCycleSimulation {

	public static final String CLUSTER = "sc1";

	public static final Duration WAIT_TIME = Duration.ofSeconds(10);

	/** The failover period the store modules configure: longer than the longest cycle (30 s) plus a tick. */
	public static final Duration FAILOVER = Duration.ofSeconds(40);

	/** Long enough that the real wait for a request thread never runs out (requests are in memory). */
	static final Duration PEER_TIMEOUT = Duration.ofSeconds(4);

	private static final long START = 1_000_000_000_000L;

	private static final Instant EPOCH = Instant.parse("2026-01-01T00:00:00Z");

	private static final long NONE = Long.MIN_VALUE;

	private static final long SECOND = 1_000_000_000L;

	private static final long MS = 1_000_000L;

	/** {@code -Dpolling.storesim.trace=true}: each seed's events on standard output (to replay one seed). */
	private static final boolean TRACE = Boolean.getBoolean("polling.storesim.trace");

	private void trace(String what) {
		if (TRACE) {
			System.out.println("  " + millis(this.now) + " " + what);
		}
	}

	/** A store under test: a coordinator per process, its own faults. */
	public interface Store extends AutoCloseable {

		/** A coordinator of this store for a new process of the given instance. */
		ClusterCoordinator coordinator(String instanceId);

		/** Breaks the store's word once (forget or delete the lock, ...); returns what it did, or null when it has no such fault. */
		@Nullable String fault(SplittableRandom random);

		/** Whether grants carry a fencing token. */
		boolean handsOutTokens();

		/**
		 * A coordinator of this store for a new process of the given instance, configured with choices
		 * drawn from the seed's generator (a store whose instances may be configured differently); by
		 * default {@link #coordinator(String)}, drawing nothing.
		 */
		default ClusterCoordinator coordinator(String instanceId, SplittableRandom random) {
			return coordinator(instanceId);
		}

		/**
		 * Whether a {@link #fault} excuses the overlaps and token resets that follow it (a store that
		 * forgets a lock cannot keep its word); false for a coordinator that claims to survive its
		 * store's faults, which then excuse nothing but {@link #gap} and {@link #resetLogged}.
		 */
		default boolean faultsExcuse() {
			return true;
		}

		/**
		 * The names of the coordinator's documented gaps (cases it knowingly lets two instances hold),
		 * each counted as an excuse of its own; empty when it has none.
		 */
		default List<String> gapNames() {
			return List.of();
		}

		/**
		 * Which documented gap (one of {@link #gapNames}) let the later cycle's instance start its cycle
		 * beside the earlier one's (the cycles' starts, the simulation's nanos); null for none.
		 */
		default @Nullable String gap(String earlierInstanceId, String laterInstanceId, long from, long to) {
			return null;
		}

		/** Whether an instance logged that the store lost history (its tokens may go back) between the two times. */
		default boolean resetLogged(long from, long to) {
			return false;
		}

		/**
		 * Whether the given instance's current process has never read or written a token as high as the
		 * given one: after a store fault that nobody logged, it cannot know of it (counted apart, as
		 * {@code tokenResetsUnlogged}, for stores whose faults excuse nothing).
		 */
		default boolean neverSaw(String instanceId, long token) {
			return false;
		}

		/**
		 * How far apart the store's faults are: the next comes 5 s plus up to this long after the last
		 * (60 s by default, one every 35 s on average).
		 */
		default Duration faultSpread() {
			return Duration.ofSeconds(60);
		}

		@Override
		default void close() {
		}

	}

	/** Creates a fresh store for one seed, reading the given virtual clock (nanoseconds and wall time). */
	@FunctionalInterface
	public interface StoreFactory {

		Store create(LongSupplier nanoTime, java.util.function.Supplier<Instant> wallTime);

	}

	/** What a run (or several) exercised; an overlap not excused is a violation. */
	public static final class Stats {

		public long seeds;

		public long violations;

		public long decisions;

		public long grants;

		public long cycles;

		public long excusedStore;

		public long excusedFreeze;

		public long excusedMaxCycle;

		/** Overlaps in the store's documented gaps ({@link Store#gapNames}), by name. */
		public final java.util.Map<String, Long> excusedGaps = new java.util.LinkedHashMap<>();

		public long tokens;

		public long tokenResets;

		/** Token resets after a store fault that nobody logged, by a process that had never seen the higher token. */
		public long tokenResetsUnlogged;

		public long storeFaults;

		public long failedRequests;

		public long lostAnswers;

		public long freezes;

		public long crashes;

		public long operatorActions;

		public long virtualNanos;

		public void add(Stats o) {
			this.seeds += o.seeds;
			this.violations += o.violations;
			this.decisions += o.decisions;
			this.grants += o.grants;
			this.cycles += o.cycles;
			this.excusedStore += o.excusedStore;
			this.excusedFreeze += o.excusedFreeze;
			this.excusedMaxCycle += o.excusedMaxCycle;
			o.excusedGaps.forEach((gap, count) -> this.excusedGaps.merge(gap, count, Long::sum));
			this.tokens += o.tokens;
			this.tokenResets += o.tokenResets;
			this.tokenResetsUnlogged += o.tokenResetsUnlogged;
			this.storeFaults += o.storeFaults;
			this.failedRequests += o.failedRequests;
			this.lostAnswers += o.lostAnswers;
			this.freezes += o.freezes;
			this.crashes += o.crashes;
			this.operatorActions += o.operatorActions;
			this.virtualNanos += o.virtualNanos;
		}

		private String gaps() {
			StringBuilder gaps = new StringBuilder();
			this.excusedGaps.forEach((gap, count) -> gaps.append(' ').append(gap).append('=').append(count));
			return gaps.toString();
		}

		public String summary(String store, boolean tokensHandedOut, long wallMillis) {
			return "store simulation " + store + ": seeds=" + this.seeds + " decisions=" + this.decisions + " violations="
					+ this.violations + " grants=" + this.grants + " cycles=" + this.cycles + " excusedCycleOverlaps="
					+ (this.excusedStore + this.excusedFreeze + this.excusedMaxCycle + this.excusedGaps.values().stream().mapToLong(Long::longValue).sum())
					+ " (store=" + this.excusedStore + gaps() + " freeze=" + this.excusedFreeze
					+ " maxCycleTime=" + this.excusedMaxCycle + ") "
					+ (tokensHandedOut ? "tokens=" + this.tokens + " tokenResets=" + this.tokenResets
							+ (this.excusedGaps.isEmpty() ? "" : " tokenResetsUnlogged=" + this.tokenResetsUnlogged) : "tokens=none (the store has no fencing token)")
					+ " storeFaults=" + this.storeFaults + " failedRequests=" + this.failedRequests + " lostAnswers=" + this.lostAnswers
					+ " freezes=" + this.freezes + " crashes=" + this.crashes + " operatorActions=" + this.operatorActions
					+ " virtualHours=" + this.virtualNanos / 3_600_000_000_000L + " wallSeconds=" + wallMillis / 1000;
		}

	}

	/** The result of one seed. */
	public record Result(long seed, @Nullable String violation, Stats stats) {
	}

	// ------------------------------------------------------------------ state of one run

	private final long seed;

	private final SplittableRandom random;

	private final Store store;

	private final @Nullable Duration maxCycleTime;

	private final ClusterDefinition cluster;

	private final PriorityQueue<Event> queue = new PriorityQueue<>();

	private final Semaphore schedulerTurn = new Semaphore(0);

	private final List<Node> nodes = new ArrayList<>();

	private final List<Cycle> ended = new ArrayList<>();

	/** Times of the store's faults, ascending. */
	private final List<Long> storeFaults = new ArrayList<>();

	private final Stats stats = new Stats();

	private final VirtualClock clock = new VirtualClock();

	private long now = START;

	private long sequence;

	private long highestToken = -1;

	private long highestTokenAt = NONE;

	private @Nullable String violation;

	/**
	 * Requests to a coordinator under way. The core runs each on a thread of its own and waits for it at
	 * most twice the peer timeout of real time (a release: one); a JVM starved that long would go on
	 * beside it and the run would no longer follow the seed, so the scheduler refuses to go on then.
	 */
	private final java.util.concurrent.atomic.AtomicInteger requestsUnderWay = new java.util.concurrent.atomic.AtomicInteger();

	private StoreCycleSimulation(long seed, StoreFactory factory) {
		this.seed = seed;
		this.random = new SplittableRandom(seed);
		this.store = factory.create(() -> this.now, () -> EPOCH.plusNanos(this.now - START));
		this.maxCycleTime = (this.random.nextInt(3) == 0) ? Duration.ofSeconds(this.random.nextBoolean() ? 4 : 12) : null;
		this.cluster = ClusterDefinition.of(CLUSTER, WAIT_TIME).withMaxCycleTime(this.maxCycleTime);
	}

	/** Runs one seed until the given number of decisions (over all instances) or the first violation. */
	public static Result run(StoreFactory factory, long seed, int decisions) {
		StoreCycleSimulation simulation = new StoreCycleSimulation(seed, factory);
		PrintStream err = quiet();
		try {
			return simulation.run(decisions);
		}
		finally {
			System.setErr(err);
			simulation.store.close();
		}
	}

	/**
	 * Runs seeds {@code first} to {@code first + seeds - 1}, printing each violation (with its seed), the
	 * running totals every 100 seeds (runs of 100 seeds or more) and the summary line; returns the totals.
	 */
	public static Stats runSeeds(String name, StoreFactory factory, long first, int seeds, int decisions, PrintStream out) {
		long began = System.nanoTime();
		Stats total = new Stats();
		boolean tokens = false;
		PrintStream err = quiet();
		try {
		for (long seed = first; seed < first + seeds; seed++) {
			StoreCycleSimulation simulation = new StoreCycleSimulation(seed, factory);
			tokens |= simulation.store.handsOutTokens();
			Result result;
			try {
				result = simulation.run(decisions);
			}
			finally {
				simulation.store.close();
			}
			total.add(result.stats());
			if (result.violation() != null) {
				out.println("store simulation " + name + ": VIOLATION seed " + seed + " (" + decisions + " decisions): " + result.violation());
			}
			if (seeds >= PROGRESS_EVERY && (seed - first + 1) % PROGRESS_EVERY == 0 && seed < first + seeds - 1) {
				out.println("progress, " + total.summary(name, tokens, (System.nanoTime() - began) / 1_000_000L) + " (last seed "
						+ seed + ")");
				out.flush();
			}
		}
		}
		finally {
			System.setErr(err);
		}
		out.println(total.summary(name, tokens, (System.nanoTime() - began) / 1_000_000L));
		return total;
	}

	/**
	 * A store module's check: runs the seeds the system properties choose ({@code polling.storesim.seed},
	 * first seed, default 1; {@code polling.storesim.seeds}, default the module's number;
	 * {@code polling.storesim.decisions}, default 300) and asserts that no cycles overlapped unexcused, that
	 * cycles ran and that the store's faults happened; returns the totals for the module's own checks.
	 */
	public static Stats checkSeeds(String name, StoreFactory factory, int defaultSeeds) {
		Stats stats = runSeeds(name, factory, Long.getLong("polling.storesim.seed", 1),
				Integer.getInteger("polling.storesim.seeds", defaultSeeds), Integer.getInteger("polling.storesim.decisions", 300),
				System.out);
		assertThat(stats.violations).isZero();
		assertThat(stats.cycles).isPositive();
		assertThat(stats.storeFaults).isPositive();
		return stats;
	}

	/** Long runs print their running totals every so many seeds (surefire writes the output file when the test ends). */
	private static final int PROGRESS_EVERY = 100;

	private static final PrintStream DISCARD = new PrintStream(OutputStream.nullOutputStream());

	/** The instances' own log lines (lost answers, failures: thousands) are discarded unless {@code -Dpolling.sim.logs=true}. */
	private static PrintStream quiet() {
		PrintStream err = System.err;
		if (!Boolean.getBoolean("polling.sim.logs")) {
			System.setErr(DISCARD);
		}
		return err;
	}

	private Result run(int decisions) {
		int count = 2 + this.random.nextInt(3);
		for (int i = 0; i < count; i++) {
			Node node = new Node("i" + i);
			this.nodes.add(node);
			start(node, this.random.nextLong(3 * SECOND));
		}
		scheduleChaos();
		scheduleStoreFault();
		while (this.violation == null && this.stats.decisions < decisions && !this.queue.isEmpty()) {
			if (this.requestsUnderWay.get() != 0) {
				fail("a request to the coordinator was still under way when the scheduler went on: the core's real-time wait for "
						+ "it ran out (a starved JVM), so this run does not follow its seed; run it again on a less loaded machine");
				break;
			}
			Event event = this.queue.poll();
			this.now = Math.max(this.now, event.time);
			if (event.node != null && event.node.frozenUntil > this.now) {
				at(event.node.frozenUntil, event.node, event.action);
				continue;
			}
			event.action.run();
		}
		// end the run: every instance crashes, so that its thread finishes its tick and exits
		for (Node node : this.nodes) {
			node.frozenUntil = NONE;
			if (!node.dead) {
				crash(node, false);
			}
		}
		while (!this.queue.isEmpty() && this.nodes.stream().anyMatch((n) -> n.actorRunning)) {
			Event event = this.queue.poll();
			this.now = Math.max(this.now, event.time);
			if (event.wake) {
				event.action.run();
			}
		}
		this.stats.seeds = 1;
		this.store.gapNames().forEach((gap) -> this.stats.excusedGaps.putIfAbsent(gap, 0L));
		this.stats.violations = (this.violation != null) ? 1 : 0;
		this.stats.virtualNanos = this.now - START;
		return new Result(this.seed, this.violation, this.stats);
	}

	// ------------------------------------------------------------------ scheduler and coroutines

	private record Event(long time, long sequence, @Nullable Node node, boolean wake, Runnable action) implements Comparable<Event> {

		@Override
		public int compareTo(Event other) {
			int byTime = Long.compare(this.time, other.time);
			return (byTime != 0) ? byTime : Long.compare(this.sequence, other.sequence);
		}

	}

	private void at(long time, @Nullable Node node, Runnable action) {
		this.queue.add(new Event(time, this.sequence++, node, false, action));
	}

	/** Parks the calling instance thread until the virtual time; the scheduler runs meanwhile. */
	private void sleepUntil(Node node, long time) {
		Semaphore mine = new Semaphore(0);
		this.queue.add(new Event(Math.max(time, this.now), this.sequence++, node, true, () -> handTo(mine)));
		this.schedulerTurn.release();
		mine.acquireUninterruptibly();
	}

	private void handTo(Semaphore thread) {
		thread.release();
		this.schedulerTurn.acquireUninterruptibly();
	}

	private final class VirtualClock implements TimeSource {

		@Override
		public long nanoTime() {
			return StoreCycleSimulation.this.now;
		}

		@Override
		public Instant now() {
			return EPOCH.plusNanos(StoreCycleSimulation.this.now - START);
		}

		@Override
		public void sleep(Duration duration) {
			Node node = current();
			if (node != null) {
				sleepUntil(node, StoreCycleSimulation.this.now + duration.toNanos());
			}
		}

	}

	private @Nullable Node current() {
		for (Node node : this.nodes) {
			if (node.actor == Thread.currentThread()) {
				return node;
			}
		}
		return null;
	}

	// ------------------------------------------------------------------ instances

	/** An instance id and its current process (incarnation). */
	private final class Node implements SimulationHooks.Stops {

		final String id;

		int incarnation;

		@Nullable PollingManager manager;

		@Nullable Thread actor;

		/**
		 * Whether the current {@link #actor} has not finished its body yet: set by that thread before it hands
		 * the turn back, so the scheduler reads it in virtual-time order. Never {@link Thread#isAlive()}: a
		 * thread that has handed the turn back may or may not have terminated yet (real time, not the seed).
		 */
		volatile boolean actorRunning;

		boolean dead = true;

		boolean exiting;

		long frozenUntil = NONE;

		long stopCount;

		long lastStopEnd = NONE;

		/** Freezes of the current incarnation: [start, end) pairs; a new list per incarnation (its cycles keep theirs). */
		List<long[]> freezes = new ArrayList<>();

		@Nullable Cycle cycle;

		long token = -1;

		Node(String id) {
			this.id = id;
		}

		@Override
		public long stops() {
			return this.stopCount;
		}

		@Override
		public boolean stoppedWithin(Duration window) {
			return this.lastStopEnd != NONE && StoreCycleSimulation.this.now - this.lastStopEnd <= window.toNanos();
		}

		String name() {
			return this.id + "#" + this.incarnation;
		}

	}

	private void start(Node node, long delay) {
		node.incarnation++;
		node.dead = false;
		node.exiting = false;
		node.frozenUntil = NONE;
		node.stopCount = 0;
		node.lastStopEnd = NONE;
		node.freezes = new ArrayList<>();
		node.cycle = null;
		node.token = -1;
		PollingSettings settings = new PollingSettings(node.id, PEER_TIMEOUT, PollingSettings.defaults().unreachablePeerPolicy(),
				PollingSettings.DEFAULT_SETTLE_TIME, "dev.polling.storesim");
		int incarnation = node.incarnation;
		PollingManager.Builder builder = PollingManager.builder()
			.settings(settings)
			.cluster(this.cluster)
			.coordinator(CLUSTER, new Faulty(node, incarnation, this.store.coordinator(node.id, this.random)))
			.timeSource(this.clock)
			.listener(new Listener(node, incarnation));
		PollingManager manager = SimulationHooks.stopSource(builder, node).build();
		node.manager = manager;
		Semaphore go = new Semaphore(0);
		Thread actor = new Thread(() -> {
			go.acquireUninterruptibly();
			try {
				body(node, incarnation, manager);
			}
			finally {
				if (node.actor == Thread.currentThread()) {
					node.actorRunning = false;
				}
				this.schedulerTurn.release();
			}
		}, "storesim-" + node.name());
		actor.setDaemon(true);
		node.actor = actor;
		node.actorRunning = true;
		actor.start();
		this.queue.add(new Event(this.now + delay, this.sequence++, node, true, () -> handTo(go)));
	}

	private boolean alive(Node node, int incarnation) {
		return !node.dead && node.incarnation == incarnation;
	}

	/** An instance's timer thread: ticks until its process ends, then closes its manager (a crashed one's requests go nowhere). */
	private void body(Node node, int incarnation, PollingManager manager) {
		while (alive(node, incarnation) && !node.exiting) {
			long work = cycleLength();
			manager.runIfGranted(CLUSTER, () -> cycle(node, incarnation, work));
			if (!alive(node, incarnation)) {
				break;
			}
			sleepUntil(node, this.now + 500 * MS + this.random.nextLong(1000 * MS));
		}
		manager.close();
		if (alive(node, incarnation) && node.exiting) {
			node.dead = true;
			at(this.now + this.random.nextLong(2 * FAILOVER.toNanos()), null, () -> start(node, 0));
		}
	}

	private long cycleLength() {
		int kind = this.random.nextInt(10);
		if (kind < 2) {
			return 0;
		}
		if (kind < 8) {
			return (1 + this.random.nextLong(300)) * MS;
		}
		return WAIT_TIME.toNanos() + this.random.nextLong(2 * WAIT_TIME.toNanos());
	}

	private void cycle(Node node, int incarnation, long work) {
		if (!alive(node, incarnation)) {
			return;
		}
		Cycle cycle = new Cycle(node, incarnation, this.now);
		node.cycle = cycle;
		trace(node.name() + " cycle starts (" + work / MS + " ms)");
		this.stats.cycles++;
		if (work > 0 && this.random.nextInt(10) == 0) {
			at(this.now + this.random.nextLong(work), node, () -> {
				if (alive(node, incarnation)) {
					operatorAction(node, "inside a cycle");
				}
			});
		}
		sleepUntil(node, this.now + work);
		if (node.cycle == cycle) {
			endCycle(node, cycle, this.now);
		}
	}

	private final class Listener implements PollingListener {

		private final Node node;

		private final int incarnation;

		Listener(Node node, int incarnation) {
			this.node = node;
			this.incarnation = incarnation;
		}

		@Override
		public void onDecision(Decision decision) {
			if (!alive(this.node, this.incarnation)) {
				return;
			}
			StoreCycleSimulation.this.stats.decisions++;
			trace(this.node.name() + " " + decision.reason() + " " + decision.peers().stream().map((p) -> p.instanceId() + " " + p.detail()).toList());
			if (decision.isGranted()) {
				granted(this.node, decision);
				if (StoreCycleSimulation.this.random.nextInt(40) == 0) {
					operatorAction(this.node, "between a grant and its cycle");
				}
			}
		}

	}

	private void granted(Node node, Decision decision) {
		boolean renewed = decision.reason() == Decision.Reason.RENEWED;
		if (!renewed) {
			this.stats.grants++;
		}
		long token = node.manager.fencingToken(CLUSTER).orElse(-1);
		if (!this.store.handsOutTokens()) {
			if (token != -1) {
				fail(node.name() + " was granted token " + token + " by a store that hands out none");
			}
			return;
		}
		this.stats.tokens++;
		// a renewal may carry a higher token than the highest seen: its own grant whose answer was lost
		boolean ok = renewed ? token >= this.highestToken : token > this.highestToken;
		if (!ok) {
			if (excusedByStore(this.highestTokenAt, this.now)) {
				this.stats.tokenResets++;
			}
			else if (!this.store.faultsExcuse() && storeFaultBetween(this.highestTokenAt, this.now)
					&& this.store.neverSaw(node.id, this.highestToken)) {
				this.stats.tokenResetsUnlogged++;
			}
			else {
				fail(node.name() + (renewed ? " renewed with token " : " was granted token ") + token + " while the highest token granted before is "
						+ this.highestToken + " (no store fault" + (this.store.faultsExcuse() ? "" : " logged") + " since it was granted at "
						+ millis(this.highestTokenAt) + ")");
				return;
			}
		}
		if (token != this.highestToken) {
			this.highestToken = token;
			this.highestTokenAt = this.now;
		}
		node.token = token;
	}

	// ------------------------------------------------------------------ the coordinator as the instance reaches its store

	/** The coordinator under test behind the faults of the way to the store; a crashed process's requests go nowhere. */
	private final class Faulty implements ClusterCoordinator {

		private final Node node;

		private final int incarnation;

		private final ClusterCoordinator coordinator;

		Faulty(Node node, int incarnation, ClusterCoordinator coordinator) {
			this.node = node;
			this.incarnation = incarnation;
			this.coordinator = coordinator;
		}

		@Override
		public Claim acquire(ClusterDefinition cluster, String instanceId) {
			if (!alive(this.node, this.incarnation)) {
				return Claim.unavailable("the process is gone");
			}
			StoreCycleSimulation.this.requestsUnderWay.incrementAndGet();
			try {
				int fault = StoreCycleSimulation.this.random.nextInt(100);
				if (fault < 3) {
					StoreCycleSimulation.this.stats.failedRequests++;
					return Claim.unavailable("simulated: the request failed");
				}
				Claim claim = this.coordinator.acquire(cluster, instanceId);
				if (fault < 6) {
					StoreCycleSimulation.this.stats.lostAnswers++;
					return Claim.unavailable("simulated: the answer was lost");
				}
				return claim;
			}
			finally {
				StoreCycleSimulation.this.requestsUnderWay.decrementAndGet();
			}
		}

		@Override
		public void release(ClusterDefinition cluster, String instanceId) {
			StoreCycleSimulation.this.requestsUnderWay.incrementAndGet();
			try {
				if (!alive(this.node, this.incarnation) || StoreCycleSimulation.this.random.nextInt(100) < 3) {
					return;
				}
				this.coordinator.release(cluster, instanceId);
			}
			finally {
				StoreCycleSimulation.this.requestsUnderWay.decrementAndGet();
			}
		}

		@Override
		public String describe() {
			return this.coordinator.describe();
		}

	}

	// ------------------------------------------------------------------ faults

	private void scheduleChaos() {
		at(this.now + 200 * MS + this.random.nextLong(4 * SECOND), null, () -> {
			chaos();
			scheduleChaos();
		});
	}

	private void chaos() {
		Node node = this.nodes.get(this.random.nextInt(this.nodes.size()));
		if (node.dead || node.frozenUntil > this.now) {
			return;
		}
		int kind = this.random.nextInt(20);
		if (kind < 2) {
			freeze(node);
		}
		else if (kind < 3) {
			crash(node, true);
		}
		else {
			operatorAction(node, "at random");
		}
	}

	private void freeze(Node node) {
		this.stats.freezes++;
		long threshold = SimulationHooks.stopThreshold(node.manager.settings()).toNanos();
		long length = this.random.nextBoolean() ? this.random.nextLong(threshold)
				: FAILOVER.toNanos() + this.random.nextLong(FAILOVER.toNanos());
		node.frozenUntil = this.now + length;
		trace(node.name() + " freezes for " + length / MS + " ms");
		node.freezes.add(new long[] { this.now, node.frozenUntil });
		if (length > threshold) {
			long end = node.frozenUntil;
			at(end, node, () -> {
				node.stopCount++;
				node.lastStopEnd = end;
			});
		}
	}

	private void crash(Node node, boolean restart) {
		if (restart) {
			this.stats.crashes++;
		}
		node.dead = true;
		trace(node.name() + " crashes");
		if (node.cycle != null) {
			endCycle(node, node.cycle, this.now);
		}
		if (restart) {
			at(this.now + this.random.nextLong(2 * FAILOVER.toNanos()), null, () -> {
				if (!node.actorRunning) {
					start(node, 0);
				}
				else {
					// its old thread still finishes a cycle's wait; start after it
					at(this.now + SECOND, null, () -> start(node, 0));
				}
			});
		}
	}

	private void operatorAction(Node node, String where) {
		PollingManager manager = node.manager;
		if (node.exiting) {
			return;
		}
		this.stats.operatorActions++;
		int kind = this.random.nextInt(10);
		trace(node.name() + " operator " + new String[] { "release", "release", "release", "pause", "pause", "resume", "resume", "resume", "handover", "shutdown" }[kind] + " " + where);
		if (kind < 3) {
			manager.release(CLUSTER);
		}
		else if (kind < 5) {
			manager.pause(CLUSTER);
		}
		else if (kind < 8) {
			manager.resume(CLUSTER);
		}
		else if (kind < 9) {
			SimulationHooks.handOver(manager, CLUSTER);
		}
		else {
			manager.shutdown();
			node.exiting = true;
		}
	}

	private void scheduleStoreFault() {
		at(this.now + 5 * SECOND + this.random.nextLong(this.store.faultSpread().toNanos()), null, () -> {
			String fault = this.store.fault(this.random);
			trace("store: " + fault);
			if (fault != null) {
				this.stats.storeFaults++;
				this.storeFaults.add(this.now);
			}
			scheduleStoreFault();
		});
	}

	/** A store fault between the two times that excuses what follows: any, or for a store whose faults excuse nothing, a logged reset. */
	private boolean excusedByStore(long from, long to) {
		return this.store.faultsExcuse() ? storeFaultBetween(from, to) : this.store.resetLogged(from, to);
	}

	private boolean storeFaultBetween(long from, long to) {
		for (int i = this.storeFaults.size() - 1; i >= 0; i--) {
			long at = this.storeFaults.get(i);
			if (at < from) {
				return false;
			}
			if (at <= to) {
				return true;
			}
		}
		return false;
	}

	// ------------------------------------------------------------------ cycles

	private static final class Cycle {

		final Node node;

		final int incarnation;

		final long start;

		long end = NONE;

		final List<long[]> freezes;

		Cycle(Node node, int incarnation, long start) {
			this.node = node;
			this.incarnation = incarnation;
			this.start = start;
			this.freezes = node.freezes;
		}

		String describe() {
			return this.node.id + "#" + this.incarnation + " from " + millis(this.start) + " to " + millis(this.end);
		}

	}

	private void endCycle(Node node, Cycle cycle, long end) {
		cycle.end = end;
		trace(node.name() + " cycle ends");
		node.cycle = null;
		for (Cycle other : this.ended) {
			if (other.node == node && other.incarnation == cycle.incarnation) {
				continue;
			}
			if (other.start < cycle.end && cycle.start < other.end) {
				judge(other, cycle);
			}
		}
		this.ended.add(cycle);
		if (this.ended.size() > 100) {
			this.ended.remove(0);
		}
	}

	private void judge(Cycle a, Cycle b) {
		Cycle earlier = (a.start <= b.start) ? a : b;
		Cycle later = (earlier == a) ? b : a;
		String gap = this.store.gap(earlier.node.id, later.node.id, earlier.start, later.start);
		if (gap != null) {
			this.stats.excusedGaps.merge(gap, 1L, Long::sum);
		}
		else if (this.store.faultsExcuse() && storeFaultBetween(earlier.start, later.start)) {
			this.stats.excusedStore++;
		}
		else if (earlier.freezes.stream().anyMatch((f) -> f[0] < later.start && f[1] > earlier.start)) {
			this.stats.excusedFreeze++;
		}
		else if (this.maxCycleTime != null && later.start - earlier.start >= this.maxCycleTime.toNanos()) {
			this.stats.excusedMaxCycle++;
		}
		else {
			fail("two cycles at once: " + earlier.describe() + ", " + later.describe());
		}
	}

	private void fail(String what) {
		if (this.violation == null) {
			this.violation = "seed " + this.seed + " (" + this.nodes.size() + " instances, max-cycle-time "
					+ ((this.maxCycleTime != null) ? this.maxCycleTime.toSeconds() + " s" : "none") + "), at " + millis(this.now) + ": " + what;
		}
	}

	private static String millis(long nanos) {
		return (nanos == NONE) ? "never" : ((nanos - START) / 1_000_000L) + " ms";
	}

}
