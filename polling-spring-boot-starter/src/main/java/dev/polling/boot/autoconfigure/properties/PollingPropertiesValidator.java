package dev.polling.boot.autoconfigure.properties;

import java.io.IOException;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import org.springframework.validation.Errors;

import dev.polling.boot.autoconfigure.properties.PollingProperties.Cluster;
import dev.polling.boot.autoconfigure.properties.JmxProperties.Peer;
import dev.polling.boot.autoconfigure.properties.JmxProperties.Server;
import dev.polling.core.ClusterDefinition;
import dev.polling.core.discovery.DnsDiscovery;
import dev.polling.core.jmx.JmxServerSettings;

/**
 * Checks {@link PollingProperties} when they are bound (Spring Boot calls it through
 * {@link PollingProperties#validate}), and reports every mistake with the key as written, the value
 * and the fix; Spring Boot's failure report shows them with the origin of each key. Passwords are
 * never part of a report.
 */
final class PollingPropertiesValidator {

	/**
	 * The shortest peer timeout accepted. Below it reads of healthy peers time out, and under
	 * {@code proceed} a peer that did not answer counts as idle, so every instance would poll.
	 */
	static final Duration MIN_PEER_TIMEOUT = Duration.ofMillis(100);

	private static final String HIDDEN = "******";

	/** Host and port in a JMX service URL such as {@code service:jmx:rmi:///jndi/rmi://host:port/jmxrmi}. */
	private static final Pattern RMI_ADDRESS = Pattern.compile("rmi://(\\[[^\\]]+\\]|[^/:]+):(\\d{1,5})/");

	private final PollingPropertyErrors errors;

	PollingPropertiesValidator(Errors errors) {
		this.errors = new PollingPropertyErrors(errors);
	}

	void validate(PollingProperties properties) {
		boolean peerTimeoutValid = validateInstance(properties);
		validateServer(properties.getJmx().getServer());
		validatePeers(properties.getJmx().getPeers());
		validateOwnPeerEntry(properties);
		validateClusters(properties, peerTimeoutValid);
		validateDiscovery(properties);
		validateCoordination(properties);
	}

	private void validateCoordination(PollingProperties properties) {
		if (properties.getCoordination().getKind() == null) {
			invalid("coordination.kind", null, "a coordination kind is required",
					"set polling.coordination.kind to jmx, jdbc, shedlock or kubernetes");
		}
		Duration failover = properties.getCoordination().getFailoverPeriod();
		if (failover != null && (failover.isNegative() || failover.isZero())) {
			invalid("coordination.failover-period", display(failover), "the failover period must be positive",
					"set polling.coordination.failover-period to e.g. 30s (at least the longest cycle plus the timer delay), "
							+ "or remove it to use each cluster's wait time");
		}
		Duration timeout = properties.getShutdown().getTimeout();
		if (timeout == null || timeout.isNegative()) {
			invalid("shutdown.timeout", display(timeout), "the shutdown timeout must not be negative",
					"set polling.shutdown.timeout to e.g. 20s (below spring.lifecycle.timeout-per-shutdown-phase), or 0 not to wait");
		}
	}

	private void validateDiscovery(PollingProperties properties) {
		JmxProperties.Dns dns = properties.getJmx().getDiscovery().getDns();
		String key = "jmx.discovery.dns.";
		String name = dns.getName();
		if (name == null) {
			if (dns.getPort() != null || dns.getUsername() != null || dns.getPassword() != null) {
				invalid(key + "name", null, "DNS discovery settings are given but no name to resolve",
						"set polling.jmx.discovery.dns.name to the DNS name of the instances (e.g. a headless service), "
								+ "or remove the other polling.jmx.discovery.dns properties");
			}
			return;
		}
		if (name.isBlank() || name.trim().indexOf(' ') >= 0 || name.indexOf(':') >= 0) {
			invalid(key + "name", name, "this is not a DNS name",
					"set a DNS name such as orders-polling.prod.svc.cluster.local; the port goes into polling.jmx.discovery.dns.port");
		}
		Integer port = dns.getPort();
		if (port == null) {
			invalid(key + "port", null, "DNS discovery needs the JMX port of the instances behind '" + name.trim() + "'",
					"set polling.jmx.discovery.dns.port to the instances' polling.jmx.server.port");
		}
		else if (port < 1 || port > 65535) {
			invalid(key + "port", String.valueOf(port), "the port is out of range", "use the instances' JMX port, from 1 to 65535");
		}
		Duration interval = dns.getInterval();
		if (interval == null || interval.compareTo(DnsDiscovery.MIN_INTERVAL) < 0) {
			invalid(key + "interval", display(interval), "the interval is shorter than " + display(DnsDiscovery.MIN_INTERVAL),
					"set polling.jmx.discovery.dns.interval to e.g. 2s (at most a quarter of every wait time); a plain number means seconds");
		}
		else {
			for (Map.Entry<String, Cluster> entry : properties.getClusters().entrySet()) {
				Duration waitTime = entry.getValue().getWaitTime();
				if (waitTime != null && entry.getValue().getPeers().isEmpty() && interval.multipliedBy(4).compareTo(waitTime) > 0) {
					invalid(key + "interval", display(interval), "the interval is longer than a quarter of the wait time of cluster '"
							+ entry.getKey() + "' (polling.clusters." + entry.getKey() + ".wait-time = " + display(waitTime)
							+ "): an instance whose address left the name must let go well before its peers drop it",
							"lower polling.jmx.discovery.dns.interval to at most " + display(waitTime.dividedBy(4)) + " or raise the wait time");
					break;
				}
			}
		}
		checkCredentials(key, dns.getUsername(), dns.getPassword());
	}

	/** Checks the instance settings; returns whether the peer timeout is valid. */
	private boolean validateInstance(PollingProperties properties) {
		String instanceId = properties.getInstanceId();
		if (instanceId != null && instanceId.isBlank()) {
			invalid("instance-id", instanceId, "the instance id is blank",
					"remove polling.instance-id to use host name and process id, or set an id that is unique among the peers");
		}
		boolean peerTimeoutValid = false;
		Duration peerTimeout = properties.getJmx().getPeerTimeout();
		if (peerTimeout == null || peerTimeout.isNegative() || peerTimeout.isZero()) {
			invalid("jmx.peer-timeout", display(peerTimeout), "the peer timeout must be positive",
					"set polling.jmx.peer-timeout to e.g. 2s (shorter than half of every cluster's wait time)");
		}
		else if (peerTimeout.compareTo(MIN_PEER_TIMEOUT) < 0) {
			invalid("jmx.peer-timeout", display(peerTimeout),
					"the peer timeout is shorter than the minimum of " + display(MIN_PEER_TIMEOUT)
							+ ": reads of healthy peers would time out, and a peer that does not answer counts as idle, "
							+ "so every instance would poll",
					"set polling.jmx.peer-timeout to e.g. 2s; write the unit (500ms, 2s): a plain number means seconds");
		}
		else {
			peerTimeoutValid = true;
		}
		if (properties.getJmx().getUnreachablePeerPolicy() == null) {
			invalid("jmx.unreachable-peer-policy", null, "a policy is required",
					"set polling.jmx.unreachable-peer-policy to proceed or presume-last-known");
		}
		if (properties.getJmx().getContract() == null) {
			invalid("jmx.contract", null, "a JMX contract is required",
					"set polling.jmx.contract to native, or to isy-polling while the cluster still has isy-polling instances");
		}
		String domain = properties.getJmx().getDomain();
		if (domain != null && (domain.isBlank() || domain.chars().anyMatch((ch) -> ":=*?,\"".indexOf(ch) >= 0))) {
			invalid("jmx.domain", domain, "a JMX domain must not be blank nor contain : = * ? , or quotes",
					"set polling.jmx.domain to a package-like name such as dev.polling (the same on every instance)");
		}
		return peerTimeoutValid;
	}

	private void validateServer(Server server) {
		String key = "jmx.server.";
		if (server.getPort() == null) {
			for (Map.Entry<String, @Nullable Object> entry : serverSettingsNeedingPort(server).entrySet()) {
				if (entry.getValue() != null) {
					invalid(key + entry.getKey(), entry.getKey().equals("password") ? HIDDEN : entry.getValue(),
							"the JMX server is only started when polling.jmx.server.port is set",
							"set polling.jmx.server.port, or remove polling." + key + entry.getKey());
				}
			}
			return;
		}
		int port = server.getPort();
		if (port < 1 || port > 65535) {
			invalid(key + "port", port, "the port is out of range", "use a port from 1 to 65535");
		}
		String bind = server.getBindAddress();
		if (bind == null || bind.isBlank()) {
			invalid(key + "bind-address", bind, "the bind address is blank",
					"remove it to listen on 127.0.0.1, or set the address of the interface the peers reach");
		}
		checkCredentials(key, server.getUsername(), server.getPassword());
		if (server.getAdvertisedHost() != null && server.getAdvertisedHost().isBlank()) {
			invalid(key + "advertised-host", server.getAdvertisedHost(), "the advertised host is blank",
					"remove it, or set the host name the peers connect to");
		}
		Duration idleTimeout = server.getIdleTimeout();
		if (idleTimeout != null && idleTimeout.isNegative()) {
			invalid(key + "idle-timeout", display(idleTimeout), "the idle timeout is negative",
					"remove polling.jmx.server.idle-timeout to keep idle connections open, or set a positive duration such as 10m");
		}
		if (bind != null && !bind.isBlank() && server.getUsername() == null && !server.isAllowUnauthenticated()
				&& !JmxServerSettings.isLoopback(bind.trim())) {
			invalid(key + "bind-address", bind,
					"a JMX server on a non-loopback address without credentials lets anybody on the network in",
					"set polling.jmx.server.username and polling.jmx.server.password (and the same on the peers), "
							+ "or bind to 127.0.0.1, or set polling.jmx.server.allow-unauthenticated=true on a trusted network");
		}
	}

	private static Map<String, @Nullable Object> serverSettingsNeedingPort(Server server) {
		Map<String, @Nullable Object> settings = new LinkedHashMap<>();
		settings.put("username", server.getUsername());
		settings.put("password", server.getPassword());
		settings.put("advertised-host", server.getAdvertisedHost());
		settings.put("idle-timeout", (server.getIdleTimeout() != null) ? display(server.getIdleTimeout()) : null);
		return settings;
	}

	private void validatePeers(Map<String, Peer> peers) {
		Map<String, String> addresses = new LinkedHashMap<>();
		forEachEntry(peers, "jmx.peers", "peer", "SERVER2", (id, peer, key) -> {
			String address = null;
			String addressKey = null;
			if (peer.getUrl() != null && !peer.getUrl().isBlank()) {
				String url = peer.getUrl().trim();
				if (peer.getHost() != null || peer.getPort() != null) {
					invalid(key + "url", url, "both url and host/port are set",
							"set either polling." + key + "url or polling." + key + "host and port, not both");
				}
				else if (!url.startsWith("service:jmx:")) {
					invalid(key + "url", url, "this is not a JMX service URL",
							"use service:jmx:rmi:///jndi/rmi://host:port/jmxrmi, or set host and port instead");
				}
				else {
					address = url;
					addressKey = key + "url";
				}
			}
			else if (peer.getHost() == null) {
				invalid(key + "host", null, "peer '" + id + "' has neither host nor url",
						"set polling." + key + "host and polling." + key + "port, or polling." + key + "url");
			}
			else if (peer.getHost().isBlank()) {
				invalid(key + "host", peer.getHost(), "the host is blank", "set the host name or address of the peer");
			}
			else if (peer.getPort() == null) {
				invalid(key + "port", null, "peer '" + id + "' has a host but no port",
						"set polling." + key + "port to the port of the peer's JMX server");
			}
			else if (peer.getPort() < 1 || peer.getPort() > 65535) {
				invalid(key + "port", peer.getPort(), "the port is out of range",
						"use the port of the peer's JMX server, from 1 to 65535");
			}
			else {
				address = peer.getHost().trim().toLowerCase(Locale.ROOT) + ":" + peer.getPort();
				addressKey = key + "host";
			}
			checkCredentials(key, peer.getUsername(), peer.getPassword());
			String other = (address != null) ? addresses.putIfAbsent(address, id) : null;
			if (other != null) {
				invalid(addressKey, address, "peers '" + other + "' and '" + id + "' have the same address",
						"remove one of them (polling.jmx.peers." + PollingPropertyErrors.mapKey(other) + " or polling.jmx.peers."
								+ PollingPropertyErrors.mapKey(id) + ") or fix its address");
			}
		});
	}

	/**
	 * An instance that finds itself in a shared peer list skips that entry, but only once it has
	 * reached itself there: an own entry with another port (a typo, 9021 for 9012) points at nothing
	 * or at another instance, the instance never recognises itself, and two instances can hold the
	 * same cluster. The instance knows its id and its JMX server's port, so its own entry is checked
	 * here when its host is an address of this machine.
	 */
	private void validateOwnPeerEntry(PollingProperties properties) {
		String instanceId = properties.getInstanceId();
		Integer serverPort = properties.getJmx().getServer().getPort();
		if (instanceId == null || instanceId.isBlank() || serverPort == null) {
			return;
		}
		Peer own = properties.getJmx().getPeers().get(instanceId.trim());
		if (own == null) {
			return;
		}
		String key = "jmx.peers." + PollingPropertyErrors.mapKey(instanceId.trim()) + ".";
		String host;
		Integer port;
		String portKey;
		if (own.getUrl() != null && !own.getUrl().isBlank()) {
			Matcher matcher = RMI_ADDRESS.matcher(own.getUrl().trim());
			if (!matcher.find()) {
				return;
			}
			host = matcher.group(1);
			port = Integer.valueOf(matcher.group(2));
			portKey = key + "url";
		}
		else {
			host = own.getHost();
			port = own.getPort();
			portKey = key + "port";
		}
		if (host == null || host.isBlank() || port == null || port.equals(serverPort) || !isLocalAddress(host.trim())) {
			return;
		}
		invalid(portKey, portKey.endsWith("url") ? own.getUrl().trim() : port,
				"this instance's own entry (polling.instance-id = " + instanceId.trim() + ") names port " + port
						+ " on a local address, but its JMX server listens on polling.jmx.server.port = " + serverPort
						+ ": the instance would not recognise itself and its peers would not reach it",
				portKey.endsWith("url") ? "write port " + serverPort + " in polling." + portKey + " (the port of this instance's JMX server)"
						: "set polling." + portKey + " to " + serverPort + " (the port of this instance's JMX server)");
	}

	/** Whether the host is the loopback or an address of one of this machine's interfaces. */
	static boolean isLocalAddress(String host) {
		String plain = (host.startsWith("[") && host.endsWith("]")) ? host.substring(1, host.length() - 1) : host;
		try {
			for (InetAddress address : InetAddress.getAllByName(plain)) {
				if (address.isLoopbackAddress() || address.isAnyLocalAddress() || NetworkInterface.getByInetAddress(address) != null) {
					return true;
				}
			}
			return false;
		}
		catch (IOException | SecurityException ex) {
			return false;
		}
	}

	private void validateClusters(PollingProperties properties, boolean peerTimeoutValid) {
		Duration peerTimeout = properties.getJmx().getPeerTimeout();
		forEachEntry(properties.getClusters(), "clusters", "cluster", "MAILABRUF_CLUSTER", (id, cluster, key) -> {
			Duration waitTime = cluster.getWaitTime();
			if (waitTime == null) {
				invalid(key + "wait-time", null, "every cluster needs a wait time",
						"set polling." + key + "wait-time to at least 10s (recommended: twice the timer delay)");
			}
			else if (waitTime.compareTo(ClusterDefinition.MIN_WAIT_TIME) < 0) {
				invalid(key + "wait-time", display(waitTime), "the wait time is shorter than the minimum of 10s",
						"set polling." + key + "wait-time to at least 10s (recommended: twice the timer delay)");
			}
			else if (peerTimeoutValid && peerTimeout.multipliedBy(2).compareTo(waitTime) >= 0) {
				invalid("jmx.peer-timeout", display(peerTimeout),
						"the peer timeout is not shorter than half the wait time of cluster '" + id + "' (polling." + key
								+ "wait-time = " + display(waitTime) + ")",
						"lower polling.jmx.peer-timeout below " + display(waitTime.dividedBy(2)) + " or raise polling." + key + "wait-time");
			}
			for (String peerId : cluster.getPeers()) {
				if (!properties.getJmx().getPeers().containsKey(peerId)) {
					invalid(key + "peers", peerId, "cluster '" + id + "' names an unknown peer; known peers: "
							+ properties.getJmx().getPeers().keySet(), "define polling.jmx.peers." + PollingPropertyErrors.mapKey(peerId)
									+ ".host and port, or remove '" + peerId + "' from polling." + key
									+ "peers (an empty list means all peers)");
				}
			}
		});
	}

	/**
	 * Checks each entry of a map property ({@code polling.<property>.<id>}); a blank id is an error of
	 * its own and its entry is not checked further.
	 * @param entries the entries by id
	 * @param property the property, e.g. {@code clusters}
	 * @param what what an entry is, e.g. {@code cluster}
	 * @param example an id to suggest
	 * @param check the check of one entry
	 */
	private <T> void forEachEntry(Map<String, T> entries, String property, String what, String example,
			EntryCheck<T> check) {
		for (Map.Entry<String, T> entry : entries.entrySet()) {
			String id = entry.getKey();
			if (id.isBlank()) {
				invalid(property, id, "a " + what + " id is blank",
						"give every " + what + " a non-blank id such as " + example);
			}
			else {
				check.check(id, entry.getValue(), property + "." + PollingPropertyErrors.mapKey(id) + ".");
			}
		}
	}

	/** The check of one entry of a map property. */
	@FunctionalInterface
	private interface EntryCheck<T> {

		/**
		 * @param id the entry's id
		 * @param value the entry
		 * @param key the entry's key, e.g. {@code clusters.MY_CLUSTER.}, to which the property names are added
		 */
		void check(String id, T value, String key);

	}

	private void checkCredentials(String key, @Nullable String username, @Nullable String password) {
		if (password != null && (username == null || username.isBlank())) {
			invalid(key + "username", username, "a password is set without a username",
					"set polling." + key + "username, or remove polling." + key + "password");
		}
		else if (username != null && username.isBlank()) {
			invalid(key + "username", username, "the username is blank", "set a username or remove it");
		}
		else if (username != null && (password == null || password.isEmpty())) {
			invalid(key + "password", null, "username '" + username + "' has no password",
					"set polling." + key + "password, or remove polling." + key + "username");
		}
	}

	private void invalid(String key, @Nullable Object value, String problem, String fix) {
		this.errors.reject(key, value, problem, fix);
	}

	static String display(@Nullable Duration duration) {
		return PollingPropertyErrors.display(duration);
	}

}
