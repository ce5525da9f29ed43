package de.bund.bva.isyfact.polling.common.konstanten;

/** Log event keys (isy-polling's keys). */
public class EreignisSchluessel {

	/** No JMX connections are configured: standalone mode. */
	public static final String KEIN_JMX_VERBINDUNGS_PARAM = "EPLPOL00001";

	/** A JMX connection could not be closed. */
	public static final String JMX_VERBINDUNG_NICHT_GESCHLOSSEN = "EPLPOL00002";

	/** A polling cluster is misconfigured. */
	public static final String POLLING_CLUSTER_KONFIG_FEHLER = "EPLPOL00003";

	/** A polling cluster is not configured. */
	public static final String POLLING_CLUSTER_UNBEKANNT = "EPLPOL00004";

}
