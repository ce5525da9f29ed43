package dev.polling.shedlock;

import java.io.OutputStream;
import java.io.PrintStream;
import java.util.function.Supplier;

/** How the simulation tests of this module run their seeds. */
final class SimulationRuns {

	private SimulationRuns() {
	}

	/**
	 * Runs without the coordinator's log (the tests' logger writes to System.err): a run logs every
	 * simulated outage, hundreds of megabytes over all seeds.
	 */
	static <T> T quietly(Supplier<T> run) {
		PrintStream original = System.err;
		System.setErr(new PrintStream(OutputStream.nullOutputStream()));
		try {
			return run.get();
		}
		finally {
			System.setErr(original);
		}
	}

	/** Seeds 1 to the count, or the one that {@code -Dpolling.sim.seed=N} replays. */
	static long[] seeds(int count) {
		String replay = System.getProperty("polling.sim.seed", "");
		if (!replay.isBlank()) {
			return new long[] { Long.parseLong(replay.trim()) };
		}
		long[] seeds = new long[count];
		for (int i = 0; i < count; i++) {
			seeds[i] = i + 1;
		}
		return seeds;
	}

}
