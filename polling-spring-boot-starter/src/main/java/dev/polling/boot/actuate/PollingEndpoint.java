package dev.polling.boot.actuate;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

import dev.polling.core.ClusterStatus;
import dev.polling.core.Decision;
import dev.polling.core.discovery.DiscoveredPeer;
import dev.polling.core.PeerDefinition;
import dev.polling.core.PeerObservation;
import dev.polling.core.PollingManager;

/**
 * The {@code polling} actuator endpoint: for each cluster whether this instance holds it, its last
 * activity, the last decision and why, and what each peer said. {@code POST
 * /actuator/polling/{cluster}} with {@code {"state":"paused"}} hands a cluster over to a peer (it
 * takes over at its next tick; while a cycle runs here, at its first tick after that cycle ended, and
 * the cluster shows {@code handingOver} meanwhile) and {@code {"state":"active"}} lets this instance compete again;
 * both need {@code management.endpoint.polling.access=unrestricted}, the default access being
 * read-only.
 * Never shows passwords; peer user names and the peers' error texts go through Spring Boot's
 * sanitizer and are masked unless {@code management.endpoint.polling.show-values} allows them. A
 * decision's {@code detail} (the library's own explanation, e.g. of a settings mismatch, as health
 * shows it) is not masked; the application's sanitizing functions apply to it. Over HTTP, {@link PollingEndpointWebExtension} answers an
 * unknown cluster (404) or state (400) with the valid ones.
 */
@Endpoint(id = "polling", defaultAccess = Access.READ_ONLY)
public class PollingEndpoint {

	/** The states a cluster can be set to. */
	static final List<String> STATES = List.of("active", "paused");

	private final PollingManager manager;

	private final PollingValueSanitizer sanitizer;

	/**
	 * Creates the endpoint with user names and error texts masked.
	 * @param manager the polling manager
	 */
	public PollingEndpoint(PollingManager manager) {
		this(manager, PollingValueSanitizer.masked());
	}

	/**
	 * Creates the endpoint.
	 * @param manager the polling manager
	 * @param sanitizer what it shows of user names and error texts
	 */
	public PollingEndpoint(PollingManager manager, PollingValueSanitizer sanitizer) {
		this.manager = manager;
		this.sanitizer = sanitizer;
	}

	/** All clusters of this instance. */
	@ReadOperation
	public PollingDescriptor polling(SecurityContext securityContext) {
		boolean shown = this.sanitizer.isShown(securityContext);
		Map<String, ClusterDescriptor> clusters = new LinkedHashMap<>();
		for (ClusterStatus status : this.manager.statuses()) {
			clusters.put(status.definition().id(), describe(status, shown));
		}
		DiscoveryDescriptor discovery = this.manager.discovery()
			.map((dns) -> new DiscoveryDescriptor(dns.name(), dns.port(), dns.interval().toString(),
					this.manager.discoveredPeers().stream().map(DiscoveredPeerDescriptor::of).toList()))
			.orElse(null);
		return new PollingDescriptor(this.manager.settings().instanceId(), this.manager.isStandalone(),
				this.manager.settings().peerTimeout().toString(), lower(this.manager.settings().unreachablePeerPolicy()), clusters,
				discovery);
	}

	/** One cluster, or 404 when there is no such cluster. */
	@ReadOperation
	public @Nullable ClusterDescriptor cluster(SecurityContext securityContext, @Selector String cluster) {
		if (!this.manager.clusterIds().contains(cluster)) {
			return null;
		}
		return describe(this.manager.status(cluster), this.sanitizer.isShown(securityContext));
	}

	/**
	 * Sets the state of a cluster on this instance: {@code paused} hands it over to a peer (it takes
	 * over at its next tick, or, while a cycle runs here, at its first tick after that cycle ended:
	 * the answer then shows {@code handingOver}), {@code active} lets this instance compete for it
	 * again. Returns at once. Over HTTP:
	 * {@code POST /actuator/polling/{cluster}} with the body {@code {"state":"paused"}}.
	 * @param cluster the cluster id
	 * @param state {@code paused} or {@code active}
	 * @return the cluster after the change, or {@code null} when there is no such cluster
	 */
	@WriteOperation
	public @Nullable ClusterDescriptor changeState(SecurityContext securityContext, @Selector String cluster, String state) {
		if (!this.manager.clusterIds().contains(cluster)) {
			return null;
		}
		switch (state) {
			case "paused" -> this.manager.pause(cluster);
			case "active" -> this.manager.resume(cluster);
			default -> throw new InvalidEndpointRequestException("Unknown state '" + state + "'; use " + STATES,
					"Unknown state; use " + STATES);
		}
		return describe(this.manager.status(cluster), this.sanitizer.isShown(securityContext));
	}

	private ClusterDescriptor describe(ClusterStatus status, boolean shown) {
		Map<String, PeerObservation> observations = new LinkedHashMap<>();
		for (PeerObservation observation : status.peers()) {
			observations.put(observation.peerId(), observation);
		}
		List<PeerDescriptor> peers = new ArrayList<>();
		for (String peerId : status.peerIds()) {
			PeerDefinition peer = this.manager.peers().get(peerId);
			if (peer != null) {
				PeerDescriptor described = PeerDescriptor.of(peer, observations.get(peerId));
				peers.add(described.sanitized(this.sanitizer, shown));
			}
			else {
				discoveredPeer(peerId).ifPresent((discovered) -> peers
					.add(PeerDescriptor.of(discovered, observations.get(peerId)).sanitized(this.sanitizer, shown)));
			}
		}
		Decision decision = status.lastDecision();
		return new ClusterDescriptor(status.definition().id(), status.definition().name(), status.definition().waitTime().toString(),
				status.holding(), holder(status), status.paused(), status.cycleRunning(),
				(status.lastActivity() != null) ? status.lastActivity().toString() : null,
				(status.elapsed() != null) ? status.elapsed().toMillis() : null,
				(decision != null) ? DecisionDescriptor.of(decision).sanitized(this.sanitizer, shown) : null, peers,
				(status.cycleRunningFor() != null) ? status.cycleRunningFor().toMillis() : null, status.cycleOverrunning(),
				status.handingOver());
	}

	/** Who holds the cluster as this instance sees it: itself, the peer that answered holding in the last decision, or unknown. */
	private HolderDescriptor holder(ClusterStatus status) {
		if (status.holding()) {
			return new HolderDescriptor(HolderDescriptor.THIS_INSTANCE, null, this.manager.settings().instanceId());
		}
		Decision decision = status.lastDecision();
		if (decision != null) {
			for (PeerObservation observation : decision.peers()) {
				if (observation.isHolding(status.definition().waitTime())
						&& !this.manager.settings().instanceId().equals(observation.instanceId())) {
					return new HolderDescriptor(HolderDescriptor.PEER, observation.peerId(), observation.instanceId());
				}
			}
		}
		return new HolderDescriptor(HolderDescriptor.UNKNOWN, null, null);
	}

	/** A peer found through DNS discovery, as a definition (its id is its address and port). */
	private java.util.Optional<PeerDefinition> discoveredPeer(String peerId) {
		return this.manager.discovery().flatMap((dns) -> this.manager.discoveredPeers().stream()
			.filter((p) -> p.id().equals(peerId))
			.findFirst()
			.map((p) -> new PeerDefinition(p.id(), p.address(), p.port(), null, dns.username(), null)));
	}

	/** The operations of this endpoint, for answers to a request it does not know. */
	List<String> clusterIds() {
		return List.copyOf(this.manager.clusterIds());
	}

	static String lower(Enum<?> value) {
		return value.name().toLowerCase(Locale.ROOT).replace('_', '-');
	}

	/**
	 * All clusters of this instance.
	 * @param instanceId this instance's id
	 * @param standalone whether no peers are configured (every poll is granted)
	 * @param peerTimeout the longest a decision waits for the peers (ISO-8601)
	 * @param unreachablePeerPolicy what a decision assumes about a peer that timed out or failed
	 * @param clusters the clusters by id
	 * @param discovery the DNS discovery and the peers it found, or null without discovery
	 */
	public record PollingDescriptor(String instanceId, boolean standalone, String peerTimeout, String unreachablePeerPolicy,
			Map<String, ClusterDescriptor> clusters, @Nullable DiscoveryDescriptor discovery) implements OperationResponseBody {
	}

	/**
	 * Peers from a DNS name.
	 * @param name the name resolved
	 * @param port the JMX port asked at each address
	 * @param interval how often it is resolved again (ISO-8601)
	 * @param peers the addresses found, present and missing
	 */
	public record DiscoveryDescriptor(String name, int port, String interval, List<DiscoveredPeerDescriptor> peers) {
	}

	/**
	 * A peer found through DNS.
	 * @param id the peer id (address:port, or the static peer with that address)
	 * @param address the resolved address
	 * @param firstSeen when the name first resolved to it
	 * @param missingSince since when the name no longer resolves to it (it is still asked until one wait time has passed), or null
	 * @param self whether it is this instance
	 */
	public record DiscoveredPeerDescriptor(String id, String address, String firstSeen, @Nullable String missingSince, boolean self) {

		static DiscoveredPeerDescriptor of(DiscoveredPeer peer) {
			return new DiscoveredPeerDescriptor(peer.id(), peer.address(), peer.firstSeen().toString(),
					(peer.missingSince() != null) ? peer.missingSince().toString() : null, peer.self());
		}

	}

	/**
	 * One cluster on this instance.
	 * @param id the cluster id
	 * @param name the display name
	 * @param waitTime the wait time (ISO-8601)
	 * @param holding whether this instance holds the cluster
	 * @param holder who holds it as this instance sees it
	 * @param paused whether the cluster is paused on this instance
	 * @param cycleRunning whether a cycle runs in this instance now
	 * @param lastActivity this instance's last activity, or null when never or released
	 * @param elapsedMillis milliseconds since then, or null
	 * @param lastDecision the latest decision, or null before the first
	 * @param peers the peers the cluster asks
	 * @param cycleRunningMillis how long the running cycle has run, or null when none runs
	 * @param cycleOverrunning whether the running cycle has run longer than the wait time
	 * @param handingOver whether this instance holds the cluster only until the running cycle ends (paused, released or shut
	 *        down during the cycle); a peer takes over at its first tick after that
	 */
	public record ClusterDescriptor(String id, String name, String waitTime, boolean holding, HolderDescriptor holder, boolean paused,
			boolean cycleRunning,
			@Nullable String lastActivity, @Nullable Long elapsedMillis, @Nullable DecisionDescriptor lastDecision,
			List<PeerDescriptor> peers, @Nullable Long cycleRunningMillis, boolean cycleOverrunning,
			boolean handingOver) implements OperationResponseBody {
	}

	/**
	 * Who holds a cluster, as this instance sees it.
	 * @param kind {@value #THIS_INSTANCE}, {@value #PEER} (a peer answered holding in the last decision) or {@value #UNKNOWN}
	 *        (no decision yet, or no peer answered holding: the cluster may be free, or held by a peer that did not answer)
	 * @param peerId the configured id of the peer that answered holding ({@code coordinator} for a cluster coordinated through
	 *        the database), or null
	 * @param instanceId the holder's instance id, when known
	 */
	public record HolderDescriptor(String kind, @Nullable String peerId, @Nullable String instanceId) {

		/** This instance holds the cluster. */
		public static final String THIS_INSTANCE = "this-instance";

		/** A peer answered holding it in the last decision. */
		public static final String PEER = "peer";

		/** Nobody answered holding it. */
		public static final String UNKNOWN = "unknown";

	}

	/**
	 * A decision.
	 * @param outcome granted or refused
	 * @param reason why, e.g. renewed, peer-active, paused
	 * @param decidedAt when
	 * @param durationMillis how long it took
	 * @param detail what an operator must know about it (the error of a disagreement with a peer), or null
	 */
	public record DecisionDescriptor(String outcome, String reason, String decidedAt, double durationMillis, @Nullable String detail) {

		static DecisionDescriptor of(Decision decision) {
			return new DecisionDescriptor(lower(decision.outcome()), lower(decision.reason()), decision.decidedAt().toString(),
					decision.duration().toNanos() / 1e6, decision.detail());
		}

		DecisionDescriptor sanitized(PollingValueSanitizer sanitizer, boolean shown) {
			// the library's own explanation (which peer, which settings, which property to fix): not secret, so
			// not masked by show-values; the application's sanitizing functions still apply, as in health
			return new DecisionDescriptor(this.outcome, this.reason, this.decidedAt, this.durationMillis,
					sanitizer.sanitize("detail", this.detail, true));
		}

	}

	/**
	 * A peer and what it said last.
	 * @param id the peer id
	 * @param address host:port or JMX service URL
	 * @param username the user name used at the peer, if any (never the password)
	 * @param state answered, self, refused, unresponsive or error; null when not asked yet
	 * @param fault why it could not be observed, or null
	 * @param instanceId the peer's instance id, when it answered
	 * @param elapsedMillis the peer's time since its last activity, or null for never or unknown
	 * @param latencyMillis how long the request took
	 * @param observedAt when
	 * @param detail an explanation of a fault
	 */
	public record PeerDescriptor(String id, String address, @Nullable String username, @Nullable String state,
			@Nullable String fault, @Nullable String instanceId, @Nullable Long elapsedMillis, @Nullable Double latencyMillis,
			@Nullable String observedAt, @Nullable String detail) {

		static PeerDescriptor of(PeerDefinition peer, @Nullable PeerObservation o) {
			if (o == null) {
				return new PeerDescriptor(peer.id(), peer.address(), peer.username(), null, null, null, null, null, null, null);
			}
			Duration latency = o.latency();
			return new PeerDescriptor(peer.id(), peer.address(), peer.username(), lower(o.state()),
					(o.fault() != dev.polling.core.PeerFault.NONE) ? lower(o.fault()) : null, o.instanceId(),
					(o.elapsedMillis() == PeerObservation.NEVER) ? null : o.elapsedMillis(), latency.toNanos() / 1e6,
					o.observedAt().toString(), o.detail());
		}

		PeerDescriptor sanitized(PollingValueSanitizer sanitizer, boolean shown) {
			return new PeerDescriptor(this.id, this.address, sanitizer.sanitize("username", this.username, shown), this.state,
					this.fault, this.instanceId, this.elapsedMillis, this.latencyMillis, this.observedAt,
					sanitizer.sanitize("detail", this.detail, shown));
		}

	}

}
