package dev.polling.core;

import java.util.Map;
import java.util.ServiceLoader;

import javax.net.ssl.SSLContext;

/**
 * Creates the default transport to the peers when a {@link PollingManager.Builder} is given none.
 * Found with {@link ServiceLoader}: the JMX transport ({@code dev.polling.core.jmx.JmxPeerClient})
 * registers itself in {@code META-INF/services}, so that this package does not depend on it.
 */
public interface PeerClientFactory {

	/**
	 * @param settings the instance's settings (JMX domain and contract, peer timeout)
	 * @param time the time source
	 * @param peerTls TLS contexts by peer id, for peers that speak TLS
	 * @return a new transport, owned (and closed) by the manager
	 */
	PeerClient create(PollingSettings settings, TimeSource time, Map<String, SSLContext> peerTls);

	/** The first factory on the class path of this class's loader. */
	static PeerClientFactory load() {
		return ServiceLoader.load(PeerClientFactory.class, PeerClientFactory.class.getClassLoader())
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("No PeerClientFactory found: polling-core's "
					+ "META-INF/services/dev.polling.core.PeerClientFactory is missing from the class path; give the builder a peerClient"));
	}

}
