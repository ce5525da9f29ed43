package dev.polling.core;

import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * Another instance, reached over JMX, either by host and port (the JVM's RMI registry convention,
 * {@code service:jmx:rmi:///jndi/rmi://host:port/jmxrmi}) or by a full JMX service URL.
 * {@link #toString()} never shows the password.
 *
 * @param id unique among the peers ({@code SERVER2})
 * @param host host name or address, or null when {@code url} is given
 * @param port port of the peer's RMI registry (1-65535), or 0 when {@code url} is given
 * @param url a JMX service URL, or null when host and port are given
 * @param username user for JMX authentication, or null
 * @param password password for JMX authentication, or null; requires a username
 */
public record PeerDefinition(String id, @Nullable String host, int port, @Nullable String url,
		@Nullable String username, @Nullable String password) {

	public PeerDefinition {
		Objects.requireNonNull(id, "Peer id must not be null");
		if (id.isBlank()) {
			throw new IllegalArgumentException("Peer id must not be blank");
		}
		if (url != null && url.isBlank()) {
			url = null;
		}
		if (url == null) {
			if (host == null) {
				throw new IllegalArgumentException("Peer '" + id + "': neither host nor url is set; set host and port, or url");
			}
			if (host.isBlank()) {
				throw new IllegalArgumentException("Peer '" + id + "': host is blank; set a host name or address");
			}
			if (port < 1 || port > 65535) {
				throw new IllegalArgumentException("Peer '" + id + "': port " + port + " is out of range; use 1-65535");
			}
		}
		else if (!url.startsWith("service:jmx:")) {
			throw new IllegalArgumentException("Peer '" + id + "': url '" + url
					+ "' is not a JMX service URL; use service:jmx:rmi:///jndi/rmi://host:port/jmxrmi");
		}
		if (password != null && (username == null || username.isBlank())) {
			throw new IllegalArgumentException("Peer '" + id + "': a password is set without a username; set the username too");
		}
	}

	/** A peer reached at the RMI registry on the given host and port, without authentication. */
	public static PeerDefinition of(String id, String host, int port) {
		return new PeerDefinition(id, host, port, null, null, null);
	}

	public PeerDefinition withCredentials(String username, String password) {
		return new PeerDefinition(this.id, this.host, this.port, this.url, username, password);
	}

	/** The JMX service URL this peer is reached at. */
	public String serviceUrl() {
		if (this.url != null) {
			return this.url;
		}
		String h = (this.host.indexOf(':') >= 0 && !this.host.startsWith("[")) ? "[" + this.host + "]" : this.host;
		return "service:jmx:rmi:///jndi/rmi://" + h + ":" + this.port + "/jmxrmi";
	}

	/** Where the peer is, for messages: host:port or the URL. Never contains credentials. */
	public String address() {
		return (this.url != null) ? this.url : this.host + ":" + this.port;
	}

	@Override
	public String toString() {
		return "PeerDefinition[id=" + this.id + ", address=" + address()
				+ ((this.username != null) ? ", username=" + this.username + ", password=" + ((this.password != null) ? "******" : "none") : "")
				+ "]";
	}

}
