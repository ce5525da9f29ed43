package dev.polling.core;

/**
 * The per-cluster MBean that peers read, registered by the {@link dev.polling.core.PollingManager}
 * under {@code <domain>:type=PollingCluster,name="<cluster id>"}. Elapsed time rather than a
 * timestamp is the contract, so that unsynchronised clocks between machines do not matter.
 */
public interface PollingClusterMXBean {

	/** Attribute read by peers: time since the last activity in ms, {@link Long#MAX_VALUE} for never. */
	String ELAPSED_MILLIS = "ElapsedMillis";

	/** Attribute read by peers: this instance's id. */
	String INSTANCE_ID = "InstanceId";

	/** Attribute read by peers: candidacy age in ms, -1 when not a candidate. */
	String CANDIDATE_AGE_MILLIS = "CandidateAgeMillis";

	/**
	 * Attribute read by peers of this library: {@code [elapsedMillis, candidateAgeMillis,
	 * heldClusters]}, the first two from one consistent snapshot (peers must use it rather than the
	 * two attributes read one after the other); the third is how many clusters this instance holds,
	 * or -1 while it is paused on this cluster (it takes no part in balancing it).
	 */
	String COORDINATION_STATE = "CoordinationState";

	long[] getCoordinationState();

	String getClusterId();

	String getClusterName();

	String getInstanceId();

	long getElapsedMillis();

	/** Last activity as ISO-8601 wall-clock time, or "never". */
	String getLastActivity();

	boolean isHolding();

	boolean isPaused();

	long getCandidateAgeMillis();

	long getWaitTimeMillis();

}
