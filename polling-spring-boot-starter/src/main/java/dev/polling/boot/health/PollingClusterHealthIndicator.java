package dev.polling.boot.health;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;

import org.springframework.boot.actuate.endpoint.SanitizableData;
import org.springframework.boot.actuate.endpoint.Sanitizer;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

import dev.polling.core.ClusterStatus;
import dev.polling.core.Decision;
import dev.polling.core.Decision.Reason;
import dev.polling.core.PeerObservation;
import dev.polling.core.PeerState;
import dev.polling.core.PollingManager;

/**
 * Health of one polling cluster on this instance. UP while the application runs and a peer answers
 * (an instance on standby is as healthy as the holder); {@link PollingHealthStatus#DEGRADED DEGRADED}
 * while none of the cluster's peers answered the last decision (this instance cannot tell whether it
 * is alone or cut off; under {@code proceed} it polls, and so may a peer it cannot reach), and while
 * a peer publishes other settings (a rolling configuration change: the holder keeps the cluster, the
 * others defer; the {@code problem} detail names both settings); DOWN while a peer answers with this
 * instance's id from another process or a peer entry has a configuration fault (credentials, TLS,
 * not a JMX port, unknown host): then this instance does not acquire the cluster. The details say whether this instance holds the
 * cluster, whether it is paused, the last decision, and how many peers answered.
 */
public class PollingClusterHealthIndicator extends AbstractHealthIndicator {

	private final PollingManager manager;

	private final String clusterId;

	private final Sanitizer sanitizer;

	private final Predicate<String> noDecisionSinceStart;

	public PollingClusterHealthIndicator(PollingManager manager, String clusterId) {
		this(manager, clusterId, new Sanitizer());
	}

	/**
	 * Creates the indicator.
	 * @param manager the polling manager
	 * @param clusterId the cluster
	 * @param sanitizer applied to error texts (the application's sanitizing functions; whether details
	 * are shown at all is the health endpoint's {@code show-details})
	 */
	public PollingClusterHealthIndicator(PollingManager manager, String clusterId, Sanitizer sanitizer) {
		this(manager, clusterId, sanitizer, (cluster) -> false);
	}

	/**
	 * Creates the indicator.
	 * @param manager the polling manager
	 * @param clusterId the cluster
	 * @param sanitizer applied to error texts
	 * @param noDecisionSinceStart whether a cluster had no decision one wait time after the start
	 * (nothing asks for it, so nobody polls from here): then {@code DEGRADED} with a {@code problem}
	 */
	public PollingClusterHealthIndicator(PollingManager manager, String clusterId, Sanitizer sanitizer,
			Predicate<String> noDecisionSinceStart) {
		super("Polling cluster health check failed");
		this.manager = manager;
		this.clusterId = clusterId;
		this.sanitizer = sanitizer;
		this.noDecisionSinceStart = noDecisionSinceStart;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		ClusterStatus status = this.manager.status(this.clusterId);
		builder.up().withDetail("holding", status.holding()).withDetail("paused", status.paused());
		if (status.lastActivity() != null) {
			builder.withDetail("lastActivity", status.lastActivity().toString());
		}
		Decision decision = status.lastDecision();
		boolean reported = false;
		if (decision != null) {
			builder.withDetail("lastDecision", lower(decision.outcome()) + " (" + lower(decision.reason()) + ")");
			if (decision.reason() == Reason.DUPLICATE_INSTANCE_ID || decision.reason() == Reason.PEER_MISCONFIGURED) {
				// nobody is granted the cluster while two instances share an id or a peer entry is wrong
				builder.down().withDetail("error",
						String.valueOf(this.sanitizer.sanitize(new SanitizableData(null, "error", String.valueOf(decision.detail())), true)));
				reported = true;
			}
			else if (decision.reason() == Reason.SETTINGS_MISMATCH || decision.reason() == Reason.RENEWED_DESPITE_SETTINGS_MISMATCH) {
				// a rolling configuration change: the holder keeps polling and the others defer, so taking the
				// instances out of traffic (DOWN, 503) would gain nothing
				builder.status(PollingHealthStatus.DEGRADED).withDetail("problem",
						String.valueOf(this.sanitizer.sanitize(new SanitizableData(null, "problem", String.valueOf(decision.detail())), true)));
				reported = true;
			}
		}
		if (status.cycleRunningFor() != null) {
			builder.withDetail("cycleRunningMillis", status.cycleRunningFor().toMillis());
			if (status.cycleOverrunning()) {
				builder.withDetail("cycleOverrunning", true);
			}
		}
		if (decision == null && this.noDecisionSinceStart.test(this.clusterId)) {
			builder.status(PollingHealthStatus.DEGRADED)
				.withDetail("problem", "no decision in the wait time since the start: nothing asks whether to poll "
						+ "(no @EnableScheduling, the @PollingCycle/@Scheduled method not on a bean, or a timer slower than the wait time)");
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
		if (others > 0 && reachable == 0 && !status.peers().isEmpty() && !reported) {
			builder.status(PollingHealthStatus.DEGRADED);
		}
	}

	private static String lower(Enum<?> value) {
		return value.name().toLowerCase(Locale.ROOT).replace('_', '-');
	}

}
