package dev.polling.boot.health;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

import dev.polling.core.ClusterStatus;
import dev.polling.core.Decision;
import dev.polling.core.Decision.Reason;
import dev.polling.core.PeerObservation;
import dev.polling.core.PeerState;
import dev.polling.core.PollingManager;

/**
 * Health of one polling cluster on this instance. UP while the application runs (an instance on
 * standby is as healthy as the holder), DOWN while a peer disagrees on what the protocol rests on
 * (the same instance id, other settings) or a peer entry has a configuration fault (credentials, TLS,
 * not a JMX port, unknown host): then this instance does not acquire the cluster. The details say whether this instance holds the
 * cluster, whether it is paused, the last decision, and how many peers answered.
 */
public class PollingClusterHealthIndicator extends AbstractHealthIndicator {

	private final PollingManager manager;

	private final String clusterId;

	public PollingClusterHealthIndicator(PollingManager manager, String clusterId) {
		super("Polling cluster health check failed");
		this.manager = manager;
		this.clusterId = clusterId;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		ClusterStatus status = this.manager.status(this.clusterId);
		builder.up().withDetail("holding", status.holding()).withDetail("paused", status.paused());
		if (status.lastActivity() != null) {
			builder.withDetail("lastActivity", status.lastActivity().toString());
		}
		Decision decision = status.lastDecision();
		if (decision != null) {
			builder.withDetail("lastDecision", lower(decision.outcome()) + " (" + lower(decision.reason()) + ")");
			if (decision.reason() == Reason.DUPLICATE_INSTANCE_ID || decision.reason() == Reason.SETTINGS_MISMATCH
					|| decision.reason() == Reason.PEER_MISCONFIGURED) {
				// nobody is granted the cluster while the instances disagree or a peer entry is wrong
				builder.down().withDetail("error", String.valueOf(decision.detail()));
			}
		}
		if (status.cycleRunningFor() != null) {
			builder.withDetail("cycleRunningMillis", status.cycleRunningFor().toMillis());
			if (status.cycleOverrunning()) {
				builder.withDetail("cycleOverrunning", true);
			}
		}
		if (this.manager.isStandalone()) {
			builder.withDetail("standalone", true);
			return;
		}
		int reachable = 0;
		int others = status.peerIds().size();
		Map<String, String> peers = new LinkedHashMap<>();
		for (PeerObservation observation : status.peers()) {
			peers.put(observation.peerId(), lower(observation.state()));
			if (observation.state() == PeerState.SELF) {
				others--;
			}
			else if (observation.state() == PeerState.ANSWERED) {
				reachable++;
			}
		}
		builder.withDetail("peersReachable", reachable + "/" + others).withDetail("peers", peers);
	}

	private static String lower(Enum<?> value) {
		return value.name().toLowerCase(Locale.ROOT).replace('_', '-');
	}

}
