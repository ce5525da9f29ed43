package dev.polling.boot.autoconfigure.coordination;

import java.time.Duration;
import dev.polling.core.CoordinationKind;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import dev.polling.boot.autoconfigure.properties.PollingProperties;
import dev.polling.core.ClusterCoordinator;
import dev.polling.core.ClusterDefinition;

/**
 * One coordinator per failover period, for stores whose coordinator takes a single period (a
 * ShedLock lockAtMostFor, a Lease duration): the configured period, or else each cluster's wait
 * time, as database coordination does. Every coordinator is built at start (a bad setting fails
 * the start, not the first decision).
 */
final class PerFailoverCoordinator implements ClusterCoordinator {

	private final Map<String, ClusterCoordinator> byCluster = new LinkedHashMap<>();

	private final String description;

	/**
	 * @param properties the polling properties (clusters and their wait times)
	 * @param kind the kind whose clusters are coordinated
	 * @param configured the configured period, or null for each cluster's wait time
	 * @param factory builds the coordinator for a period
	 */
	PerFailoverCoordinator(PollingProperties properties, CoordinationKind kind, @Nullable Duration configured,
			Function<Duration, ClusterCoordinator> factory) {
		Map<Duration, ClusterCoordinator> byPeriod = new LinkedHashMap<>();
		properties.getClusters().forEach((id, cluster) -> {
			CoordinationKind coordination = (cluster.getCoordination() != null) ? cluster.getCoordination()
					: properties.getCoordination().getKind();
			Duration period = (configured != null) ? configured : cluster.getWaitTime();
			if (coordination == kind && period != null) {
				this.byCluster.put(id, byPeriod.computeIfAbsent(period, factory));
			}
		});
		if (byPeriod.isEmpty() && configured != null) {
			byPeriod.put(configured, factory.apply(configured));
		}
		this.description = byPeriod.isEmpty() ? kind.name().toLowerCase(Locale.ROOT)
				: byPeriod.values().iterator().next().describe();
	}

	/** The coordinators built, one per period. */
	Collection<ClusterCoordinator> coordinators() {
		return new LinkedHashSet<>(this.byCluster.values());
	}

	/** The ids of the clusters coordinated, in the order of the configuration. */
	Set<String> clusterIds() {
		return Collections.unmodifiableSet(this.byCluster.keySet());
	}

	private ClusterCoordinator of(ClusterDefinition cluster) {
		ClusterCoordinator coordinator = this.byCluster.get(cluster.id());
		if (coordinator == null) {
			throw new IllegalArgumentException("cluster '" + cluster.id() + "' is not coordinated by " + this.description);
		}
		return coordinator;
	}

	@Override
	public Claim acquire(ClusterDefinition cluster, String instanceId) {
		return of(cluster).acquire(cluster, instanceId);
	}

	@Override
	public void release(ClusterDefinition cluster, String instanceId) {
		of(cluster).release(cluster, instanceId);
	}

	@Override
	public String describe() {
		return this.description;
	}

}
