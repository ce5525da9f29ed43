package dev.polling.core.sim;

/**
 * Makes a failing run smaller, keeping its seed: the fewest decisions that still fail (a run with a
 * smaller budget is a prefix of the larger one, so the budget is cut to where the violation was
 * found), then without each kind of fault in turn and with fewer instances, as long as the run still
 * fails the same way. Replaces the shrinking of a property-testing library (see {@code SimulationTest}).
 */
public final class Shrinker {

	private Shrinker() {
	}

	/** The smallest failing run found from this one. */
	public static SimResult shrink(SimResult failure) {
		if (!failure.failed()) {
			throw new IllegalArgumentException("not a failure");
		}
		SimResult best = cutBudget(failure);
		boolean progress = true;
		while (progress) {
			progress = false;
			for (String kind : best.config().faults().kinds()) {
				SimResult candidate = Simulation.run(best.config().withFaults(best.config().faults().without(kind)), best.seed());
				if (sameFailure(best, candidate)) {
					best = cutBudget(candidate);
					progress = true;
					break;
				}
			}
			if (!progress && best.config().instances() > 2) {
				SimResult candidate = Simulation.run(best.config().withInstances(best.config().instances() - 1), best.seed());
				if (sameFailure(best, candidate)) {
					best = cutBudget(candidate);
					progress = true;
				}
			}
		}
		return best;
	}

	private static SimResult cutBudget(SimResult failure) {
		if (isLiveness(failure) || failure.decisionsAtViolation() + 1 >= failure.config().decisions()) {
			return failure;
		}
		SimResult cut = Simulation.run(failure.config().withDecisions((int) failure.decisionsAtViolation() + 1), failure.seed());
		return sameFailure(failure, cut) ? cut : failure;
	}

	private static boolean sameFailure(SimResult a, SimResult b) {
		return b.failed() && isLiveness(a) == isLiveness(b);
	}

	private static boolean isLiveness(SimResult r) {
		return r.violation() != null && r.violation().startsWith("liveness");
	}

}
