package dev.polling.kubernetes;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Random;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.polling.core.ClusterCoordinator.Claim;
import dev.polling.core.ClusterDefinition;
import dev.polling.kubernetes.LeaseCoordinator.Expiry;
import dev.polling.kubernetes.LeaseStore.LeaseRecord;
import dev.polling.kubernetes.LeaseStore.Observed;
import dev.polling.kubernetes.LeaseStore.StoreFault;
import dev.polling.kubernetes.LeaseStore.Write;

/**
 * A seeded, single-threaded simulation of several instances deciding through the real
 * {@link LeaseCoordinator} against a simulated Lease store with resourceVersion semantics, on a
 * virtual time line.
 *
 * <p>Each instance has a monotonic clock of its own: {@code offset + virtual time x rate}, the rate
 * within ±1 %, and a wall clock skewed by up to {@link #WALL_SKEW}. A request sent at virtual time
 * {@code t} is applied at {@code t + d1} and answered at {@code t + d1 + d2}; some requests fail (not
 * applied, answered with a fault), some answers are lost (applied, answered with a fault), some delays
 * are longer than the lease duration, and instances freeze between two decisions for spans beyond
 * the lease duration. While an instance waits for an answer the others go on: the store call runs the
 * event loop re-entrantly until the answer is due (an answer may come later than planned when a
 * nested call returns later, which is just a longer delay).
 *
 * <p>With {@code hostile} set, the store also forgets: an operator deletes the Lease at random
 * moments, or replaces it by an older copy (a namespace restored from a backup: fewer transitions,
 * a holder that is gone), and the instances run with different lease durations (15 s or 30 s, as
 * during a rolling change of it), each with its own renew deadline.
 *
 * <p>Invariant: a grant is valid from the virtual time its successful write (create or update naming
 * the instance holder, answered without a fault) was sent until {@code renewDeadline / rate} later,
 * or until the instance sends a release, whichever comes first. No two grants of different instances
 * have overlapping validity; of two grants of different instances the later one has the greater
 * epoch; a renewal keeps the epoch, and every other grant (a new holder, or the same one after a gap)
 * has a greater epoch than every grant before it, store resets included. The one excuse: a store
 * reset that an instance logged (a Lease it re-created after a delete while not holding it, whose
 * transitions went back, or that it created knowing no earlier token) after the grant of the highest
 * token so far; such grants are counted
 * ({@link #excused}), never silently passed.
 */
final class LeaseSimulation {

	static final Duration LEASE = Duration.ofSeconds(15);

	static final Duration WALL_SKEW = Duration.ofSeconds(8);

	private static final long SECOND = 1_000_000_000L;

	/** Thousands of simulated outages: logged under a name of their own, off in the tests' logging configuration. */
	private static final Logger LOGGER = LoggerFactory.getLogger("dev.polling.kubernetes.simulation");

	private static final ClusterDefinition CLUSTER = ClusterDefinition.of("SIM", Duration.ofSeconds(10));

	private final long seed;

	private final Random random;

	private final Expiry expiry;

	private final double renewFraction;

	private final boolean hostile;

	private final List<Instance> instances = new ArrayList<>();

	private final PriorityQueue<Tick> ticks = new PriorityQueue<>();

	private final PriorityQueue<Request> pending = new PriorityQueue<>();

	private final SimulatedLeases leases = new SimulatedLeases();

	private final List<Window> windows = new ArrayList<>();

	private long now;

	/** Debugging: events from this virtual time on (ms) are printed. */
	long traceFrom = Long.MAX_VALUE;

	private void trace(String event) {
		if (this.now / 1_000_000L >= this.traceFrom) {
			System.out.println(this.now / 1_000_000L + " ms: " + event);
		}
	}

	private long sequence;

	/** Decisions and releases so far, of all instances (also those run while another waits for an answer). */
	private int steps;

	/** Statistics: grants, holder changes, conflicts, faults. */
	int grants;

	int holderChanges;

	int conflicts;

	int faults;

	int releases;

	int deletes;

	int restores;

	/** Grants whose token was not above every earlier one, by an instance that had logged a store reset. */
	int excused;

	/** Grants that took over a Lease written with another lease duration than the taker's. */
	int mixedTakeovers;

	private @Nullable String lastHolder;

	private long maxEpoch = -1;

	/** When the grant of {@link #maxEpoch} happened, and when an instance last logged a store reset (virtual nanos). */
	private long maxEpochAt = -1;

	private long resetLoggedAt = -2;

	LeaseSimulation(long seed, Expiry expiry) {
		this(seed, expiry, false);
	}

	LeaseSimulation(long seed, Expiry expiry, boolean hostile) {
		this.seed = seed;
		this.random = new Random(seed);
		this.expiry = expiry;
		this.hostile = hostile;
		this.renewFraction = 0.5 + 0.4 * this.random.nextDouble();
		int count = 3 + this.random.nextInt(3);
		for (int i = 0; i < count; i++) {
			this.instances.add(new Instance("i" + i));
		}
	}

	/**
	 * Runs at least the given number of decisions and releases, of all instances together.
	 * @throws AssertionError naming the seed when the invariant breaks
	 */
	LeaseSimulation run(int steps) {
		for (Instance instance : this.instances) {
			schedule(instance, (long) (this.random.nextDouble() * SECOND));
		}
		if (this.hostile) {
			// after every instance has read the Lease at least once, typically
			schedule(null, 3 * LEASE.toNanos());
		}
		while (this.steps < steps) {
			Tick tick = this.ticks.poll();
			this.now = Math.max(this.now, tick.at);
			step(tick.instance);
		}
		return this;
	}

	/** An operator deletes the Lease, or replaces it by an older copy; then the next such moment is scheduled. */
	private void operator() {
		if (this.instances.stream().anyMatch((instance) -> !instance.sawLease)) {
			// a fresh instance that finds no Lease creates and holds it at once: it cannot tell a first start
			// from a delete (documented, logged); the store forgets only once every instance has seen the Lease
			schedule(null, LEASE.toNanos());
			return;
		}
		for (String name : this.leases.names()) {
			long transitions = this.leases.get(name).record().transitions();
			if (this.random.nextDouble() < 0.3 && transitions >= 3) {
				// restored from a backup: fewer transitions, a holder that no longer runs
				long older = this.random.nextInt((int) Math.min(Integer.MAX_VALUE, transitions - 2));
				Instant then = Instant.parse("2026-01-01T00:00:00Z").plusNanos(this.now / 2);
				Observed restored = this.leases.restore(name, new LeaseRecord("restored-pod", (int) LEASE.toSeconds(), then, then, older));
				this.restores++;
				trace("operator restores " + restored);
			}
			else {
				this.leases.delete(name);
				this.deletes++;
				trace("operator deletes");
			}
		}
		schedule(null, (long) (this.random.nextDouble() * 24 * LEASE.toNanos()));
	}

	long virtualMillis() {
		return this.now / 1_000_000L;
	}

	private void schedule(@Nullable Instance instance, long delay) {
		this.ticks.add(new Tick(this.now + delay, this.sequence++, instance));
	}

	private void step(@Nullable Instance instance) {
		if (instance == null) {
			operator();
			return;
		}
		this.steps++;
		if (this.random.nextDouble() < (instance.holding ? 0.02 : 0.005)) {
			// a pause or shutdown: the grant ends when the release is sent
			instance.endWindowAt(this.now);
			instance.holding = false;
			this.releases++;
			instance.coordinator.release(CLUSTER, instance.id);
		}
		else {
			instance.grantSentAt = -1;
			instance.takenFrom = null;
			trace(instance.id + " decides");
			Claim claim = instance.coordinator.acquire(CLUSTER, instance.id);
			trace(instance.id + " (lease " + instance.lease.toSeconds() + " s) " + claim);
			instance.holding = claim.granted();
			if (claim.granted()) {
				granted(instance, claim);
			}
		}
		long next = (long) ((0.8 + 0.4 * this.random.nextDouble()) * SECOND);
		if (this.random.nextDouble() < 0.01) {
			// frozen (a stop-the-world pause, a suspended VM): its clocks run on
			next += (long) ((1 + 2 * this.random.nextDouble()) * LEASE.toNanos());
		}
		schedule(instance, next);
	}

	private void granted(Instance instance, Claim claim) {
		if (instance.grantSentAt < 0) {
			throw failure("granted to " + instance.id + " without a successful write in the same decision");
		}
		Window window = new Window(instance, instance.grantSentAt, instance.grantSentAt + (long) (instance.renewNanos / instance.rate),
				claim.epoch());
		// a grant after a store reset that an instance logged since the highest token was granted, and its renewals
		boolean excuse = claim.renewed() ? claim.epoch() == instance.excusedEpoch
				: claim.epoch() <= this.maxEpoch && this.resetLoggedAt > this.maxEpochAt;
		for (Window other : this.windows) {
			if (other.instance == instance) {
				continue;
			}
			if (window.start < other.end && other.start < window.end) {
				throw failure("grants overlap: " + window + " and " + other);
			}
			if (!excuse && !other.excused && (other.start < window.start) != (other.epoch < window.epoch)) {
				throw failure("epochs do not grow with the holder: " + other + " then " + window);
			}
		}
		if (claim.renewed() ? claim.epoch() != instance.lastEpoch : claim.epoch() <= this.maxEpoch && !excuse) {
			throw failure((claim.renewed() ? "a renewal changed the epoch: " + instance.lastEpoch + " to " : "a new grant's epoch is not above "
					+ "every earlier one (" + this.maxEpoch + "): ") + window);
		}
		if (excuse) {
			window.excused = true;
			if (!claim.renewed()) {
				this.excused++;
				instance.excusedEpoch = claim.epoch();
			}
		}
		if (claim.epoch() > this.maxEpoch) {
			this.maxEpochAt = this.now;
		}
		if (!claim.renewed()) {
			if (instance.takenFrom != null && instance.takenFrom.holder() != null && !instance.id.equals(instance.takenFrom.holder())
					&& instance.takenFrom.durationSeconds() != instance.lease.toSeconds()) {
				this.mixedTakeovers++;
			}
		}
		instance.lastEpoch = claim.epoch();
		this.maxEpoch = Math.max(this.maxEpoch, claim.epoch());
		this.windows.add(window);
		this.grants++;
		if (!instance.id.equals(this.lastHolder)) {
			this.holderChanges++;
			this.lastHolder = instance.id;
		}
		// windows ended long ago cannot overlap new ones any more
		this.windows.removeIf((w) -> w.end < this.now - 10 * LEASE.toNanos());
	}

	private AssertionError failure(String message) {
		return new AssertionError("seed " + this.seed + " (expiry " + this.expiry + ", renew deadline " + this.renewFraction
				+ " of the lease duration" + (this.hostile ? ", hostile store" : "") + ") at " + this.now / 1_000_000L + " ms: " + message);
	}

	/** Runs the requests and other instances' decisions due until the given time. */
	private void runUntil(long until) {
		while (true) {
			Request request = this.pending.peek();
			Tick tick = this.ticks.peek();
			long nextRequest = (request != null) ? request.applyAt : Long.MAX_VALUE;
			long nextTick = (tick != null) ? tick.at : Long.MAX_VALUE;
			long next = Math.min(nextRequest, nextTick);
			if (next > until) {
				break;
			}
			this.now = Math.max(this.now, next);
			if (nextRequest <= nextTick) {
				this.pending.poll().apply();
			}
			else {
				step(this.ticks.poll().instance);
			}
		}
		this.now = Math.max(this.now, until);
	}

	private long delay() {
		double p = this.random.nextDouble();
		if (p < 0.03) {
			// a request (or its answer) stuck for longer than the lease duration
			return (long) (this.random.nextDouble() * 1.5 * LEASE.toNanos());
		}
		if (p < 0.2) {
			return (long) (this.random.nextDouble() * 2 * SECOND);
		}
		return (long) (this.random.nextDouble() * 50_000_000L);
	}

	private final class Instance implements LeaseStore {

		final String id;

		final double rate;

		final long offset;

		final long skew;

		final LeaseCoordinator coordinator;

		final Duration lease;

		final long renewNanos;

		boolean holding;

		/** The token of this instance's last grant that was excused, -1 if none. */
		long excusedEpoch = -1;

		/** Whether a read of this instance has returned the Lease. */
		boolean sawLease;

		/** The Lease this decision's successful update replaced, if any. */
		@Nullable LeaseRecord takenFrom;

		long grantSentAt = -1;

		long lastEpoch = -1;

		Instance(String id) {
			this.id = id;
			Random random = LeaseSimulation.this.random;
			this.rate = 0.99 + 0.02 * random.nextDouble();
			this.offset = random.nextLong() >>> 2;
			this.skew = (long) ((random.nextDouble() * 2 - 1) * WALL_SKEW.toNanos());
			Clock wall = SimulatedLeases.wallClock(
					() -> Instant.parse("2026-01-01T00:00:00Z").plusNanos(LeaseSimulation.this.now + Instance.this.skew));
			this.lease = (LeaseSimulation.this.hostile && random.nextBoolean()) ? LEASE.multipliedBy(2) : LEASE;
			this.renewNanos = (long) (this.lease.toNanos() * LeaseSimulation.this.renewFraction);
			this.coordinator = new LeaseCoordinator(this, this.lease, Duration.ofNanos(this.renewNanos), "polling-", this::nanoTime, wall,
					LeaseSimulation.this.expiry, resetNoting(LOGGER));
		}

		/** The simulation's logger, noting this instance's warnings that the store lost history. */
		private Logger resetNoting(Logger delegate) {
			return (Logger) java.lang.reflect.Proxy.newProxyInstance(Logger.class.getClassLoader(), new Class<?>[] { Logger.class },
					(proxy, method, args) -> {
						if (method.getName().equals("warn") && args != null && args[0] instanceof String format
								&& (format.contains("went back") || format.contains("is not known here")
										|| format.contains("knows no earlier fencing token"))) {
							LeaseSimulation.this.resetLoggedAt = LeaseSimulation.this.now;
						}
						return method.invoke(delegate, args);
					});
		}

		long nanoTime() {
			return this.offset + (long) (LeaseSimulation.this.now * this.rate);
		}

		void endWindowAt(long at) {
			for (Window window : LeaseSimulation.this.windows) {
				if (window.instance == this && window.end > at) {
					window.end = at;
				}
			}
		}

		@Override
		public @Nullable Observed get(String name) throws StoreFault {
			Observed observed = call(new Request(name, null, null, false)).observed;
			this.sawLease |= observed != null;
			return observed;
		}

		@Override
		public Write create(String name, LeaseRecord record) throws StoreFault {
			return write(new Request(name, null, record, true));
		}

		@Override
		public Write update(String name, String resourceVersion, LeaseRecord record) throws StoreFault {
			Request request = new Request(name, resourceVersion, record, false);
			Write write = write(request);
			if (!write.isConflict()) {
				this.takenFrom = request.replaced;
			}
			return write;
		}

		private Write write(Request request) throws StoreFault {
			long sentAt = LeaseSimulation.this.now;
			Write write = call(request).write;
			if (write.isConflict()) {
				LeaseSimulation.this.conflicts++;
			}
			else if (this.id.equals(request.record.holder())) {
				this.grantSentAt = sentAt;
			}
			return write;
		}

		private Request call(Request request) throws StoreFault {
			LeaseSimulation simulation = LeaseSimulation.this;
			double p = simulation.random.nextDouble();
			boolean failed = p < 0.03;
			boolean lost = !failed && p < 0.06;
			long applyAt = simulation.now + simulation.delay();
			long answerAt = applyAt + simulation.delay();
			if (!failed) {
				request.applyAt = applyAt;
				request.sequence = simulation.sequence++;
				simulation.pending.add(request);
			}
			simulation.runUntil(answerAt);
			if (failed || lost) {
				simulation.faults++;
				throw new StoreFault((failed ? "request failed" : "answer lost") + " (simulated)", null);
			}
			if (!request.applied) {
				throw new IllegalStateException("request not applied by its answer time");
			}
			return request;
		}

		@Override
		public String describe() {
			return "simulated Lease store";
		}

	}

	private final class Request implements Comparable<Request> {

		final String name;

		final @Nullable String version;

		final @Nullable LeaseRecord record;

		final boolean create;

		long applyAt;

		long sequence;

		boolean applied;

		@Nullable Observed observed;

		/** The record an applied update replaced. */
		@Nullable LeaseRecord replaced;

		Write write = Write.CONFLICT;

		Request(String name, @Nullable String version, @Nullable LeaseRecord record, boolean create) {
			this.name = name;
			this.version = version;
			this.record = record;
			this.create = create;
		}

		void apply() {
			SimulatedLeases leases = LeaseSimulation.this.leases;
			Observed current = leases.get(this.name);
			trace("apply " + (this.create ? "create " : (this.record != null) ? "update@" + this.version + " " : "get ") + this.record + " on " + current);
			this.applied = true;
			if (this.record == null) {
				this.observed = current;
				return;
			}
			Observed written = this.create ? leases.create(this.name, this.record) : leases.update(this.name, this.version, this.record);
			if (written != null) {
				this.replaced = (current != null) ? current.record() : null;
				this.write = new Write(written);
			}
		}

		@Override
		public int compareTo(Request other) {
			int byTime = Long.compare(this.applyAt, other.applyAt);
			return (byTime != 0) ? byTime : Long.compare(this.sequence, other.sequence);
		}

	}

	private record Tick(long at, long sequence, Instance instance) implements Comparable<Tick> {

		@Override
		public int compareTo(Tick other) {
			int byTime = Long.compare(this.at, other.at);
			return (byTime != 0) ? byTime : Long.compare(this.sequence, other.sequence);
		}

	}

	private static final class Window {

		final Instance instance;

		final long start;

		long end;

		final long epoch;

		boolean excused;

		Window(Instance instance, long start, long end, long epoch) {
			this.instance = instance;
			this.start = start;
			this.end = end;
			this.epoch = epoch;
		}

		@Override
		public String toString() {
			return this.instance.id + " epoch " + this.epoch + " valid " + this.start / 1_000_000L + ".." + this.end / 1_000_000L + " ms";
		}

	}

}
