package dev.polling.boot.compat;

import dev.polling.core.PollingManager;
import dev.polling.core.UnknownClusterException;

/**
 * isy-polling's {@code PollingVerwalter} API on top of the {@link PollingManager}, so that code
 * written for isy-polling needs only a changed import. New code should use the
 * {@link PollingManager} ({@code tryStartPolling}, {@code recordActivity}, {@code lastActivity},
 * {@code runIfGranted}).
 *
 * <p>One difference: {@link #aktualisiereZeitpunktLetztePollingAktivitaet(String)} extends this
 * instance's hold and does nothing when it does not hold the cluster, where isy-polling set the
 * timestamp unconditionally (and so could make an instance that was refused look active to its
 * peers).
 */
public final class PollingVerwalter {

	private final PollingManager manager;

	/**
	 * Creates the facade.
	 * @param manager the manager that decides
	 */
	public PollingVerwalter(PollingManager manager) {
		this.manager = manager;
	}

	/**
	 * Whether this instance may poll the cluster now: {@link PollingManager#tryStartPolling(String)}.
	 * @param clusterId the cluster id
	 * @return true when granted (the activity is then set)
	 * @throws UnknownClusterException if the cluster is not defined
	 */
	public boolean startePolling(String clusterId) {
		return this.manager.tryStartPolling(clusterId);
	}

	/**
	 * Refreshes the activity: {@link PollingManager#recordActivity(String)}. Extends a hold, never
	 * creates one.
	 * @param clusterId the cluster id
	 * @throws UnknownClusterException if the cluster is not defined
	 */
	public void aktualisiereZeitpunktLetztePollingAktivitaet(String clusterId) {
		this.manager.recordActivity(clusterId);
	}

	/**
	 * The last activity in epoch milliseconds, 0 when never (as isy-polling):
	 * {@link PollingManager#lastActivity(String)}.
	 * @param clusterId the cluster id
	 * @return epoch milliseconds of the last activity, or 0
	 * @throws UnknownClusterException if the cluster is not defined
	 */
	public long getZeitpunktLetztePollingAktivitaet(String clusterId) {
		return this.manager.lastActivity(clusterId).map((instant) -> instant.toEpochMilli()).orElse(0L);
	}

}
