package dev.polling.boot.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.env.Environment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import dev.polling.boot.InvalidPollingConfigurationException;
import dev.polling.boot.autoconfigure.PollingProperties.Cluster;
import dev.polling.boot.autoconfigure.PollingProperties.Peer;
import dev.polling.boot.autoconfigure.PollingProperties.Server;
import dev.polling.core.ClusterDefinition;
import dev.polling.core.DnsDiscovery;
import dev.polling.core.jmx.JmxServerSettings;

/**
 * Checks {@link PollingProperties} before anything is built from them, so that every mistake is
 * reported with the property key the user wrote, the value and the fix, as an
 * {@link InvalidPollingConfigurationException}. Passwords are never part of a message.
 */
public final class PollingPropertiesValidator {

	private static final String PREFIX = "polling.";

	private static final ConfigurationPropertyName CLUSTERS = ConfigurationPropertyName.of("polling.clusters");

	/**
	 * The shortest peer timeout accepted. Below it reads of healthy peers time out, and under
	 * {@code proceed} a peer that did not answer counts as idle, so every instance would poll.
	 */
	public static final Duration MIN_PEER_TIMEOUT = Duration.ofMillis(100);

	private PollingPropertiesValidator() {
	}

	/**
	 * Validates the properties.
	 * @param properties the bound properties
	 * @throws InvalidPollingConfigurationException on the first mistake found
	 */
	public static void validate(PollingProperties properties) {
		validate(properties, Map.of());
	}

	/**
	 * Validates the properties, and first that every cluster set in the environment was bound: a
	 * cluster whose only keys are unknown ones ({@code wait-tme}) is left out by the binder, and is
	 * reported as missing its wait time.
	 * @param properties the bound properties
	 * @param environment the environment they were bound from
	 * @throws InvalidPollingConfigurationException on the first mistake found
	 */
	public static void validate(PollingProperties properties, Environment environment) {
		validate(properties, configuredClusters(environment));
	}

	private static void validate(PollingProperties properties, Map<String, Set<String>> configuredClusters) {
		for (Map.Entry<String, Set<String>> cluster : configuredClusters.entrySet()) {
			if (!properties.getClusters().containsKey(cluster.getKey())) {
				String key = "clusters." + cluster.getKey() + ".wait-time";
				throw invalid(key, "not set", "every cluster needs a wait time; cluster '" + cluster.getKey()
						+ "' is set only by " + String.join(", ", cluster.getValue()) + ", which the starter does not read",
						"set polling." + key + " to at least 10s (recommended: twice the timer delay)");
			}
		}
		validateInstance(properties);
		validateServer(properties.getJmx().getServer());
		validatePeers(properties.getPeers());
		validateClusters(properties);
		validateDiscovery(properties);
	}

	private static void validateDiscovery(PollingProperties properties) {
		PollingProperties.Dns dns = properties.getDiscovery().getDns();
		String key = "discovery.dns.";
		String name = dns.getName();
		if (name == null) {
			if (dns.getPort() != null || dns.getUsername() != null || dns.getPassword() != null) {
				throw invalid(key + "name", "not set", "DNS discovery settings are given but no name to resolve",
						"set polling.discovery.dns.name to the DNS name of the instances (e.g. a headless service), "
								+ "or remove the other polling.discovery.dns properties");
			}
			return;
		}
		if (name.isBlank() || name.trim().indexOf(' ') >= 0 || name.indexOf(':') >= 0) {
			throw invalid(key + "name", quote(name), "this is not a DNS name",
					"set a DNS name such as orders-polling.prod.svc.cluster.local; the port goes into polling.discovery.dns.port");
		}
		if (dns.getPort() == null) {
			throw invalid(key + "port", "not set", "DNS discovery needs the JMX port of the instances behind '" + name.trim() + "'",
					"set polling.discovery.dns.port to the instances' polling.jmx.server.port");
		}
		int port = dns.getPort();
		if (port < 1 || port > 65535) {
			throw invalid(key + "port", String.valueOf(port), "the port is out of range", "use the instances' JMX port, from 1 to 65535");
		}
		Duration interval = dns.getInterval();
		if (interval == null || interval.compareTo(DnsDiscovery.MIN_INTERVAL) < 0) {
			throw invalid(key + "interval", display(interval), "the interval is shorter than " + display(DnsDiscovery.MIN_INTERVAL),
					"set polling.discovery.dns.interval to e.g. 2s (at most a quarter of every wait time); a plain number means seconds");
		}
		for (Map.Entry<String, Cluster> entry : properties.getClusters().entrySet()) {
			Duration waitTime = entry.getValue().getWaitTime();
			if (waitTime != null && entry.getValue().getPeers().isEmpty() && interval.multipliedBy(4).compareTo(waitTime) > 0) {
				throw invalid(key + "interval", display(interval), "the interval is longer than a quarter of the wait time of cluster '"
						+ entry.getKey() + "' (polling.clusters." + entry.getKey() + ".wait-time = " + display(waitTime)
						+ "): an instance whose address left the name must let go well before its peers drop it",
						"lower polling.discovery.dns.interval to at most " + display(waitTime.dividedBy(4)) + " or raise the wait time");
			}
		}
		checkCredentials(key, dns.getUsername(), dns.getPassword());
	}

	/** The cluster ids set in the environment (environment variables aside), with their keys as written. */
	private static Map<String, Set<String>> configuredClusters(Environment environment) {
		Map<String, Set<String>> clusters = new LinkedHashMap<>();
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
			if (source instanceof IterableConfigurationPropertySource iterable
					&& !(source.getUnderlyingSource() instanceof SystemEnvironmentPropertySource)) {
				iterable.stream().filter((name) -> name.getNumberOfElements() > 3 && CLUSTERS.isAncestorOf(name)).forEach((name) -> {
					clusters.computeIfAbsent(name.getElement(2, Form.ORIGINAL), (id) -> new TreeSet<>())
						.add(PollingPropertyKeys.written(name, name.getNumberOfElements() - 1));
				});
			}
		}
		return clusters;
	}

	private static void validateInstance(PollingProperties properties) {
		String instanceId = properties.getInstanceId();
		if (instanceId != null && instanceId.isBlank()) {
			throw invalid("instance-id", quote(instanceId), "the instance id is blank",
					"remove polling.instance-id to use host name and process id, or set an id that is unique among the peers");
		}
		Duration peerTimeout = properties.getPeerTimeout();
		if (peerTimeout == null || peerTimeout.isNegative() || peerTimeout.isZero()) {
			throw invalid("peer-timeout", display(peerTimeout), "the peer timeout must be positive",
					"set polling.peer-timeout to e.g. 2s (shorter than half of every cluster's wait time)");
		}
		if (peerTimeout.compareTo(MIN_PEER_TIMEOUT) < 0) {
			throw invalid("peer-timeout", display(peerTimeout),
					"the peer timeout is shorter than the minimum of " + display(MIN_PEER_TIMEOUT)
							+ ": reads of healthy peers would time out, and a peer that does not answer counts as idle, "
							+ "so every instance would poll",
					"set polling.peer-timeout to e.g. 2s; write the unit (500ms, 2s): a plain number means seconds");
		}
		if (properties.getUnreachablePeerPolicy() == null) {
			throw invalid("unreachable-peer-policy", "not set", "a policy is required",
					"set polling.unreachable-peer-policy to proceed or presume-last-known");
		}
		if (properties.getJmx().getContract() == null) {
			throw invalid("jmx.contract", "not set", "a JMX contract is required",
					"set polling.jmx.contract to native, or to isy-polling while the cluster still has isy-polling instances");
		}
		String domain = properties.getJmx().getDomain();
		if (domain != null && (domain.isBlank() || domain.chars().anyMatch((ch) -> ":=*?,\"".indexOf(ch) >= 0))) {
			throw invalid("jmx.domain", quote(domain), "a JMX domain must not be blank nor contain : = * ? , or quotes",
					"set polling.jmx.domain to a package-like name such as dev.polling (the same on every instance)");
		}
	}

	private static void validateServer(Server server) {
		String key = "jmx.server.";
		if (server.getPort() == null) {
			for (Map.Entry<String, @Nullable Object> entry : serverSettingsNeedingPort(server).entrySet()) {
				if (entry.getValue() != null) {
					throw invalid(key + entry.getKey(), entry.getKey().equals("password") ? "******" : quote(entry.getValue()),
							"the JMX server is only started when polling.jmx.server.port is set",
							"set polling.jmx.server.port, or remove polling." + key + entry.getKey());
				}
			}
			return;
		}
		int port = server.getPort();
		if (port < 1 || port > 65535) {
			throw invalid(key + "port", String.valueOf(port), "the port is out of range", "use a port from 1 to 65535");
		}
		String bind = server.getBindAddress();
		if (bind == null || bind.isBlank()) {
			throw invalid(key + "bind-address", quote(bind), "the bind address is blank",
					"remove it to listen on 127.0.0.1, or set the address of the interface the peers reach");
		}
		checkCredentials(key, server.getUsername(), server.getPassword());
		if (server.getAdvertisedHost() != null && server.getAdvertisedHost().isBlank()) {
			throw invalid(key + "advertised-host", quote(server.getAdvertisedHost()), "the advertised host is blank",
					"remove it, or set the host name the peers connect to");
		}
		Duration idleTimeout = server.getIdleTimeout();
		if (idleTimeout != null && idleTimeout.isNegative()) {
			throw invalid(key + "idle-timeout", display(idleTimeout), "the idle timeout is negative",
					"remove polling.jmx.server.idle-timeout to keep idle connections open, or set a positive duration such as 10m");
		}
		if (server.getUsername() == null && !server.isAllowUnauthenticated() && !JmxServerSettings.isLoopback(bind.trim())) {
			throw invalid(key + "bind-address", quote(bind),
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

	private static void validatePeers(Map<String, Peer> peers) {
		Map<String, String> addresses = new LinkedHashMap<>();
		for (Map.Entry<String, Peer> entry : peers.entrySet()) {
			String id = entry.getKey();
			Peer peer = entry.getValue();
			String key = "peers." + id + ".";
			if (id.isBlank()) {
				throw invalid("peers", quote(id), "a peer id is blank", "give every peer a non-blank id such as SERVER2");
			}
			String address;
			String addressKey;
			if (peer.getUrl() != null && !peer.getUrl().isBlank()) {
				String url = peer.getUrl().trim();
				if (peer.getHost() != null || peer.getPort() != null) {
					throw invalid(key + "url", quote(url), "both url and host/port are set",
							"set either polling." + key + "url or polling." + key + "host and port, not both");
				}
				if (!url.startsWith("service:jmx:")) {
					throw invalid(key + "url", quote(url), "this is not a JMX service URL",
							"use service:jmx:rmi:///jndi/rmi://host:port/jmxrmi, or set host and port instead");
				}
				address = url;
				addressKey = key + "url";
			}
			else {
				if (peer.getHost() == null) {
					throw invalid(key + "host", "not set", "peer '" + id + "' has neither host nor url",
							"set polling." + key + "host and polling." + key + "port, or polling." + key + "url");
				}
				if (peer.getHost().isBlank()) {
					throw invalid(key + "host", quote(peer.getHost()), "the host is blank", "set the host name or address of the peer");
				}
				if (peer.getPort() == null) {
					throw invalid(key + "port", "not set", "peer '" + id + "' has a host but no port",
							"set polling." + key + "port to the port of the peer's JMX server");
				}
				int port = peer.getPort();
				if (port < 1 || port > 65535) {
					throw invalid(key + "port", String.valueOf(port), "the port is out of range",
							"use the port of the peer's JMX server, from 1 to 65535");
				}
				address = peer.getHost().trim().toLowerCase(Locale.ROOT) + ":" + port;
				addressKey = key + "host";
			}
			checkCredentials(key, peer.getUsername(), peer.getPassword());
			String other = addresses.putIfAbsent(address, id);
			if (other != null) {
				throw invalid(addressKey, quote(address), "peers '" + other + "' and '" + id + "' have the same address",
						"remove one of them (polling.peers." + other + " or polling.peers." + id + ") or fix its address");
			}
		}
	}

	private static void validateClusters(PollingProperties properties) {
		Duration peerTimeout = properties.getPeerTimeout();
		for (Map.Entry<String, Cluster> entry : properties.getClusters().entrySet()) {
			String id = entry.getKey();
			Cluster cluster = entry.getValue();
			String key = "clusters." + id + ".";
			if (id.isBlank()) {
				throw invalid("clusters", quote(id), "a cluster id is blank", "give every cluster a non-blank id such as MAILABRUF_CLUSTER");
			}
			Duration waitTime = cluster.getWaitTime();
			if (waitTime == null) {
				throw invalid(key + "wait-time", "not set", "every cluster needs a wait time",
						"set polling." + key + "wait-time to at least 10s (recommended: twice the timer delay)");
			}
			if (waitTime.compareTo(ClusterDefinition.MIN_WAIT_TIME) < 0) {
				throw invalid(key + "wait-time", display(waitTime), "the wait time is shorter than the minimum of 10s",
						"set polling." + key + "wait-time to at least 10s (recommended: twice the timer delay)");
			}
			if (peerTimeout.multipliedBy(2).compareTo(waitTime) >= 0) {
				throw invalid("peer-timeout", display(peerTimeout),
						"the peer timeout is not shorter than half the wait time of cluster '" + id + "' (polling." + key
								+ "wait-time = " + display(waitTime) + ")",
						"lower polling.peer-timeout below " + display(waitTime.dividedBy(2)) + " or raise polling." + key + "wait-time");
			}
			for (String peerId : cluster.getPeers()) {
				if (!properties.getPeers().containsKey(peerId)) {
					throw invalid(key + "peers", quote(peerId), "cluster '" + id + "' names an unknown peer; known peers: "
							+ properties.getPeers().keySet(), "define polling.peers." + peerId + ".host and port, or remove '" + peerId
									+ "' from polling." + key + "peers (an empty list means all peers)");
				}
			}
		}
	}

	private static void checkCredentials(String key, @Nullable String username, @Nullable String password) {
		if (password != null && (username == null || username.isBlank())) {
			throw invalid(key + "username", (username == null) ? "not set" : quote(username), "a password is set without a username",
					"set polling." + key + "username, or remove polling." + key + "password");
		}
		if (username != null && username.isBlank()) {
			throw invalid(key + "username", quote(username), "the username is blank", "set a username or remove it");
		}
		if (username != null && (password == null || password.isEmpty())) {
			throw invalid(key + "password", "not set", "username '" + username + "' has no password",
					"set polling." + key + "password, or remove polling." + key + "username");
		}
	}

	private static InvalidPollingConfigurationException invalid(String key, String value, String problem, String fix) {
		return new InvalidPollingConfigurationException(PREFIX + key, value, problem, fix);
	}

	private static String quote(@Nullable Object value) {
		return (value != null) ? "'" + value + "'" : "not set";
	}

	/** A duration as a user would write it: {@code 10s}, {@code 500ms}. */
	static String display(@Nullable Duration duration) {
		if (duration == null) {
			return "not set";
		}
		if (duration.toNanos() % 1_000_000 != 0) {
			return duration.toString();
		}
		long millis = duration.toMillis();
		return (millis % 1000 == 0) ? (millis / 1000) + "s" : millis + "ms";
	}

}
