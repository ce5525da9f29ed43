package dev.polling.test;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

import dev.polling.core.ClusterDefinition;
import dev.polling.core.Decision;
import dev.polling.core.PeerClient;
import dev.polling.core.PeerDefinition;
import dev.polling.core.PeerFault;
import dev.polling.core.PeerObservation;
import dev.polling.core.PeerState;
import dev.polling.core.PollingManager;

/**
 * The peers of a test's application, answering as the test says: the transport
 * ({@link PeerClient}) that {@link PollingTest} gives the {@code PollingManager}. Per cluster, every
 * peer answers alike: idle (the default), holding, or not at all. Inject it to change the script
 * during a test; each change applies to the next decision.
 */
public final class ScriptedPeers implements PeerClient {

	/** The id of the peer added when the application configures none. */
	public static final String PEER_ID = "polling-test-peer";

	/** What the peers of a cluster answer. */
	public enum Answer {

		/** They answer that they have not polled for longer than the wait time. */
		IDLE,

		/** They answer that they polled a moment ago. */
		HOLDING,

		/** They do not answer within the peer timeout. */
		UNREACHABLE

	}

	private final Map<String, Answer> answers = new ConcurrentHashMap<>();

	private final Map<String, AtomicInteger> requests = new ConcurrentHashMap<>();

	private volatile @Nullable PollingManager manager;

	/** Peers that are idle for every cluster. */
	public ScriptedPeers() {
	}

	/**
	 * The peers of these clusters answer that they hold them; this instance lets go of any of them
	 * it holds, so its next decision is refused ({@code peer-active}).
	 * @param clusterIds the clusters
	 * @return this
	 */
	public ScriptedPeers peerHolds(String... clusterIds) {
		for (String clusterId : clusterIds) {
			this.answers.put(clusterId, Answer.HOLDING);
			PollingManager manager = this.manager;
			if (manager != null && manager.isHolding(clusterId)) {
				manager.release(clusterId);
			}
		}
		return this;
	}

	/**
	 * The peers of these clusters answer that they are idle: the next decision grants them.
	 * @param clusterIds the clusters
	 * @return this
	 */
	public ScriptedPeers peersIdle(String... clusterIds) {
		for (String clusterId : clusterIds) {
			this.answers.put(clusterId, Answer.IDLE);
		}
		return this;
	}

	/**
	 * The peers of these clusters do not answer: the decision follows
	 * {@code polling.jmx.unreachable-peer-policy} ({@code proceed} grants, {@code presume-last-known}
	 * refuses while the peer was last seen holding and the wait time has not passed).
	 * @param clusterIds the clusters
	 * @return this
	 */
	public ScriptedPeers peerUnreachable(String... clusterIds) {
		for (String clusterId : clusterIds) {
			this.answers.put(clusterId, Answer.UNREACHABLE);
		}
		return this;
	}

	/**
	 * Makes this instance hold a cluster now: its peers become idle and the manager decides.
	 * @param clusterId the cluster
	 * @return the decision, granted
	 * @throws IllegalStateException when the application has no {@code PollingManager} or the
	 *         decision is refused (the cluster is paused, for instance)
	 */
	public Decision holdHere(String clusterId) {
		PollingManager manager = this.manager;
		if (manager == null) {
			throw new IllegalStateException("The application has no PollingManager (polling.enabled=false, or no polling.clusters "
					+ "are defined), so this instance cannot hold cluster '" + clusterId + "'");
		}
		peersIdle(clusterId);
		Decision decision = manager.decide(clusterId);
		if (!decision.isGranted()) {
			throw new IllegalStateException("Cluster '" + clusterId + "' was not granted to this instance although its peers are idle: "
					+ decision.reason() + ((decision.detail() != null) ? " (" + decision.detail() + ")" : ""));
		}
		return decision;
	}

	/**
	 * What the peers of a cluster answer now.
	 * @param clusterId the cluster
	 * @return the answer
	 */
	public Answer answer(String clusterId) {
		return this.answers.getOrDefault(clusterId, Answer.IDLE);
	}

	/**
	 * How many requests the peers of a cluster have had: one per peer and round of a decision.
	 * @param clusterId the cluster
	 * @return the count
	 */
	public int requests(String clusterId) {
		AtomicInteger count = this.requests.get(clusterId);
		return (count != null) ? count.get() : 0;
	}

	/** Every cluster idle again, the counts at zero. */
	public void reset() {
		this.answers.clear();
		this.requests.clear();
	}

	/** The manager these peers answer, for {@link #holdHere} and {@link #peerHolds}. */
	void attach(PollingManager manager) {
		this.manager = Objects.requireNonNull(manager, "manager must not be null");
	}

	@Override
	public CompletableFuture<PeerObservation> observe(PeerDefinition peer, ClusterDefinition cluster, Duration timeout) {
		this.requests.computeIfAbsent(cluster.id(), (id) -> new AtomicInteger()).incrementAndGet();
		Instant now = Instant.now();
		PeerObservation observation = switch (answer(cluster.id())) {
			case IDLE -> answered(peer, PeerObservation.NEVER, now);
			case HOLDING -> answered(peer, 0, now);
			case UNREACHABLE -> PeerObservation.failed(peer, PeerState.UNRESPONSIVE, PeerFault.TIMEOUT, timeout, now,
					"scripted by the test: the peer does not answer");
		};
		return CompletableFuture.completedFuture(observation);
	}

	private static PeerObservation answered(PeerDefinition peer, long elapsedMillis, Instant now) {
		return new PeerObservation(peer.id(), peer.address(), PeerState.ANSWERED, PeerFault.NONE, peer.id(), elapsedMillis, -1,
				Duration.ZERO, now, null);
	}

	@Override
	public void close() {
		// nothing to release: no connections
	}

}
