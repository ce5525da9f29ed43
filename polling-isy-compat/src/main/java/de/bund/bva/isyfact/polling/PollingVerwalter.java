package de.bund.bva.isyfact.polling;

/**
 * Decides whether this application instance may poll a polling cluster (isy-polling's interface,
 * served by polling-core). Applications inject it, mock it and may implement it.
 */
public interface PollingVerwalter {

	/**
	 * Whether this instance may start polling the cluster now. When it may, the time of the last
	 * polling activity of this instance is set to now.
	 * @param clusterId the cluster id ({@code isy.polling.cluster.<id>})
	 * @return true when polling may start
	 * @throws de.bund.bva.isyfact.polling.common.exception.PollingClusterUnbekanntException if the
	 * cluster is not configured (never in standalone mode)
	 */
	boolean startePolling(String clusterId);

	/**
	 * Sets the time of the last polling activity of this instance for the cluster to now.
	 * @param clusterId the cluster id
	 * @throws de.bund.bva.isyfact.polling.common.exception.PollingClusterUnbekanntException if the
	 * cluster is not configured (never in standalone mode)
	 */
	void aktualisiereZeitpunktLetztePollingAktivitaet(String clusterId);

	/**
	 * The time of the last polling activity of this instance for the cluster, in epoch milliseconds;
	 * 0 when there was none, and always 0 in standalone mode.
	 * @param clusterId the cluster id
	 * @return epoch milliseconds or 0
	 * @throws de.bund.bva.isyfact.polling.common.exception.PollingClusterUnbekanntException if the
	 * cluster is not configured (never in standalone mode)
	 */
	long getZeitpunktLetztePollingAktivitaet(String clusterId);

}
