package dev.polling.core.sim;

import org.jspecify.annotations.Nullable;

/**
 * What one run found.
 *
 * @param seed the seed
 * @param config the set-up
 * @param decisions decisions completed (chaos and liveness phases)
 * @param violation the first violation of the invariant or of liveness, or null
 * @param decisionsAtViolation decisions completed when the violation was found
 * @param excused checks at which two holders were found that the excusal rule excused (lossy runs only)
 * @param grants decisions that granted a free cluster (acquisitions)
 * @param stopsDetected stops the simulated stop sources reported
 * @param takeoverNanos how long the takeover after the holder left took in the liveness phase, or -1
 * @param virtualNanos virtual time the run covered
 * @param trace the run's trace
 * @param cycles the cycles run and the overlapping pairs excused
 */
public record SimResult(long seed, SimConfig config, long decisions, @Nullable String violation, long decisionsAtViolation, long excused,
		long grants, long stopsDetected, long takeoverNanos, long virtualNanos, Trace trace, CycleStats cycles) {

	public boolean failed() {
		return this.violation != null;
	}

	/** The failure report: seed, set-up, violation and the last lines of the trace. */
	public String report() {
		return "seed=" + this.seed + " (" + this.config + "): " + this.violation + " after " + this.decisionsAtViolation + " decisions\n"
				+ "last " + Math.min(Trace.KEPT, this.trace.lines()) + " of " + this.trace.lines() + " trace lines:\n" + this.trace.tail();
	}

}
