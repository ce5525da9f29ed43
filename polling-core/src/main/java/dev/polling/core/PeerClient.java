package dev.polling.core;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Transport SPI: asks one peer for its view of one cluster. The JMX implementation is
 * {@code dev.polling.core.jmx.JmxPeerClient}, found through {@link PeerClientFactory}.
 */
public interface PeerClient extends AutoCloseable {

	/**
	 * Starts asking the peer. The returned future always completes normally with an observation
	 * (faults are classified, never thrown). It may complete after {@code timeout}; the caller stops
	 * waiting then. Implementations must bound the threads they leave stuck on a dead peer.
	 * @param peer the peer
	 * @param cluster the cluster
	 * @param timeout how long the caller will wait
	 * @return the observation, eventually
	 */
	CompletableFuture<PeerObservation> observe(PeerDefinition peer, ClusterDefinition cluster, Duration timeout);

	@Override
	void close();

}
