package dev.polling.jdbc.coordination;

import org.jspecify.annotations.Nullable;

/**
 * Thrown inside a transaction that writes under a hold when another instance has taken the
 * cluster over (or it was released): the transaction must roll back, so that the stale holder's
 * writes never commit. Not a fault: the new holder does the work.
 */
public class LostHoldException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	private final String clusterId;

	private final long expectedEpoch;

	private final @Nullable String holder;

	private final long epoch;

	/**
	 * Creates the exception.
	 * @param clusterId the cluster
	 * @param instanceId this instance
	 * @param expectedEpoch the epoch this instance was granted
	 * @param holder the holder found in the database, or {@code null} for none
	 * @param epoch the epoch found in the database, or -1 if the row is missing
	 */
	public LostHoldException(String clusterId, String instanceId, long expectedEpoch, @Nullable String holder,
			long epoch) {
		super("Cluster '" + clusterId + "' is no longer held by " + instanceId + " with epoch " + expectedEpoch
				+ ": the database says " + ((holder != null) ? "holder " + holder : "no holder") + ", epoch " + epoch
				+ "; the writes of this transaction must roll back (the current holder does the work)");
		this.clusterId = clusterId;
		this.expectedEpoch = expectedEpoch;
		this.holder = holder;
		this.epoch = epoch;
	}

	/** The cluster. */
	public String clusterId() {
		return this.clusterId;
	}

	/** The epoch this instance was granted. */
	public long expectedEpoch() {
		return this.expectedEpoch;
	}

	/** The holder found in the database, or {@code null}. */
	public @Nullable String holder() {
		return this.holder;
	}

	/** The epoch found in the database. */
	public long epoch() {
		return this.epoch;
	}

}
