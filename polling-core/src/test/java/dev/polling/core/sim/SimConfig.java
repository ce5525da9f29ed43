package dev.polling.core.sim;

import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;

import org.jspecify.annotations.Nullable;

import dev.polling.core.UnreachablePeerPolicy;

/**
 * One simulation run's set-up. The timing is the same for every run: wait time 10 s, peer timeout
 * 500 ms, settle time 50 ms, each instance ticks (a {@code runIfGranted}, sometimes a {@code decide}
 * followed by {@code recordActivity}) every 1 s plus up to 50 ms of jitter after its previous tick
 * ended (a fixed-delay timer).
 *
 * @param instances how many instances ("a", "b", ...), all peers of each other (the peer list
 *        includes the instance itself, as a shared configuration does)
 * @param policy what an instance assumes about a peer that does not answer
 * @param checkThenAct whether a free cluster is acquired with the seed's known-bad check-then-act instead of the
 *        announce protocol (selected through {@link dev.polling.core.TestBuilders#checkThenAct})
 * @param faults what goes wrong
 * @param decisions how many decisions (over all instances) the chaos phase runs
 * @param synchronizedStart whether all instances start ticking within the same millisecond
 * @param liveness whether to heal the cluster after the chaos phase and check that someone holds, and that
 *        after the holder is gone someone else acquires in time
 * @param maxCycleTime the cluster's {@code max-cycle-time}, or null for none (a cycle keeps its hold as long as it runs)
 * @param rolling a rolling configuration change: an instance restarted after a crash comes back with the wait time
 *        {@link #OTHER_WAIT_TIME} or {@link #WAIT_TIME} (drawn at each restart), so instances with different settings
 *        run side by side; before the liveness phase every instance runs {@link #WAIT_TIME} again (the change completed)
 */
public record SimConfig(int instances, UnreachablePeerPolicy policy, boolean checkThenAct, FaultMix faults, int decisions,
		boolean synchronizedStart, boolean liveness, @Nullable Duration maxCycleTime, boolean rolling) {

	/** The other wait time of a rolling configuration change. */
	public static final Duration OTHER_WAIT_TIME = Duration.ofSeconds(12);

	public SimConfig(int instances, UnreachablePeerPolicy policy, boolean checkThenAct, FaultMix faults, int decisions,
			boolean synchronizedStart, boolean liveness, @Nullable Duration maxCycleTime) {
		this(instances, policy, checkThenAct, faults, decisions, synchronizedStart, liveness, maxCycleTime, false);
	}

	public static final Duration WAIT_TIME = Duration.ofSeconds(10);

	public static final Duration PEER_TIMEOUT = Duration.ofMillis(500);

	public static final Duration SETTLE_TIME = Duration.ofMillis(50);

	public static final Duration TICK = Duration.ofMillis(1000);

	public static final Duration TICK_JITTER = Duration.ofMillis(50);

	/** The longest a long cycle runs: three wait times. */
	public static final Duration MAX_CYCLE = Duration.ofSeconds(30);

	/** The {@code max-cycle-time} settings a seed draws from (a third of the seeds set one). */
	static final List<Duration> MAX_CYCLE_TIMES = List.of(Duration.ofSeconds(4), Duration.ofSeconds(12));

	/** The longest time between the end of an instance's tick and its next one. */
	public static final Duration MAX_TICK = TICK.plus(TICK_JITTER);

	/**
	 * Liveness bound: after the holder is gone (crash, release or pause) on a clean network, some running
	 * instance holds within one tick, two peer timeouts and the settle time.
	 */
	public static final Duration TAKEOVER_BOUND = MAX_TICK.plus(PEER_TIMEOUT.multipliedBy(2)).plus(SETTLE_TIME);

	/**
	 * The set-up the simulation test uses for a seed: 2-5 instances, either policy, the fault mixes in
	 * turn, drawn from the seed so that a seed alone reproduces a run.
	 */
	public static SimConfig forSeed(long seed, int decisions) {
		SplittableRandom r = new SplittableRandom(seed ^ 0x5DEECE66DL);
		int instances = 2 + r.nextInt(4);
		UnreachablePeerPolicy policy = r.nextBoolean() ? UnreachablePeerPolicy.PROCEED : UnreachablePeerPolicy.PRESUME_LAST_KNOWN;
		FaultMix faults = FaultMix.ALL.get((int) Math.floorMod(seed, (long) FaultMix.ALL.size()));
		boolean synchronizedStart = r.nextInt(4) == 0;
		Duration maxCycleTime = (r.nextInt(3) == 0) ? MAX_CYCLE_TIMES.get(r.nextInt(MAX_CYCLE_TIMES.size())) : null;
		// drawn last, so the set-up of a seed is otherwise what it was before rolling changes were simulated
		boolean rolling = r.nextInt(4) == 0;
		return new SimConfig(instances, policy, false, faults, decisions, synchronizedStart, true, maxCycleTime, rolling);
	}

	public SimConfig withDecisions(int decisions) {
		return new SimConfig(this.instances, this.policy, this.checkThenAct, this.faults, decisions, this.synchronizedStart, this.liveness, this.maxCycleTime, this.rolling);
	}

	public SimConfig withFaults(FaultMix faults) {
		return new SimConfig(this.instances, this.policy, this.checkThenAct, faults, this.decisions, this.synchronizedStart, this.liveness, this.maxCycleTime, this.rolling);
	}

	public SimConfig withInstances(int instances) {
		return new SimConfig(instances, this.policy, this.checkThenAct, this.faults, this.decisions, this.synchronizedStart, this.liveness, this.maxCycleTime, this.rolling);
	}

	public SimConfig withCheckThenAct(boolean checkThenAct) {
		return new SimConfig(this.instances, this.policy, checkThenAct, this.faults, this.decisions, this.synchronizedStart, this.liveness, this.maxCycleTime, this.rolling);
	}

	public SimConfig withPolicy(UnreachablePeerPolicy policy) {
		return new SimConfig(this.instances, policy, this.checkThenAct, this.faults, this.decisions, this.synchronizedStart, this.liveness, this.maxCycleTime, this.rolling);
	}

	public SimConfig withLiveness(boolean liveness) {
		return new SimConfig(this.instances, this.policy, this.checkThenAct, this.faults, this.decisions, this.synchronizedStart, liveness, this.maxCycleTime, this.rolling);
	}

	public SimConfig withRolling(boolean rolling) {
		return new SimConfig(this.instances, this.policy, this.checkThenAct, this.faults, this.decisions, this.synchronizedStart, this.liveness,
				this.maxCycleTime, rolling);
	}

	public SimConfig withMaxCycleTime(@Nullable Duration maxCycleTime) {
		return new SimConfig(this.instances, this.policy, this.checkThenAct, this.faults, this.decisions, this.synchronizedStart, this.liveness,
				maxCycleTime, this.rolling);
	}

	@Override
	public String toString() {
		return "instances=" + this.instances + " policy=" + this.policy + " protocol=" + (this.checkThenAct ? "CHECK_THEN_ACT" : "ANNOUNCE") + " faults=" + this.faults.name()
				+ this.faults.kinds() + " decisions=" + this.decisions + " synchronizedStart=" + this.synchronizedStart + " liveness="
				+ this.liveness + " maxCycleTime=" + this.maxCycleTime + " rolling=" + this.rolling;
	}

}
