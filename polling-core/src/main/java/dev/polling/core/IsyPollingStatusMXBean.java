package dev.polling.core;

import java.util.Date;

/**
 * The cluster MBean under {@link JmxContract#ISY_POLLING}: isy-polling's two attributes in addition
 * to this library's. isy-polling instances read {@value #ZEITRAUM_LETZTE_POLLING_AKTIVITAET}.
 */
public interface IsyPollingStatusMXBean extends PollingClusterMXBean {

	/** isy-polling's attribute: time since the last activity in ms, {@link Long#MAX_VALUE} for never. */
	String ZEITRAUM_LETZTE_POLLING_AKTIVITAET = "ZeitraumLetztePollingAktivitaet";

	/** isy-polling's attribute: the last activity, the epoch ({@code new Date(0)}) for never. */
	String ZEITPUNKT_LETZTE_POLLING_AKTIVITAET = "ZeitpunktLetztePollingAktivitaet";

	/**
	 * Time since the last activity in ms, {@link Long#MAX_VALUE} for never; 0 while this instance is a
	 * candidate, so that isy-polling peers (which know no candidacy) hold back while it acquires.
	 */
	long getZeitraumLetztePollingAktivitaet();

	/** Wall-clock time of the last activity; {@code new Date(0)} for never, as isy-polling reports it. */
	Date getZeitpunktLetztePollingAktivitaet();

}
