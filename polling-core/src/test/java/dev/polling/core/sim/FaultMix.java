package dev.polling.core.sim;

import java.util.ArrayList;
import java.util.List;

/**
 * What goes wrong in a simulation run, and how often. The network faults are probabilities per
 * request; the other faults are rates per second of virtual time across the whole cluster.
 *
 * @param name a short name for reports
 * @param loss a request is dropped: never answered, so the asker times out
 * @param slow an answer is delayed by half to one and a half peer timeouts (often past the asker's deadline)
 * @param error a request fails with an I/O error (an unknown peer, like a timeout)
 * @param stops JVM stops (SIGSTOP, frozen container, long GC) of a random instance, of random length
 *        below and above the stop threshold (half the peer timeout), the peer timeout and the wait time
 * @param crashes a random instance is killed (connections refused) and restarted later with a new incarnation
 * @param closes a random instance's manager is closed (MBeans gone), the JVM exits shortly after, and it is restarted later
 * @param releases the cluster is released on a random instance (usually the holder)
 * @param pauses the cluster is paused on a random instance and resumed later
 * @param preemption probability that a thread of an instance is descheduled (up to 2 ms) at one of its clock reads
 * @param longCycles probability that a granted cycle runs longer than the wait time (keep-alive)
 * @param starvation probability that, at one of its clock reads, an instance's timer thread is not scheduled
 *        for 0.3 to 3 s while the rest of its JVM runs (answers peers, beats): invisible to stop detection
 * @param cycleActions probability that a {@code runIfGranted} tick gets an operator action (pause, release, resume, a
 *        balancing handover, a shutdown) between its grant and the start of its cycle, and again that one hits at a
 *        random point of its cycle
 */
public record FaultMix(String name, double loss, double slow, double error, double stops, double crashes, double closes,
		double releases, double pauses, double preemption, double longCycles, double starvation, double cycleActions) {

	/** No faults: only the instances' ticks and thread preemption. */
	public static final FaultMix CLEAN = new FaultMix("clean", 0, 0, 0, 0, 0, 0, 0, 0, 0.02, 0, 0, 0);

	/** Releases, pauses, closes and crashes with restarts; no message loss. */
	public static final FaultMix LIFECYCLE = new FaultMix("lifecycle", 0, 0, 0, 0, 0.04, 0.04, 0.25, 0.1, 0.05, 0.03, 0, 0.1);

	/** JVM stops of every length and starved timer threads, with some lifecycle; no message loss. */
	public static final FaultMix STOPS = new FaultMix("stops", 0, 0, 0, 0.4, 0.02, 0.02, 0.1, 0.05, 0.05, 0.03, 0.002, 0.05);

	/** Message loss, slow answers and errors, with some lifecycle. */
	public static final FaultMix LOSSY = new FaultMix("lossy", 0.05, 0.03, 0.02, 0, 0.02, 0.02, 0.1, 0.05, 0.05, 0.03, 0, 0.05);

	/** Everything at once. */
	public static final FaultMix CHAOS = new FaultMix("chaos", 0.03, 0.02, 0.01, 0.3, 0.03, 0.03, 0.2, 0.08, 0.05, 0.04, 0.001, 0.08);

	private static final List<String> NAMES = List.of("loss", "slow", "error", "stops", "crashes", "closes", "releases", "pauses",
			"preemption", "longCycles", "starvation", "cycleActions");

	/** The mixes the simulation test cycles through. */
	public static final List<FaultMix> ALL = List.of(CLEAN, LIFECYCLE, STOPS, LOSSY, CHAOS);

	/** Whether the network loses or delays messages (then pairs that lost messages are excused, see {@link Simulation}). */
	public boolean lossy() {
		return this.loss > 0 || this.slow > 0 || this.error > 0;
	}

	/** The fault kinds with a non-zero setting, by name; for shrinking. */
	public List<String> kinds() {
		List<String> kinds = new ArrayList<>();
		String[] names = NAMES.toArray(new String[0]);
		double[] values = values();
		for (int i = 0; i < names.length; i++) {
			if (values[i] > 0) {
				kinds.add(names[i]);
			}
		}
		return kinds;
	}

	/** This mix without one kind of fault. */
	public FaultMix without(String kind) {
		double[] v = values();
		int i = NAMES.indexOf(kind);
		if (i < 0) {
			throw new IllegalArgumentException(kind);
		}
		v[i] = 0;
		return new FaultMix(this.name + "-" + kind, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11]);
	}

	private double[] values() {
		return new double[] { this.loss, this.slow, this.error, this.stops, this.crashes, this.closes, this.releases, this.pauses,
				this.preemption, this.longCycles, this.starvation, this.cycleActions };
	}

	/** Total rate of the lifecycle and stop faults per second. */
	double chaosRate() {
		return this.stops + this.crashes + this.closes + this.releases + this.pauses;
	}

}
