package dev.polling.core.sim;

/**
 * The cycles of simulation runs (cycle bodies as the user sees them: a {@code runIfGranted} task from
 * its start to its end) and the overlapping pairs of two instances' cycles that were excused, by
 * reason. An overlap not excused is a violation.
 */
public final class CycleStats {

	/** Cycle bodies that started. */
	long cycles;

	/** Overlaps after a network fault between the two instances (lossy runs; under proceed an unknown peer counts idle). */
	long excusedNetwork;

	/** Overlaps with a cycle whose hold a stop of its JVM voided before the other started (the task runs on). */
	long excusedStop;

	/** Overlaps that began at least {@code max-cycle-time} after the earlier cycle started (its keep-alive ended). */
	long excusedMaxCycle;

	/** Decisions refused because a peer runs (or last ran) with other settings (rolling configuration changes). */
	long mismatchRefusals;

	/** Renewals of a holder that kept the cluster although a peer runs with other settings. */
	long mismatchRenewals;

	void add(CycleStats other) {
		this.mismatchRefusals += other.mismatchRefusals;
		this.mismatchRenewals += other.mismatchRenewals;
		this.cycles += other.cycles;
		this.excusedNetwork += other.excusedNetwork;
		this.excusedStop += other.excusedStop;
		this.excusedMaxCycle += other.excusedMaxCycle;
	}

	public long cycles() {
		return this.cycles;
	}

	public long excused() {
		return this.excusedNetwork + this.excusedStop + this.excusedMaxCycle;
	}

	@Override
	public String toString() {
		return "cycles=" + this.cycles + " excusedCycleOverlaps=" + excused() + " (network=" + this.excusedNetwork + " stop="
				+ this.excusedStop + " maxCycleTime=" + this.excusedMaxCycle + ") settingsMismatch=" + this.mismatchRefusals + "/"
				+ this.mismatchRenewals + " (refused/kept)";
	}

}
