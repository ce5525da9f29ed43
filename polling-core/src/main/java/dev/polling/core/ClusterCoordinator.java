package dev.polling.core;

import org.jspecify.annotations.Nullable;

/**
 * Decides who holds a cluster through a shared system instead of asking the peers over JMX, e.g.
 * a database row ({@code dev.polling.jdbc.coordination.JdbcCoordinator}). A cluster given a
 * coordinator in {@link PollingManager.Builder#coordinator(String, ClusterCoordinator)} is decided
 * by it alone.
 */
public interface ClusterCoordinator {

	/**
	 * Acquires the cluster for the instance, or renews its hold. Never throws for a fault of the
	 * shared system: it answers with {@link Claim#unavailable(String)}.
	 * @param cluster the cluster
	 * @param instanceId this instance
	 * @return the outcome
	 */
	Claim acquire(ClusterDefinition cluster, String instanceId);

	/**
	 * Lets go of the cluster if the instance holds it, so another instance can take it at once.
	 * Never throws for a fault of the shared system.
	 * @param cluster the cluster
	 * @param instanceId this instance
	 */
	void release(ClusterDefinition cluster, String instanceId);

	/** Where the coordinator keeps its state, for display (no credentials). */
	String describe();

	/**
	 * The outcome of {@link #acquire}.
	 *
	 * @param granted whether the instance holds the cluster now
	 * @param renewed whether it held it before this call
	 * @param holder the holder after the call (this instance when granted), or null when nobody or unknown
	 * @param epoch the fencing token: increases whenever the holder changes; -1 when unknown
	 * @param holderAgeMillis time since the holder's last run, in the shared system's time; -1 when unknown
	 * @param failure why the shared system could not decide, or null
	 */
	record Claim(boolean granted, boolean renewed, @Nullable String holder, long epoch, long holderAgeMillis,
			@Nullable String failure) {

		public static Claim unavailable(String failure) {
			return new Claim(false, false, null, -1, -1, failure);
		}

		public boolean isUnavailable() {
			return this.failure != null;
		}

	}

}
