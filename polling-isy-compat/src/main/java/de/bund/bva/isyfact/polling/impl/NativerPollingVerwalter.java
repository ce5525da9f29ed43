package de.bund.bva.isyfact.polling.impl;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import de.bund.bva.isyfact.polling.PollingVerwalter;
import de.bund.bva.isyfact.polling.common.exception.PollingClusterUnbekanntException;
import de.bund.bva.isyfact.polling.common.konstanten.Fehlerschluessel;
import de.bund.bva.isyfact.polling.config.IsyPollingProperties;
import dev.polling.core.ClusterDefinition;
import dev.polling.core.PeerDefinition;
import dev.polling.core.PollingManager;
import dev.polling.core.PollingSettings;
import dev.polling.core.UnknownClusterException;
import dev.polling.core.JmxContract;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.InitializingBean;

/**
 * {@link PollingVerwalter} with polling-core's native behaviour ({@code isy.polling.nativ.aktiv=true}):
 * a {@link PollingManager} decides (announce protocol, no check-then-act race), recognises a
 * connection to this instance as itself, lets activity only extend a hold this instance was granted,
 * and checks the configuration strictly at start (connections with the same address, connection ids
 * unknown also in standalone mode, {@code @PollingAktion} clusters). The manager registers its own
 * MBeans under isy-polling's names in the platform MBean server, so the application must not export
 * {@link de.bund.bva.isyfact.polling.PollingMBean}s itself.
 */
public class NativerPollingVerwalter implements PollingVerwalter, InitializingBean, DisposableBean {

	private IsyPollingProperties isyPollingProperties;

	private @Nullable PollingManager manager;

	public void setIsyPollingProperties(IsyPollingProperties isyPollingProperties) {
		this.isyPollingProperties = isyPollingProperties;
	}

	/** The manager that decides; null when no cluster is configured. */
	public @Nullable PollingManager getPollingManager() {
		return this.manager;
	}

	/** The configured cluster ids. */
	public Set<String> getClusterIds() {
		return (this.manager != null) ? this.manager.clusterIds() : Set.of();
	}

	@Override
	public void afterPropertiesSet() {
		IsyPollingProperties p = this.isyPollingProperties;
		Map<String, PeerDefinition> peers = IsyPollingKonfiguration.peers(p);
		List<ClusterDefinition> clusters = new ArrayList<>();
		p.getCluster().forEach((id, c) -> clusters.add(IsyPollingKonfiguration.cluster(id, c, peers)));
		if (clusters.isEmpty()) {
			return;
		}
		PollingSettings settings = PollingSettings.defaults().withPeerTimeout(IsyPollingKonfiguration.timeout(p))
				.withJmxContract(JmxContract.ISY_POLLING).withJmxDomain(p.getJmx().getDomain());
		this.manager = PollingManager.builder().settings(settings).peers(peers.values()).clusters(clusters)
				.mbeanServer(ManagementFactory.getPlatformMBeanServer()).build();
	}

	@Override
	public void destroy() {
		if (this.manager != null) {
			this.manager.close();
		}
	}

	@Override
	public boolean startePolling(String clusterId) {
		try {
			return manager(clusterId).tryStartPolling(clusterId);
		}
		catch (UnknownClusterException ex) {
			throw unknown(clusterId);
		}
	}

	@Override
	public void aktualisiereZeitpunktLetztePollingAktivitaet(String clusterId) {
		try {
			manager(clusterId).recordActivity(clusterId);
		}
		catch (UnknownClusterException ex) {
			throw unknown(clusterId);
		}
	}

	@Override
	public long getZeitpunktLetztePollingAktivitaet(String clusterId) {
		try {
			return manager(clusterId).lastActivity(clusterId).map((instant) -> instant.toEpochMilli()).orElse(0L);
		}
		catch (UnknownClusterException ex) {
			throw unknown(clusterId);
		}
	}

	private PollingManager manager(String clusterId) {
		PollingManager m = this.manager;
		if (m == null) {
			throw unknown(clusterId);
		}
		return m;
	}

	private static PollingClusterUnbekanntException unknown(String clusterId) {
		return new PollingClusterUnbekanntException(Fehlerschluessel.MSG_POLLING_CLUSTER_UBEKANNT, clusterId);
	}

}
