package de.bund.bva.isyfact.polling.common.konstanten;

/** Message ids of the polling exceptions (isy-polling's ids; texts in {@code resources/isy-polling/nachrichten/fehler}). */
public abstract class Fehlerschluessel {

	/** The MBean object name is empty. */
	public static final String MSG_MBEAN_OBJEKT_NAME_LEER = "POLLI01001";

	/** The MBean object name is malformed. */
	public static final String MSG_MBEAN_OBJEKT_NAME_FEHLERHAFT = "POLLI01002";

	/** A peer instance could not be reached. */
	public static final String MSG_VERBINDUNGSFEHLER = "POLLI01003";

	/** A JMX connection's host or port does not form a JMX service URL. */
	public static final String MSG_JMX_IPADRESSEPORT_FEHLERHAFT = "POLLI01004";

	/** The polling cluster is not configured. */
	public static final String MSG_POLLING_CLUSTER_UBEKANNT = "POLLI01005";

	/** A cluster names a JMX connection id that is not configured. */
	public static final String MSG_UNBEKANNTE_VERBINDUNGSZUORDNUNG = "POLLI01006";

	/** The peer's MBean has no such attribute. */
	public static final String MSG_MBEAN_ATTRIBUT_NICHT_GEFUNDEN = "POLLI01007";

	/** The peer has no such MBean. */
	public static final String MSG_MBEAN_INSTANZ_NICHT_GEFUNDEN = "POLLI01008";

	/** Reading the peer's MBean failed. */
	public static final String MSG_MBEAN_ZUGRIFF_FEHLER = "POLLI01009";

}
