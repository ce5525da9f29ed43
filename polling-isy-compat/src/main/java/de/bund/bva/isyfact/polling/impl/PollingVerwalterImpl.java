package de.bund.bva.isyfact.polling.impl;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import de.bund.bva.isyfact.polling.PollingVerwalter;
import de.bund.bva.isyfact.polling.common.exception.PollingClusterUnbekanntException;
import de.bund.bva.isyfact.polling.common.konstanten.EreignisSchluessel;
import de.bund.bva.isyfact.polling.common.konstanten.Fehlerschluessel;
import de.bund.bva.isyfact.polling.config.IsyPollingProperties;
import de.bund.bva.isyfact.polling.time.IsyClock;
import dev.polling.core.ClusterDefinition;
import dev.polling.core.PeerClient;
import dev.polling.core.PeerDefinition;
import dev.polling.core.PeerFault;
import dev.polling.core.PeerObservation;
import dev.polling.core.PeerState;
import dev.polling.core.PollingSettings;
import dev.polling.core.TimeSource;
import dev.polling.core.JmxContract;
import dev.polling.core.jmx.JmxPeerClient;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.InitializingBean;

/**
 * isy-polling's {@link PollingVerwalter} behaviour on polling-core's peer client.
 * <p>
 * Without JMX connections it runs in standalone mode: every call may poll, activity is not kept
 * ({@code getZeitpunktLetztePollingAktivitaet} is 0), cluster ids are not checked. With connections,
 * {@link #startePolling(String)} reads {@code ZeitraumLetztePollingAktivitaet} from every connection
 * of the cluster, including one that points at this JVM, and refuses while any is shorter than the
 * wait time; an activity timestamp is always set by a grant and by
 * {@link #aktualisiereZeitpunktLetztePollingAktivitaet(String)}, on isy-datetime's clock when present.
 * <p>
 * Unlike isy-polling, all connections are read in parallel and each within
 * {@code isy.polling.jmx.timeout} (polling-core's {@link JmxPeerClient}), and no fault of a peer
 * (unreachable, missing MBean, bad answer) escapes as an exception: it counts as "no activity" and is
 * logged, as isy-polling does for connection failures.
 */
public class PollingVerwalterImpl implements PollingVerwalter, InitializingBean, DisposableBean {

	private static final Log logger = LogFactory.getLog(PollingVerwalter.class);

	private IsyPollingProperties isyPollingProperties;

	private volatile boolean modusStandalone;

	private Map<String, Cluster> clusters = Map.of();

	private PeerClient peerClient;

	private Duration timeout = Duration.ofSeconds(2);

	public void setIsyPollingProperties(IsyPollingProperties isyPollingProperties) {
		this.isyPollingProperties = isyPollingProperties;
	}

	/** Whether no JMX connections are configured (every call may poll). */
	public boolean isModusStandalone() {
		return this.modusStandalone;
	}

	@Override
	public void afterPropertiesSet() throws Exception {
		IsyPollingProperties p = this.isyPollingProperties;
		if (p.getJmx().getVerbindungen().isEmpty()) {
			this.modusStandalone = true;
			logger.warn(EreignisSchluessel.KEIN_JMX_VERBINDUNGS_PARAM + ": no isy.polling.jmx.verbindungen are configured; "
					+ "polling runs in standalone mode (every instance may poll)");
			return;
		}
		Map<String, PeerDefinition> peers = IsyPollingKonfiguration.peers(p);
		Map<String, Cluster> result = new LinkedHashMap<>();
		p.getCluster().forEach((id, c) -> {
			ClusterDefinition definition = IsyPollingKonfiguration.cluster(id, c, peers);
			List<PeerDefinition> clusterPeers = new ArrayList<>();
			for (String peerId : definition.peerIds().isEmpty() ? peers.keySet() : definition.peerIds()) {
				clusterPeers.add(peers.get(peerId));
			}
			result.put(id, new Cluster(definition, List.copyOf(clusterPeers)));
		});
		this.clusters = Map.copyOf(result);
		this.timeout = IsyPollingKonfiguration.timeout(p);
		PollingSettings settings = PollingSettings.defaults().withPeerTimeout(this.timeout)
				.withJmxContract(JmxContract.ISY_POLLING).withJmxDomain(p.getJmx().getDomain());
		// every name a peer is read under must form an ObjectName: a fault here is the configuration's, reported once
		for (Map.Entry<String, Cluster> entry : result.entrySet()) {
			try {
				JmxContract.ISY_POLLING.objectName(settings.jmxDomain(), entry.getValue().definition);
			}
			catch (IllegalArgumentException ex) {
				throw new IllegalArgumentException("isy.polling.jmx.domain '" + settings.jmxDomain()
						+ "' and isy.polling.cluster." + entry.getKey() + ".name '" + entry.getValue().definition.name()
						+ "' form no JMX ObjectName (" + ex.getMessage() + "); use a package-like domain such as "
						+ "de.bund.bva.isyfact.polling and a name without line breaks", ex);
			}
		}
		this.peerClient = new JmxPeerClient(settings, TimeSource.SYSTEM);
		this.modusStandalone = false;
	}

	@Override
	public void destroy() {
		if (this.peerClient != null) {
			this.peerClient.close();
		}
	}

	@Override
	public boolean startePolling(String clusterId) {
		if (this.modusStandalone) {
			return true;
		}
		Cluster cluster = cluster(clusterId);
		List<CompletableFuture<PeerObservation>> answers = new ArrayList<>();
		for (PeerDefinition peer : cluster.peers) {
			try {
				answers.add(this.peerClient.observe(peer, cluster.definition, this.timeout));
			}
			catch (RuntimeException ex) {
				answers.add(CompletableFuture.failedFuture(ex));
			}
		}
		long waitMillis = cluster.definition.waitTime().toMillis();
		boolean granted = true;
		for (int i = 0; i < answers.size(); i++) {
			PeerObservation o = observation(answers.get(i), cluster.peers.get(i));
			if (o.state() == PeerState.ANSWERED) {
				if (logger.isDebugEnabled()) {
					logger.debug("Cluster " + clusterId + ", connection " + o.peerId() + " (" + o.address() + "): "
							+ ((o.elapsedMillis() == PeerObservation.NEVER) ? "no activity" : o.elapsedMillis() + " ms since the last activity"));
				}
				if (o.elapsedMillis() < waitMillis) {
					granted = false;
				}
			}
			else if (answeredUnreadably(o)) {
				// the peer runs but its activity cannot be read (another domain or cluster name, credentials, TLS, a
				// port of something else): counting it as idle would let two instances poll
				granted = false;
				logger.error(Fehlerschluessel.MSG_VERBINDUNGSFEHLER + ": cluster " + clusterId + ", connection " + o.peerId() + " ("
						+ o.address() + ") answered but its activity could not be read (" + o.fault() + ": " + o.detail()
						+ "); counted as active, so this instance does not poll until it can be read: check "
						+ "isy.polling.jmx.domain, the cluster's name and the connection's credentials on both instances");
			}
			else {
				logger.error(Fehlerschluessel.MSG_VERBINDUNGSFEHLER + ": cluster " + clusterId + ", connection " + o.peerId() + " ("
						+ o.address() + ") not reached (" + o.state() + ", " + o.fault() + ": " + o.detail() + "); counted as no activity");
			}
		}
		if (granted) {
			cluster.touch();
		}
		return granted;
	}

	/**
	 * Whether a peer that is there could not be read: only a peer that could not be reached counts as
	 * no activity (isy-polling's failover); one that answered without a readable activity does not.
	 */
	private static boolean answeredUnreadably(PeerObservation observation) {
		return switch (observation.fault()) {
			case MISSING_MBEAN, BAD_RESPONSE, AUTHENTICATION, TLS, NOT_JMX -> true;
			default -> false;
		};
	}

	private PeerObservation observation(CompletableFuture<PeerObservation> answer, PeerDefinition peer) {
		try {
			return answer.join();
		}
		catch (RuntimeException ex) {
			return PeerObservation.failed(peer, PeerState.ERROR, PeerFault.BAD_RESPONSE, Duration.ZERO,
					Instant.now(), String.valueOf(ex));
		}
	}

	@Override
	public void aktualisiereZeitpunktLetztePollingAktivitaet(String clusterId) {
		if (this.modusStandalone) {
			return;
		}
		cluster(clusterId).touch();
	}

	@Override
	public long getZeitpunktLetztePollingAktivitaet(String clusterId) {
		if (this.modusStandalone) {
			return 0;
		}
		return cluster(clusterId).lastActivity;
	}

	private Cluster cluster(String clusterId) {
		Cluster cluster = (clusterId != null) ? this.clusters.get(clusterId) : null;
		if (cluster == null) {
			throw new PollingClusterUnbekanntException(Fehlerschluessel.MSG_POLLING_CLUSTER_UBEKANNT, clusterId);
		}
		return cluster;
	}

	private static final class Cluster {

		final ClusterDefinition definition;

		final List<PeerDefinition> peers;

		volatile long lastActivity;

		Cluster(ClusterDefinition definition, List<PeerDefinition> peers) {
			this.definition = definition;
			this.peers = peers;
		}

		void touch() {
			this.lastActivity = IsyClock.nowMillis();
		}

	}

}
