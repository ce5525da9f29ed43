package dev.polling.boot.observation;

import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * What the observations of this package share: the cluster, who is being observed (the instance
 * deciding, the peer asked) and, once it is known, what came of it.
 *
 * @param <S> who is observed
 * @param <R> what came of it
 */
abstract class ClusterObservationContext<S, R> extends Observation.Context {

	private final String clusterId;

	/** Who is observed. */
	final S subject;

	/** What came of it, {@code null} until known. */
	@Nullable R result;

	ClusterObservationContext(String clusterId, S subject) {
		this.clusterId = clusterId;
		this.subject = subject;
	}

	public String getClusterId() {
		return this.clusterId;
	}

}
