/**
 * Peers found through DNS instead of a fixed list: what to resolve ({@link dev.polling.core.discovery.DnsDiscovery},
 * given to {@code PollingManager.Builder#discovery}), how ({@link dev.polling.core.discovery.PeerResolver}, the JDK's
 * resolver by default) and what was found ({@link dev.polling.core.discovery.DiscoveredPeer}, for endpoints and logs).
 * The resolving itself (a thread per manager, the peers' ages, dropping missing peers) is the package-private
 * {@code PeerDiscovery} in {@code dev.polling.core}, which works on the clusters' runtime state.
 */
@NullMarked
package dev.polling.core.discovery;

import org.jspecify.annotations.NullMarked;
