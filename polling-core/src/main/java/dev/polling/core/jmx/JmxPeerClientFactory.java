package dev.polling.core.jmx;

import java.util.Map;

import javax.net.ssl.SSLContext;

import dev.polling.core.PeerClient;
import dev.polling.core.PeerClientFactory;
import dev.polling.core.PollingSettings;
import dev.polling.core.TimeSource;

/** The default transport: a {@link JmxPeerClient} with {@value JmxPeerClient#DEFAULT_MAX_PENDING_PER_PEER} requests in flight per peer at most. */
public final class JmxPeerClientFactory implements PeerClientFactory {

	@Override
	public PeerClient create(PollingSettings settings, TimeSource time, Map<String, SSLContext> peerTls) {
		return new JmxPeerClient(settings, time, JmxPeerClient.DEFAULT_MAX_PENDING_PER_PEER, peerTls);
	}

}
