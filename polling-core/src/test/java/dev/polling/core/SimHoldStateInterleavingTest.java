package dev.polling.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Exhaustive interleavings of two threads working on one {@link HoldState}: every schedule of two
 * short operation sequences, switching threads at every operation boundary and inside the operations
 * at every read of the clock or of the stop count (the points between a compare-and-set's read and its
 * write, where a real thread can be descheduled). A stateless model checker: each schedule runs from a
 * fresh state on two coroutine threads of which exactly one runs at a time, and the schedules are
 * enumerated depth-first over the scheduling choices.
 *
 * <p>Checked for every schedule:
 * <ul>
 * <li>linearizability: the results of the operations and the final state equal those of some
 * sequential execution of the whole operations that keeps each thread's order and the real-time order
 * (an operation that returned before another began comes first);</li>
 * <li>after {@code release()}, {@code pause()} or {@code close()} returned, no {@code grant} with a
 * ticket announced before it began succeeds; nor after a stop counted between announcement and grant
 * (the generation or stop count changed since the ticket).</li>
 * </ul>
 */
class SimHoldStateInterleavingTest {

	private static final long T = 1_000_000_000_000L;

	private static final long WAIT = 10_000_000_000L;

	private final Explorer explorer = new Explorer();

	@AfterEach
	void shutdown() {
		this.explorer.shutdown();
	}

	/** What one thread remembers between its operations (as PeerDecider and ClusterRuntime do). */
	static final class Context {

		HoldState.@Nullable Ticket ticket;

		long generation = -1;

		long cycleGeneration = -1;

	}

	interface Action {

		String run(HoldState state, Context context, AtomicLong stops);

	}

	record Op(String name, Action action) {

		@Override
		public String toString() {
			return this.name;
		}

	}

	/** An operation that only calls the hold state (its answer is empty). */
	static Op call(String name, Consumer<HoldState> call) {
		return new Op(name, (s, c, stops) -> {
			call.accept(s);
			return "";
		});
	}

	static final Op ANNOUNCE = new Op("announce", (s, c, stops) -> {
		c.ticket = s.announce();
		return (c.ticket == null) ? "null" : "ticket";
	});

	static final Op GRANT = new Op("grant", (s, c, stops) -> (c.ticket == null) ? "no ticket" : String.valueOf(s.grant(c.ticket)));

	static final Op WITHDRAW = new Op("withdraw", (s, c, stops) -> {
		if (c.ticket != null) {
			s.withdraw(c.ticket);
		}
		return "";
	});

	static final Op RELEASE = call("release", HoldState::release);

	static final Op PAUSE = call("pause", HoldState::pause);

	static final Op RESUME = call("resume", HoldState::resume);

	static final Op CLOSE = call("close", HoldState::close);

	static final Op STOP = new Op("stop", (s, c, stops) -> String.valueOf(stops.incrementAndGet()));

	static final Op RENEW = new Op("renew", (s, c, stops) -> {
		c.generation = s.renewIfHolding(1_000_000_000L);
		return String.valueOf(c.generation);
	});

	static final Op RELEASE_IF = new Op("releaseIf", (s, c, stops) -> {
		if (c.generation >= 0) {
			s.releaseIf(c.generation);
		}
		return "";
	});

	static final Op RECORD_ACTIVITY = new Op("recordActivity", (s, c, stops) -> String.valueOf(s.recordActivity()));

	static final Op BEGIN_CYCLE = new Op("beginCycle", (s, c, stops) -> {
		c.cycleGeneration = s.generation();
		return String.valueOf(s.beginCycle(c.cycleGeneration));
	});

	static final Op END_CYCLE = new Op("endCycle", (s, c, stops) -> {
		if (c.cycleGeneration >= 0) {
			s.endCycle(c.cycleGeneration);
		}
		return "";
	});

	/** A peer's read of the MBean: holder, candidate, both or neither, from one snapshot. */
	static final Op LOOK = new Op("look", (s, c, stops) -> {
		long[] snapshot = s.snapshot();
		return ((snapshot[0] != Long.MAX_VALUE) ? "holder" : "") + ((snapshot[1] >= 0) ? "candidate" : "");
	});

	/** This instance's own question: does it hold? */
	static final Op HOLDING = new Op("isHolding", (s, c, stops) -> String.valueOf(s.isHolding()));

	enum Start {

		IDLE, HOLDING, PAUSED

	}

	@Test
	@SuppressWarnings("unchecked")
	void everyInterleavingIsLinearizableAndNoGrantOutlivesItsTicket() {
		// the first thread decides (acquires, renews and yields, runs a cycle, gives up a candidacy); the second
		// is another thread of the instance (release, pause, close, a detected stop, activity, a cycle) or a peer's read
		List<List<Op>> first = List.of(List.of(ANNOUNCE, GRANT), List.of(RENEW, RELEASE_IF), List.of(BEGIN_CYCLE, END_CYCLE),
				List.of(ANNOUNCE, WITHDRAW));
		List<List<Op>> second = List.of(List.of(RELEASE), List.of(PAUSE), List.of(CLOSE), List.of(PAUSE, RESUME), List.of(STOP),
				List.of(RENEW), List.of(RECORD_ACTIVITY), List.of(LOOK), List.of(HOLDING), List.of(RELEASE, LOOK),
				List.of(STOP, HOLDING), List.of(BEGIN_CYCLE, END_CYCLE));
		List<List<Op>> longer = List.of(List.of(ANNOUNCE, GRANT, BEGIN_CYCLE));
		List<List<Op>> shorter = List.of(List.of(RELEASE), List.of(PAUSE), List.of(STOP), List.of(LOOK));
		long schedules = 0;
		long grantsTrue = 0;
		long grantsFalse = 0;
		List<String> failures = new ArrayList<>();
		for (Start start : Start.values()) {
			for (List<List<Op>>[] pair : List.of(new List[] { first, second }, new List[] { longer, shorter })) {
				for (List<Op> a : pair[0]) {
					for (List<Op> b : pair[1]) {
						Explorer.Summary s = this.explorer.explore(start, a, b, failures);
						schedules += s.schedules();
						grantsTrue += s.grantsTrue();
						grantsFalse += s.grantsFalse();
					}
				}
			}
		}
		System.out.println("hold state interleavings: schedules=" + schedules + " grants succeeded=" + grantsTrue + " failed=" + grantsFalse
				+ " violations=" + failures.size());
		assertThat(failures).isEmpty();
		// not vacuous: many schedules, and races that let grants go both ways
		assertThat(schedules).isGreaterThan(1_000);
		assertThat(grantsTrue).isPositive();
		assertThat(grantsFalse).isPositive();
	}

	@Test
	void theCheckerCatchesANonAtomicGrant() {
		// a grant that checks its ticket's generation and then acquires anew (check-then-act instead of one
		// compare-and-set) is wrong: the enumerator must find the schedule where a release falls in between
		Op checkThenGrant = new Op("grant", (s, c, stops) -> {
			HoldState.Ticket t = c.ticket;
			if (t == null || s.generation() != t.generation()) {
				return "false";
			}
			return String.valueOf(s.grantNow());
		});
		List<String> failures = new ArrayList<>();
		this.explorer.explore(Start.IDLE, List.of(ANNOUNCE, checkThenGrant), List.of(RELEASE), failures);
		assertThat(failures).isNotEmpty().allMatch((f) -> f.contains("not linearizable"));
	}

	@Test
	void theCheckerCatchesAGrantThatIgnoresItsTicket() {
		// linearizable on its own, but it resurrects a hold released after the announcement
		Op freshGrant = new Op("grant", (s, c, stops) -> String.valueOf(s.grantNow()));
		List<String> failures = new ArrayList<>();
		this.explorer.explore(Start.IDLE, List.of(ANNOUNCE, freshGrant), List.of(RELEASE), failures);
		this.explorer.explore(Start.IDLE, List.of(ANNOUNCE, freshGrant), List.of(STOP), failures);
		assertThat(failures).anyMatch((f) -> f.contains("release came between its announcement and the grant"));
		assertThat(failures).anyMatch((f) -> f.contains("stop came between its announcement and the grant"));
	}

	// ---------------------------------------------------------------- the enumerator

	/** Runs two op sequences on two coroutine threads under every schedule. */
	static final class Explorer {

		record Summary(long schedules, long grantsTrue, long grantsFalse) {
		}

		private final Semaphore back = new Semaphore(0);

		private final Worker[] workers = { new Worker("A"), new Worker("B") };

		private volatile boolean yields;

		private boolean shutdown;

		private HoldState state;

		private AtomicLong stops;

		private int clock;

		private List<Integer> prefix = List.of();

		private final List<int[]> made = new ArrayList<>();

		private final TimeSource time = new TimeSource() {

			@Override
			public long nanoTime() {
				yieldPoint();
				return T;
			}

			@Override
			public Instant now() {
				return Instant.EPOCH;
			}

		};

		final class Worker implements Runnable {

			final String name;

			final Semaphore turn = new Semaphore(0);

			final Thread thread;

			List<Op> ops = List.of();

			Context context = new Context();

			String[] results = new String[0];

			int[] invoked = new int[0];

			int[] responded = new int[0];

			boolean done;

			Worker(String name) {
				this.name = name;
				this.thread = new Thread(this, "interleave-" + name);
				this.thread.setDaemon(true);
				this.thread.start();
			}

			@Override
			public void run() {
				while (true) {
					this.turn.acquireUninterruptibly();
					if (Explorer.this.shutdown) {
						Explorer.this.back.release();
						return;
					}
					for (int i = 0; i < this.ops.size(); i++) {
						yieldPoint();
						this.invoked[i] = ++Explorer.this.clock;
						this.results[i] = this.ops.get(i).action().run(Explorer.this.state, this.context, Explorer.this.stops);
						this.responded[i] = ++Explorer.this.clock;
					}
					this.done = true;
					Explorer.this.back.release();
				}
			}

		}

		private @Nullable Worker current() {
			for (Worker w : this.workers) {
				if (w.thread == Thread.currentThread()) {
					return w;
				}
			}
			return null;
		}

		/** On a worker: hand the turn back to the controller, which picks who runs next. */
		void yieldPoint() {
			Worker w = this.yields ? current() : null;
			if (w == null) {
				return;
			}
			this.clock++;
			this.back.release();
			w.turn.acquireUninterruptibly();
		}

		private void resume(Worker w) {
			w.turn.release();
			this.back.acquireUninterruptibly();
		}

		private int choose(int options) {
			int index = this.made.size();
			int choice = (index < this.prefix.size()) ? this.prefix.get(index) : 0;
			this.made.add(new int[] { choice, options });
			return choice;
		}

		Summary explore(Start start, List<Op> a, List<Op> b, List<String> failures) {
			long schedules = 0;
			long grantsTrue = 0;
			long grantsFalse = 0;
			this.prefix = List.of();
			while (true) {
				runOnce(start, a, b);
				schedules++;
				for (Worker w : this.workers) {
					for (int i = 0; i < w.ops.size(); i++) {
						if (w.ops.get(i) == GRANT) {
							if ("true".equals(w.results[i])) {
								grantsTrue++;
							}
							else if ("false".equals(w.results[i])) {
								grantsFalse++;
							}
						}
					}
				}
				String failure = verify(start);
				if (failure != null) {
					failures.add(start + " " + a + " | " + b + " schedule " + choices() + ": " + failure);
					if (failures.size() > 20) {
						break;
					}
				}
				// next schedule: the last choice that has an untried option, depth first
				int i = this.made.size() - 1;
				while (i >= 0 && this.made.get(i)[0] + 1 >= this.made.get(i)[1]) {
					i--;
				}
				if (i < 0) {
					break;
				}
				List<Integer> next = new ArrayList<>();
				for (int j = 0; j < i; j++) {
					next.add(this.made.get(j)[0]);
				}
				next.add(this.made.get(i)[0] + 1);
				this.prefix = next;
			}
			return new Summary(schedules, grantsTrue, grantsFalse);
		}

		/** A state in the given start, whose clock and stop count reads are yield points on the workers. */
		HoldState fresh(Start start, AtomicLong stops) {
			HoldState state = new HoldState(this.time, WAIT, Long.MAX_VALUE, () -> {
				yieldPoint();
				return stops.get();
			});
			boolean yielding = this.yields;
			this.yields = false;
			switch (start) {
				case HOLDING -> assertThat(state.grantNow()).isTrue();
				case PAUSED -> state.pause();
				default -> {
					// nothing
				}
			}
			this.yields = yielding;
			return state;
		}

		private String choices() {
			StringBuilder b = new StringBuilder();
			for (int[] c : this.made) {
				b.append(c[0]);
			}
			return b.toString();
		}

		private void runOnce(Start start, List<Op> a, List<Op> b) {
			this.yields = false;
			this.stops = new AtomicLong();
			this.state = fresh(start, this.stops);
			this.clock = 0;
			this.made.clear();
			List<List<Op>> scripts = List.of(a, b);
			for (int k = 0; k < 2; k++) {
				Worker w = this.workers[k];
				w.ops = scripts.get(k);
				w.context = new Context();
				w.results = new String[w.ops.size()];
				w.invoked = new int[w.ops.size()];
				w.responded = new int[w.ops.size()];
				w.done = false;
			}
			this.yields = true;
			for (Worker w : this.workers) {
				resume(w); // runs up to its first yield point, before its first operation
			}
			while (true) {
				List<Worker> alive = new ArrayList<>();
				for (Worker w : this.workers) {
					if (!w.done) {
						alive.add(w);
					}
				}
				if (alive.isEmpty()) {
					break;
				}
				Worker next = (alive.size() == 1) ? alive.get(0) : alive.get(choose(alive.size()));
				resume(next);
			}
			this.yields = false;
		}

		/** Null when the schedule's outcome is allowed; otherwise why not. */
		private @Nullable String verify(Start start) {
			Worker a = this.workers[0];
			Worker b = this.workers[1];
			String observed = outcome(a.results, b.results, this.state, this.stops);
			// ticket rule: a grant invoked after a release, pause, close or stop that began after the ticket's announcement returned must fail
			for (int i = 0; i < a.ops.size(); i++) {
				if (!a.ops.get(i).name().equals("grant") || !"true".equals(a.results[i])) {
					continue;
				}
				int announced = -1;
				for (int k = i - 1; k >= 0; k--) {
					if (a.ops.get(k) == ANNOUNCE) {
						announced = a.responded[k];
						break;
					}
				}
				for (int j = 0; j < b.ops.size(); j++) {
					Op op = b.ops.get(j);
					boolean ends = op == RELEASE || op == PAUSE || op == CLOSE || op == STOP;
					if (ends && b.invoked[j] > announced && b.responded[j] < a.invoked[i]) {
						return "grant succeeded although " + op + " came between its announcement and the grant";
					}
				}
			}
			// linearizability: some order of whole operations, keeping program and real-time order, gives the same outcome
			List<String> tried = new ArrayList<>();
			for (List<int[]> order : merges(a.ops.size(), b.ops.size())) {
				if (!respectsRealTime(order)) {
					continue;
				}
				AtomicLong stops = new AtomicLong();
				HoldState sequential = fresh(start, stops);
				Context ca = new Context();
				Context cb = new Context();
				String[] ra = new String[a.ops.size()];
				String[] rb = new String[b.ops.size()];
				StringBuilder names = new StringBuilder();
				for (int[] step : order) {
					Worker w = this.workers[step[0]];
					String result = w.ops.get(step[1]).action().run(sequential, (step[0] == 0) ? ca : cb, stops);
					((step[0] == 0) ? ra : rb)[step[1]] = result;
					names.append(w.name).append('.').append(w.ops.get(step[1])).append(' ');
				}
				String expected = outcome(ra, rb, sequential, stops);
				if (expected.equals(observed)) {
					return null;
				}
				tried.add(names + "-> " + expected);
			}
			return "not linearizable: observed " + observed + "; sequential orders give " + tried;
		}

		private boolean respectsRealTime(List<int[]> order) {
			for (int x = 0; x < order.size(); x++) {
				for (int y = x + 1; y < order.size(); y++) {
					Worker wx = this.workers[order.get(x)[0]];
					Worker wy = this.workers[order.get(y)[0]];
					// y is placed after x: wrong if y returned before x was invoked
					if (wy.responded[order.get(y)[1]] < wx.invoked[order.get(x)[1]]) {
						return false;
					}
				}
			}
			return true;
		}

		private static List<List<int[]>> merges(int n, int m) {
			List<List<int[]>> all = new ArrayList<>();
			merge(n, m, 0, 0, new ArrayList<>(), all);
			return all;
		}

		private static void merge(int n, int m, int i, int j, List<int[]> current, List<List<int[]>> all) {
			if (i == n && j == m) {
				all.add(new ArrayList<>(current));
				return;
			}
			if (i < n) {
				current.add(new int[] { 0, i });
				merge(n, m, i + 1, j, current, all);
				current.remove(current.size() - 1);
			}
			if (j < m) {
				current.add(new int[] { 1, j });
				merge(n, m, i, j + 1, current, all);
				current.remove(current.size() - 1);
			}
		}

		private static String outcome(String[] a, String[] b, HoldState state, AtomicLong stops) {
			return java.util.Arrays.toString(a) + java.util.Arrays.toString(b) + " " + state.current() + " stops=" + stops.get();
		}

		void shutdown() {
			this.shutdown = true;
			for (Worker w : this.workers) {
				w.turn.release();
				this.back.acquireUninterruptibly();
			}
		}

	}

}
