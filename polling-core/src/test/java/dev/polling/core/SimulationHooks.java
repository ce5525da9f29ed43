package dev.polling.core;

import java.time.Duration;

/**
 * The bridge from the simulation ({@code dev.polling.core.sim}) to the package-private hook of the
 * main code: a manager whose stops are told by the simulation instead of a real stop detector.
 */
public final class SimulationHooks {

	private SimulationHooks() {
	}

	/** What the simulation tells a manager about stops of its (simulated) JVM, in virtual time. */
	public interface Stops {

		long stops();

		boolean stoppedWithin(Duration window);

	}

	/** Replaces the builder's stop detector by the given simulated source. */
	public static PollingManager.Builder stopSource(PollingManager.Builder builder, Stops stops) {
		return builder.stopSource(new StopSource() {

			@Override
			public long stops() {
				return stops.stops();
			}

			@Override
			public boolean stoppedWithin(Duration window) {
				return stops.stoppedWithin(window);
			}

		});
	}

	/**
	 * Hands the cluster over as balancing does when it finds this instance holding two clusters more
	 * than a peer ({@code PeerDecider}: {@link HoldState#letGo} of the renewed hold), at a point the
	 * simulation chooses (with one cluster the balancing rule itself never fires).
	 */
	public static void handOver(PollingManager manager, String clusterId) {
		ClusterRuntime runtime = manager.runtime(clusterId);
		runtime.state().letGo(runtime.state().generation(), false, false);
		runtime.syncHeld();
	}

	/** The gap the real stop detector counts as a stop. */
	public static Duration stopThreshold(PollingSettings settings) {
		return LocalInstance.stopThreshold(settings);
	}

}
