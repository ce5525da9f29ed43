package dev.polling.core;

import java.time.Duration;
import java.util.Objects;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * A polling cluster: the instances that poll one source. At most one instance of a cluster holds
 * it at a time; the others take over after the holder has been idle for {@link #waitTime()}.
 *
 * @param id unique within the application, used in code and configuration ({@code MAILABRUF_CLUSTER})
 * @param name display name (JMX, endpoint); defaults to the id
 * @param waitTime how long an instance must have been idle before a peer may take over; at least
 *        {@link #MIN_WAIT_TIME}, recommended twice the timer delay
 * @param peerIds the peers this cluster asks; empty means every configured peer
 * @param maxCycleTime how long a running cycle keeps the hold alive at most; null (the default) for as
 *        long as it runs. After it, the hold lapses one wait time later although the cycle still runs,
 *        so a peer may start polling beside it: set it only when a cycle that hangs must not keep the
 *        cluster from the other instances, and make the cycle's work safe against a second poller
 *        (the inbox).
 */
public record ClusterDefinition(String id, String name, Duration waitTime, Set<String> peerIds, @Nullable Duration maxCycleTime) {

	/** A cluster whose cycles keep the hold alive for as long as they run. */
	public ClusterDefinition(String id, String name, Duration waitTime, Set<String> peerIds) {
		this(id, name, waitTime, peerIds, null);
	}

	/** The shortest wait time accepted, as in the seed: 10 seconds. */
	public static final Duration MIN_WAIT_TIME = Duration.ofSeconds(10);

	public ClusterDefinition {
		Objects.requireNonNull(id, "Cluster id must not be null");
		if (id.isBlank()) {
			throw new IllegalArgumentException("Cluster id must not be blank");
		}
		name = (name == null || name.isBlank()) ? id : name;
		Objects.requireNonNull(waitTime, () -> "Cluster '" + id + "': wait time must not be null; set it to at least 10s");
		if (waitTime.compareTo(MIN_WAIT_TIME) < 0) {
			throw new IllegalArgumentException("Cluster '" + id + "': wait time " + waitTime.toMillis()
					+ " ms is shorter than the minimum of 10 s; set it to at least 10s (recommended: twice the timer delay)");
		}
		peerIds = (peerIds == null) ? Set.of() : Set.copyOf(peerIds);
		if (maxCycleTime != null && (maxCycleTime.isNegative() || maxCycleTime.isZero())) {
			throw new IllegalArgumentException("Cluster '" + id + "': max cycle time " + maxCycleTime.toMillis()
					+ " ms must be positive; leave it unset for cycles that keep the hold for as long as they run");
		}
	}

	/** A cluster with the given id and wait time, named after its id, asking every peer. */
	public static ClusterDefinition of(String id, Duration waitTime) {
		return new ClusterDefinition(id, id, waitTime, Set.of());
	}

	public ClusterDefinition withName(String name) {
		return new ClusterDefinition(this.id, name, this.waitTime, this.peerIds, this.maxCycleTime);
	}

	public ClusterDefinition withWaitTime(Duration waitTime) {
		return new ClusterDefinition(this.id, this.name, waitTime, this.peerIds, this.maxCycleTime);
	}

	public ClusterDefinition withPeerIds(Set<String> peerIds) {
		return new ClusterDefinition(this.id, this.name, this.waitTime, peerIds, this.maxCycleTime);
	}

	public ClusterDefinition withMaxCycleTime(@Nullable Duration maxCycleTime) {
		return new ClusterDefinition(this.id, this.name, this.waitTime, this.peerIds, maxCycleTime);
	}

}
