package dev.polling.core;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

import dev.polling.core.discovery.DnsDiscovery;

/** The checks a {@link PollingManager.Builder} must pass before a manager is built; each message names the value and the fix. */
final class BuilderChecks {

	private BuilderChecks() {
	}

	/**
	 * An instance whose own address left the DNS answers lets go after half the wait time, as its
	 * own resolver sees it: two intervals and the age of a cached answer later at most. Its peers
	 * drop it after one wait time; so two intervals plus that age must fit into half the wait time.
	 */
	private static void checkDiscovery(DnsDiscovery dns, Duration maxAnswerAge, ClusterDefinition cluster) {
		Duration needed = dns.freshness().plus(maxAnswerAge);
		Duration half = cluster.waitTime().dividedBy(2);
		if (needed.compareTo(half) <= 0) {
			return;
		}
		if (maxAnswerAge.isZero()) {
			throw new IllegalArgumentException("DNS discovery interval " + dns.interval().toMillis()
					+ " ms is longer than a quarter of the wait time of cluster '" + cluster.id() + "' (" + cluster.waitTime().toMillis()
					+ " ms): an instance whose own address left the DNS answers must let go well before its peers drop it; "
					+ "lower the interval to at most " + cluster.waitTime().dividedBy(4).toMillis() + " ms or raise the wait time");
		}
		throw new IllegalArgumentException("DNS discovery: the resolver's answers may be " + maxAnswerAge.toMillis()
				+ " ms old (the JVM caches DNS lookups for networkaddress.cache.ttl, 30 s unless set), and with two intervals of "
				+ dns.interval().toMillis() + " ms that is more than half the wait time of cluster '" + cluster.id() + "' ("
				+ half.toMillis() + " ms): instances would see a change too far apart to stay safe. Set the security property "
				+ "networkaddress.cache.ttl for this JVM to at most " + half.minus(dns.freshness()).toSeconds()
				+ " (seconds; in a file passed with -Djava.security.properties=...), lower the interval or raise the wait time");
	}

	static void validate(PollingManager.Builder builder, PollingSettings settings) {
		if (builder.clusters.isEmpty()) {
			throw new IllegalArgumentException("No polling clusters are defined; define at least one cluster");
		}
		for (String clusterId : builder.coordinators.keySet()) {
			if (!builder.clusters.containsKey(clusterId)) {
				throw new IllegalArgumentException("A coordinator is given for unknown cluster '" + clusterId + "'; known clusters: "
						+ builder.clusters.keySet());
			}
		}
		for (String peerId : builder.peerTls.keySet()) {
			if (!builder.peers.containsKey(peerId)) {
				throw new IllegalArgumentException("TLS is given for unknown peer '" + peerId + "'; known peers: " + builder.peers.keySet());
			}
		}
		Map<String, String> addresses = new LinkedHashMap<>();
		for (PeerDefinition peer : builder.peers.values()) {
			String other = addresses.putIfAbsent(peer.address().toLowerCase(Locale.ROOT), peer.id());
			if (other != null) {
				throw new IllegalArgumentException("Peers '" + other + "' and '" + peer.id() + "' have the same address "
						+ peer.address() + "; remove one of them or fix its address");
			}
		}
		if (settings.settleTime().compareTo(settings.peerTimeout()) >= 0) {
			throw new IllegalArgumentException("Settle time " + settings.settleTime().toMillis() + " ms is not shorter than the peer timeout ("
					+ settings.peerTimeout().toMillis() + " ms): an acquisition must finish within two peer timeouts of its first round; "
					+ "lower the settle time or raise the peer timeout");
		}
		for (ClusterDefinition cluster : builder.clusters.values()) {
			for (String peerId : cluster.peerIds()) {
				if (!builder.peers.containsKey(peerId)) {
					throw new IllegalArgumentException("Cluster '" + cluster.id() + "' names unknown peer '" + peerId
							+ "'; known peers: " + builder.peers.keySet() + ". Define the peer or remove it from the cluster");
				}
			}
			DnsDiscovery dns = builder.discovery;
			if (dns != null && cluster.peerIds().isEmpty() && !builder.coordinators.containsKey(cluster.id())) {
				checkDiscovery(dns, builder.resolver().maxAnswerAge(), cluster);
			}
			if (settings.peerTimeout().multipliedBy(2).compareTo(cluster.waitTime()) >= 0) {
				throw new IllegalArgumentException("Peer timeout " + settings.peerTimeout().toMillis()
						+ " ms is not shorter than half the wait time of cluster '" + cluster.id() + "' ("
						+ cluster.waitTime().toMillis() + " ms); lower the peer timeout or raise the wait time");
			}
		}
	}

}
