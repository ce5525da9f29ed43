package dev.polling.core;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * A snapshot of one cluster on this instance, for endpoints and health checks.
 *
 * @param definition the cluster
 * @param holding whether this instance holds it
 * @param paused whether it is paused on this instance
 * @param cycleRunning whether a cycle runs in this instance now
 * @param lastActivity this instance's last activity, or null when never or released
 * @param elapsed time since then, or null
 * @param lastDecision the latest decision, or null before the first
 * @param peerIds the peers the cluster asks
 * @param peers the latest observation of each peer that has been asked
 * @param cycleRunningFor how long the running cycle has run under the hold, or null when none runs
 * @param handingOver whether this instance holds the cluster only until the running cycle ends (a pause, release,
 *        balancing handover or shutdown came during the cycle); a peer can take over at its first tick after that
 */
public record ClusterStatus(ClusterDefinition definition, boolean holding, boolean paused, boolean cycleRunning,
		@Nullable Instant lastActivity, @Nullable Duration elapsed, @Nullable Decision lastDecision, List<String> peerIds,
		List<PeerObservation> peers, @Nullable Duration cycleRunningFor, boolean handingOver) {

	/** A snapshot without a handover under way. */
	public ClusterStatus(ClusterDefinition definition, boolean holding, boolean paused, boolean cycleRunning,
			@Nullable Instant lastActivity, @Nullable Duration elapsed, @Nullable Decision lastDecision, List<String> peerIds,
			List<PeerObservation> peers, @Nullable Duration cycleRunningFor) {
		this(definition, holding, paused, cycleRunning, lastActivity, elapsed, lastDecision, peerIds, peers, cycleRunningFor, false);
	}

	/** A snapshot without the running cycle's duration. */
	public ClusterStatus(ClusterDefinition definition, boolean holding, boolean paused, boolean cycleRunning,
			@Nullable Instant lastActivity, @Nullable Duration elapsed, @Nullable Decision lastDecision, List<String> peerIds,
			List<PeerObservation> peers) {
		this(definition, holding, paused, cycleRunning, lastActivity, elapsed, lastDecision, peerIds, peers, null);
	}

	/** Whether a cycle has run longer than the wait time and still runs. */
	public boolean cycleOverrunning() {
		return this.cycleRunningFor != null && this.cycleRunningFor.compareTo(this.definition.waitTime()) >= 0;
	}

	public ClusterStatus {
		peerIds = List.copyOf(peerIds);
		peers = List.copyOf(peers);
	}

}
