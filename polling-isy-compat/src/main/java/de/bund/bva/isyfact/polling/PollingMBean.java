package de.bund.bva.isyfact.polling;

import java.util.Date;

import de.bund.bva.isyfact.polling.common.exception.PollingTechnicalRuntimeException;
import de.bund.bva.isyfact.polling.time.IsyClock;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.jmx.export.annotation.ManagedAttribute;
import org.springframework.jmx.export.annotation.ManagedResource;

/**
 * The bean an application exports per polling cluster (under
 * {@code <domain>:type=PollingStatus,name="Polling-Aktivitaet-<cluster name>"}) so that the other
 * instances can read its last polling activity. Its attributes are the ones isy-polling's instances
 * read: {@code ZeitraumLetztePollingAktivitaet} (milliseconds since the last activity,
 * {@link Long#MAX_VALUE} when never) and {@code ZeitpunktLetztePollingAktivitaet}.
 */
@ManagedResource(description = "Last polling activity of this instance for one polling cluster.")
public class PollingMBean {

	private static final Log logger = LogFactory.getLog(PollingMBean.class);

	private volatile PollingVerwalter pollingVerwalter;

	private volatile String clusterId;

	public void setPollingVerwalter(PollingVerwalter pollingVerwalter) {
		this.pollingVerwalter = pollingVerwalter;
	}

	public void setClusterId(String clusterId) {
		this.clusterId = clusterId;
	}

	/** The time of the last polling activity; the epoch (0) when none or when it cannot be read. */
	@ManagedAttribute(description = "Time of the last polling activity of this instance for the cluster.")
	public Date getZeitpunktLetztePollingAktivitaet() {
		return new Date(lastActivity());
	}

	/** Milliseconds since the last polling activity; {@link Long#MAX_VALUE} when none or when it cannot be read. */
	@ManagedAttribute(description = "Milliseconds since the last polling activity of this instance for the cluster.")
	public long getZeitraumLetztePollingAktivitaet() {
		long last = lastActivity();
		return (last == 0) ? Long.MAX_VALUE : IsyClock.nowMillis() - last;
	}

	private long lastActivity() {
		try {
			return this.pollingVerwalter.getZeitpunktLetztePollingAktivitaet(this.clusterId);
		}
		catch (PollingTechnicalRuntimeException ex) {
			logger.error("Polling cluster '" + this.clusterId + "' cannot be read: " + ex.getMessage(), ex);
			return 0;
		}
	}

}
