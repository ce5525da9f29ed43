package dev.polling.kubernetes;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * Where the Lease objects live, reduced to what the decision needs: read, create, and update under
 * the resource version read (optimistic concurrency). The fabric8 client is one implementation
 * ({@link Fabric8LeaseStore}); a simulation is another. Calls are synchronous and may take any time;
 * a fault means the outcome is unknown (the request may or may not have been applied).
 */
interface LeaseStore {

	/**
	 * Reads a lease.
	 * @param name the lease's name
	 * @return the lease, or null when there is none
	 * @throws StoreFault when the store did not answer
	 */
	@Nullable Observed get(String name) throws StoreFault;

	/**
	 * Creates a lease.
	 * @param name the lease's name
	 * @param record its content
	 * @return the lease as written, or {@link Write#CONFLICT} when it exists already
	 * @throws StoreFault when the store did not answer
	 */
	Write create(String name, LeaseRecord record) throws StoreFault;

	/**
	 * Replaces a lease if it still has the given resource version.
	 * @param name the lease's name
	 * @param resourceVersion the version read
	 * @param record the new content
	 * @return the lease as written, or {@link Write#CONFLICT} when another write came first (or the
	 * lease is gone)
	 * @throws StoreFault when the store did not answer
	 */
	Write update(String name, String resourceVersion, LeaseRecord record) throws StoreFault;

	/** Where the leases are, for display (no credentials). */
	String describe();

	/**
	 * The fields of a lease's spec that the coordination uses.
	 *
	 * @param holder holderIdentity, null when nobody holds it
	 * @param durationSeconds leaseDurationSeconds
	 * @param acquireTime acquireTime (wall clock of the writer, informational)
	 * @param renewTime renewTime (wall clock of the writer, informational)
	 * @param transitions leaseTransitions: the epoch
	 */
	record LeaseRecord(@Nullable String holder, int durationSeconds, @Nullable Instant acquireTime, @Nullable Instant renewTime,
			long transitions) {
	}

	/**
	 * A lease as read or written.
	 *
	 * @param resourceVersion metadata.resourceVersion
	 * @param record the spec
	 */
	record Observed(String resourceVersion, LeaseRecord record) {
	}

	/**
	 * The outcome of a write that the store answered.
	 *
	 * @param written the lease as written, null for a conflict
	 */
	record Write(@Nullable Observed written) {

		/** Another write came first: 409 Conflict, AlreadyExists, or the lease is gone. */
		static final Write CONFLICT = new Write(null);

		boolean isConflict() {
			return this.written == null;
		}

	}

	/** The store did not answer, or answered with an error other than a conflict. */
	final class StoreFault extends Exception {

		private static final long serialVersionUID = 1L;

		StoreFault(String message, @Nullable Throwable cause) {
			super(message, cause);
		}

	}

}
