package dev.polling.console;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.polling.core.ClusterStatus;
import dev.polling.core.Decision;
import dev.polling.core.PeerObservation;

/**
 * The problems of a cluster an operator should act on, each with what to do, computed from the
 * cluster's status on this instance. Pure: the same status and time give the same problems.
 */
public final class ConsoleProblems {

	private ConsoleProblems() {
	}

	/**
	 * The problems of one cluster.
	 * @param status the cluster on this instance
	 * @param now the time
	 * @param startedAt when the console (and the application) started
	 * @param detail the decision detail as it may be shown (masked unless show-values allows it)
	 */
	static List<Problem> of(ClusterStatus status, Instant now, Instant startedAt, @Nullable String detail) {
		List<Problem> problems = new ArrayList<>();
		String cluster = status.definition().id();
		Duration waitTime = status.definition().waitTime();
		Decision decision = status.lastDecision();
		if (decision == null) {
			Duration grace = max(waitTime, Duration.ofSeconds(30));
			if (Duration.between(startedAt, now).compareTo(grace) > 0) {
				problems.add(new Problem("warning", cluster, "no-decision",
						"No decision since start (" + Duration.between(startedAt, now).toSeconds() + " s ago)",
						"Nothing asked whether this instance may poll: check that scheduling is enabled (@EnableScheduling) and that a "
								+ "@PollingCycle method (or a call of PollingManager.runIfGranted) runs for cluster " + cluster + "."));
			}
		}
		else {
			switch (decision.reason()) {
				case SETTINGS_MISMATCH, RENEWED_DESPITE_SETTINGS_MISMATCH -> problems.add(new Problem("warning", cluster, "settings-mismatch",
						"A peer publishes other settings than this instance (a rolling configuration change?): the holder keeps the "
								+ "cluster, instances with other settings do not acquire it", detailOr(detail,
								"Give every instance the same wait-time, settle-time and peer-timeout for this cluster and restart the one that differs.")));
				case DUPLICATE_INSTANCE_ID -> problems.add(new Problem("error", cluster, "duplicate-instance-id",
						"A peer answers with this instance's id; neither may poll",
						"Give each instance a unique polling.instance-id (e.g. from the host name) and restart one of them."));
				case PEER_MISCONFIGURED -> problems.add(new Problem("error", cluster, "peer-misconfigured",
						"A configured peer cannot be asked (configuration fault); this instance does not acquire", detailOr(detail,
								"Fix the peer's host, port, credentials or TLS in polling.jmx.peers.* (the peer list below names it).")));
				case PEER_PRESUMED_ACTIVE -> problems.add(new Problem("warning", cluster, "holder-silent",
						"The holder does not answer; it is presumed to still poll",
						"Check that the holding instance runs and its JMX port is reachable; once its wait time ("
								+ waitTime.toSeconds() + " s) passes without an answer a peer takes over."));
				case COORDINATION_UNAVAILABLE -> problems.add(new Problem("error", cluster, "coordination-unavailable",
						"The cluster's coordinator (database, lease) could not decide", detailOr(detail,
								"Check the connection to the database or the Kubernetes API of this cluster's coordinator.")));
				default -> {
				}
			}
			for (PeerObservation peer : decision.peers()) {
				if (peer.fault().isConfigurationFault() && decision.reason() != Decision.Reason.PEER_MISCONFIGURED) {
					problems.add(new Problem("error", cluster, "peer-misconfigured",
							"Peer " + peer.peerId() + " (" + peer.address() + ") has a configuration fault: "
									+ peer.fault().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'),
							"Fix the host, port, credentials or TLS of peer " + peer.peerId() + " in polling.jmx.peers.*."));
				}
			}
		}
		if (status.cycleOverrunning() && status.cycleRunningFor() != null) {
			problems.add(new Problem("warning", cluster, "cycle-overrunning",
					"A cycle has run " + status.cycleRunningFor().toSeconds() + " s, longer than the wait time ("
							+ waitTime.toSeconds() + " s)",
					"Peers see the hold as long as the cycle runs; if it hangs, find it in a thread dump. Make cycles shorter than "
							+ "the wait time, or set a max-cycle-time."));
		}
		if (status.holding() && !status.cycleRunning() && status.elapsed() != null && status.elapsed().compareTo(waitTime) > 0) {
			problems.add(new Problem("warning", cluster, "holder-silent",
					"This instance holds the cluster but its last activity was " + status.elapsed().toSeconds()
							+ " s ago, longer than the wait time",
					"Peers will take the cluster over; check that the polling method still runs on this instance."));
		}
		return problems;
	}

	private static String detailOr(@Nullable String detail, String fix) {
		return (detail != null && !detail.isBlank() && !detail.startsWith("*")) ? detail + " " + fix : fix;
	}

	private static Duration max(Duration a, Duration b) {
		return (a.compareTo(b) >= 0) ? a : b;
	}

	/**
	 * A problem.
	 * @param severity error (polling stops or is unsafe) or warning
	 * @param cluster the cluster, or the queue or destination it concerns
	 * @param code a stable identifier of the kind of problem
	 * @param title what is wrong
	 * @param fix what to do
	 */
	public record Problem(String severity, String cluster, String code, String title, String fix) {
	}

}
