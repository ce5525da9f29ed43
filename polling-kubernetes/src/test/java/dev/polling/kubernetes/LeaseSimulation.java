package dev.polling.kubernetes;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
 * <p>Invariant: a grant is valid from the virtual time its successful write (create or update naming
 * the instance holder, answered without a fault) was sent until {@code renewDeadline / rate} later,
 * or until the instance sends a release, whichever comes first. No two grants of different instances
 * have overlapping validity; of two grants of different instances the later one has the greater
 * epoch; a renewal keeps the epoch, and every other grant (a new holder, or the same one after a gap)
 * has a greater epoch than every grant before it.
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

	private final long renewNanos;

	private final List<Instance> instances = new ArrayList<>();

	private final PriorityQueue<Tick> ticks = new PriorityQueue<>();

	private final PriorityQueue<Request> pending = new PriorityQueue<>();

	private final Map<String, Observed> leases = new HashMap<>();

	private final List<Window> windows = new ArrayList<>();

	private long now;

	private long sequence;

	/** Decisions and releases so far, of all instances (also those run while another waits for an answer). */
	private int steps;

	private long nextVersion = 1;

	/** Statistics: grants, holder changes, conflicts, faults. */
	int grants;

	int holderChanges;

	int conflicts;

	int faults;

	int releases;

	private @Nullable String lastHolder;

	private long maxEpoch = -1;

	LeaseSimulation(long seed, Expiry expiry) {
		this.seed = seed;
		this.random = new Random(seed);
		this.expiry = expiry;
		double fraction = 0.5 + 0.4 * this.random.nextDouble();
		this.renewNanos = (long) (LEASE.toNanos() * fraction);
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
		while (this.steps < steps) {
			Tick tick = this.ticks.poll();
			this.now = Math.max(this.now, tick.at);
			step(tick.instance);
		}
		return this;
	}

	long virtualMillis() {
		return this.now / 1_000_000L;
	}

	private void schedule(Instance instance, long delay) {
		this.ticks.add(new Tick(this.now + delay, this.sequence++, instance));
	}

	private void step(Instance instance) {
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
			Claim claim = instance.coordinator.acquire(CLUSTER, instance.id);
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
		Window window = new Window(instance, instance.grantSentAt, instance.grantSentAt + (long) (this.renewNanos / instance.rate),
				claim.epoch());
		for (Window other : this.windows) {
			if (other.instance == instance) {
				continue;
			}
			if (window.start < other.end && other.start < window.end) {
				throw failure("grants overlap: " + window + " and " + other);
			}
			if ((other.start < window.start) != (other.epoch < window.epoch)) {
				throw failure("epochs do not grow with the holder: " + other + " then " + window);
			}
		}
		if (claim.renewed() ? claim.epoch() != instance.lastEpoch : claim.epoch() <= this.maxEpoch) {
			throw failure((claim.renewed() ? "a renewal changed the epoch: " + instance.lastEpoch + " to " : "a new grant's epoch is not above "
					+ "every earlier one (" + this.maxEpoch + "): ") + window);
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
		return new AssertionError("seed " + this.seed + " (expiry " + this.expiry + ", renew deadline " + this.renewNanos / 1_000_000L
				+ " ms) at " + this.now / 1_000_000L + " ms: " + message);
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

		boolean holding;

		long grantSentAt = -1;

		long lastEpoch = -1;

		Instance(String id) {
			this.id = id;
			Random random = LeaseSimulation.this.random;
			this.rate = 0.99 + 0.02 * random.nextDouble();
			this.offset = random.nextLong() >>> 2;
			this.skew = (long) ((random.nextDouble() * 2 - 1) * WALL_SKEW.toNanos());
			Clock wall = new Clock() {

				@Override
				public ZoneId getZone() {
					return ZoneOffset.UTC;
				}

				@Override
				public Clock withZone(ZoneId zone) {
					return this;
				}

				@Override
				public Instant instant() {
					return Instant.parse("2026-01-01T00:00:00Z").plusNanos(LeaseSimulation.this.now + Instance.this.skew);
				}

			};
			this.coordinator = new LeaseCoordinator(this, LEASE, Duration.ofNanos(LeaseSimulation.this.renewNanos), "polling-",
					this::nanoTime, wall, LeaseSimulation.this.expiry, LOGGER);
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
			return call(new Request(name, null, null, false)).observed;
		}

		@Override
		public Write create(String name, LeaseRecord record) throws StoreFault {
			return write(new Request(name, null, record, true));
		}

		@Override
		public Write update(String name, String resourceVersion, LeaseRecord record) throws StoreFault {
			return write(new Request(name, resourceVersion, record, false));
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

		Write write = Write.CONFLICT;

		Request(String name, @Nullable String version, @Nullable LeaseRecord record, boolean create) {
			this.name = name;
			this.version = version;
			this.record = record;
			this.create = create;
		}

		void apply() {
			Map<String, Observed> leases = LeaseSimulation.this.leases;
			Observed current = leases.get(this.name);
			this.applied = true;
			if (this.record == null) {
				this.observed = current;
				return;
			}
			boolean matches = this.create ? current == null : current != null && current.resourceVersion().equals(this.version);
			if (matches) {
				Observed written = new Observed(Long.toString(LeaseSimulation.this.nextVersion++), this.record);
				leases.put(this.name, written);
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
