package de.bund.bva.isyfact.polling.impl;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

import de.bund.bva.isyfact.polling.common.exception.PollingClusterKonfigurationException;
import de.bund.bva.isyfact.polling.common.konstanten.Fehlerschluessel;
import de.bund.bva.isyfact.polling.config.IsyPollingProperties;
import dev.polling.core.ClusterDefinition;
import dev.polling.core.PeerDefinition;

/** Turns {@link IsyPollingProperties} into polling-core's definitions, with isy-polling's start checks. */
final class IsyPollingKonfiguration {

	private IsyPollingKonfiguration() {
	}

	/** The connections as peers, by id. Entries with the same host and port are accepted (as isy-polling does). */
	static Map<String, PeerDefinition> peers(IsyPollingProperties p) {
		Map<String, PeerDefinition> peers = new LinkedHashMap<>();
		p.getJmx().getVerbindungen().forEach((id, v) -> {
			String address = v.getHost() + ":" + v.getPort();
			if (v.getHost() == null || v.getHost().isBlank() || v.getPort() < 0 || v.getPort() > 65535) {
				throw new PollingClusterKonfigurationException(Fehlerschluessel.MSG_JMX_IPADRESSEPORT_FEHLERHAFT, address, id);
			}
			String user = (v.getBenutzer() == null || v.getBenutzer().isBlank()) ? null : v.getBenutzer();
			String url = "service:jmx:rmi:///jndi/rmi://" + host(v.getHost().trim()) + ":" + v.getPort() + "/jmxrmi";
			peers.put(id, new PeerDefinition(id, v.getHost().trim(), v.getPort(), url, user, (user != null) ? v.getPasswort() : null));
		});
		return peers;
	}

	private static String host(String host) {
		return (host.indexOf(':') >= 0 && !host.startsWith("[")) ? "[" + host + "]" : host;
	}

	/**
	 * One cluster, checked as isy-polling checks it at start: a name, a wait time of at least 10
	 * seconds, known connection ids (all connections when none are named).
	 */
	static ClusterDefinition cluster(String id, IsyPollingProperties.Cluster c, Map<String, PeerDefinition> peers) {
		if (c.getName() == null) {
			throw new IllegalArgumentException("isy.polling.cluster." + id + ".name is not set; every polling cluster needs a name");
		}
		if (c.getWartezeit() < 10) {
			throw new IllegalArgumentException("isy.polling.cluster." + id + ".wartezeit is " + c.getWartezeit()
					+ "; the wait time must be at least 10 seconds");
		}
		Set<String> ids = new LinkedHashSet<>();
		for (String connection : c.getJmxverbindungen()) {
			String trimmed = connection.trim();
			if (!peers.containsKey(trimmed)) {
				throw new PollingClusterKonfigurationException(Fehlerschluessel.MSG_UNBEKANNTE_VERBINDUNGSZUORDNUNG, trimmed, id);
			}
			ids.add(trimmed);
		}
		return new ClusterDefinition(id, c.getName(), Duration.ofSeconds(c.getWartezeit()), ids);
	}

	static Duration timeout(IsyPollingProperties p) {
		Duration t = p.getJmx().getTimeout();
		if (t == null || t.isNegative() || t.isZero()) {
			throw new IllegalArgumentException("isy.polling.jmx.timeout is " + t + "; it must be positive, e.g. 2s");
		}
		return t;
	}

}
