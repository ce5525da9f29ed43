package dev.polling.core;

/**
 * How a cluster is coordinated, that is where an instance learns whether it may poll: from its
 * peers over JMX, or from a shared store that grants one holder at a time. The store-based kinds
 * are implemented by modules of their own; each is a {@link ClusterCoordinator} given to the
 * {@link PollingManager.Builder}.
 */
public enum CoordinationKind {

	/** Ask the peers over JMX (the default; this module). */
	JMX,

	/** Take a row in the database's coordination table (module polling-jdbc). */
	JDBC,

	/** Take a lock of the application's ShedLock {@code LockProvider} (module polling-shedlock). */
	SHEDLOCK,

	/** Take a {@code coordination.k8s.io/v1} Lease object (module polling-kubernetes). */
	KUBERNETES;

	/**
	 * Whether a shared store grants the cluster (every kind but {@link #JMX}).
	 * @return true for the store-based kinds
	 */
	public boolean isStoreBased() {
		return this != JMX;
	}

}
