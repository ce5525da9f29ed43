package dev.polling.core.jmx;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Collections;
import java.util.Objects;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

import org.jspecify.annotations.Nullable;

/**
 * Settings of the JMX connector server the peers talk to.
 *
 * @param bindAddress the address to listen on; loopback by default
 * @param port the one port for the RMI registry and the RMI objects; 0 picks a free port
 * @param advertisedHost the host peers connect to (containers, NAT); defaults to the bind address,
 *        or the local host name when bound to all interfaces
 * @param username user peers must authenticate as, or null for no authentication
 * @param password password peers must give, or null
 * @param allowUnauthenticated whether a non-loopback bind without credentials is accepted
 * @param callTimeout read timeout embedded in the stubs handed to clients (bounds each call of a
 *        client that has this library); zero for none
 * @param portableStubs whether to hand out plain JDK stubs that any JMX tool can use (then RMI uses
 *        {@code java.rmi.server.hostname} and no call timeout)
 * @param readableDomains the JMX domains whose MBeans remote clients may read: the domain the
 *        cluster MBeans are registered in ({@code PollingSettings#jmxDomain()}); by default
 *        {@value PollingJmxServer#DEFAULT_READABLE_DOMAIN}. Remote clients see nothing else and may
 *        change nothing (see {@link PollingJmxServer})
 * @param idleTimeout how long a client connection may stay idle before the server closes it; zero
 *        (the default) for never, so peers that ask only at each timer tick keep their connection
 */
public record JmxServerSettings(String bindAddress, int port, @Nullable String advertisedHost, @Nullable String username,
		@Nullable String password, boolean allowUnauthenticated, Duration callTimeout, boolean portableStubs,
		Set<String> readableDomains, Duration idleTimeout) {

	public JmxServerSettings {
		bindAddress = (bindAddress == null || bindAddress.isBlank()) ? "127.0.0.1" : bindAddress;
		if (port < 0 || port > 65535) {
			throw new IllegalArgumentException("JMX server port " + port + " is out of range; use 1-65535, or 0 for a free port");
		}
		if (advertisedHost != null && advertisedHost.isBlank()) {
			advertisedHost = null;
		}
		if (username != null && username.isBlank()) {
			username = null;
		}
		if (password != null && username == null) {
			throw new IllegalArgumentException("JMX server: a password is set without a username; set the username too");
		}
		if (username != null && (password == null || password.isEmpty())) {
			throw new IllegalArgumentException("JMX server: username '" + username + "' has no password; set a password");
		}
		callTimeout = Objects.requireNonNullElse(callTimeout, Duration.ofSeconds(30));
		if (callTimeout.isNegative()) {
			throw new IllegalArgumentException("JMX server: call timeout " + callTimeout + " is negative; use 0 for none or e.g. 30s");
		}
		if (username == null && !allowUnauthenticated && !isLoopback(bindAddress)) {
			throw new IllegalArgumentException("JMX server bind address '" + bindAddress + "' is not a loopback address and no "
					+ "username/password is set; set credentials, bind to 127.0.0.1, or explicitly allow unauthenticated access");
		}
		readableDomains = readableDomains(readableDomains);
		idleTimeout = Objects.requireNonNullElse(idleTimeout, Duration.ZERO);
		if (idleTimeout.isNegative()) {
			throw new IllegalArgumentException("JMX server: idle timeout " + idleTimeout + " is negative; use 0 for never or e.g. 10m");
		}
	}

	/**
	 * Settings with the default readable domain ({@value PollingJmxServer#DEFAULT_READABLE_DOMAIN})
	 * and no idle timeout.
	 */
	public JmxServerSettings(String bindAddress, int port, @Nullable String advertisedHost, @Nullable String username,
			@Nullable String password, boolean allowUnauthenticated, Duration callTimeout, boolean portableStubs) {
		this(bindAddress, port, advertisedHost, username, password, allowUnauthenticated, callTimeout, portableStubs,
				Set.of(PollingJmxServer.DEFAULT_READABLE_DOMAIN), Duration.ZERO);
	}

	/** Loopback on a free port, no authentication. */
	public static JmxServerSettings loopback(int port) {
		return new JmxServerSettings("127.0.0.1", port, null, null, null, false, Duration.ofSeconds(30), false);
	}

	public JmxServerSettings withCredentials(String username, String password) {
		return new JmxServerSettings(this.bindAddress, this.port, this.advertisedHost, username, password, this.allowUnauthenticated,
				this.callTimeout, this.portableStubs, this.readableDomains, this.idleTimeout);
	}

	public JmxServerSettings withPortableStubs(boolean portableStubs) {
		return new JmxServerSettings(this.bindAddress, this.port, this.advertisedHost, this.username, this.password,
				this.allowUnauthenticated, this.callTimeout, portableStubs, this.readableDomains, this.idleTimeout);
	}

	/**
	 * The JMX domains whose MBeans remote clients may read, instead of the default
	 * {@value PollingJmxServer#DEFAULT_READABLE_DOMAIN}: the domain the cluster MBeans are
	 * registered in (the same on every instance).
	 */
	public JmxServerSettings withReadableDomains(Set<String> readableDomains) {
		return new JmxServerSettings(this.bindAddress, this.port, this.advertisedHost, this.username, this.password,
				this.allowUnauthenticated, this.callTimeout, this.portableStubs, readableDomains, this.idleTimeout);
	}

	/**
	 * How long a client connection may stay idle before the server closes it; {@link Duration#ZERO}
	 * (the default) for never. A client learns of the closed connection at its next call. What the
	 * JDK's JMX client does then depends on its Java version: on Java 17 the call fails with an
	 * {@link java.io.IOException} and the client must connect anew (its own reconnect attempt sends a
	 * {@code Subject[]}, which the server's deserialisation filter refuses); on Java 25 (the JDK
	 * removed subject delegation) it reconnects by itself and the call runs on a new connection.
	 * This library's peer client handles both.
	 */
	public JmxServerSettings withIdleTimeout(Duration idleTimeout) {
		return new JmxServerSettings(this.bindAddress, this.port, this.advertisedHost, this.username, this.password,
				this.allowUnauthenticated, this.callTimeout, this.portableStubs, this.readableDomains, idleTimeout);
	}

	private static SortedSet<String> readableDomains(@Nullable Set<String> domains) {
		if (domains == null) {
			return Collections.unmodifiableSortedSet(new TreeSet<>(Set.of(PollingJmxServer.DEFAULT_READABLE_DOMAIN)));
		}
		if (domains.isEmpty()) {
			throw new IllegalArgumentException("JMX server: no readable domain is set; set the domain of the cluster MBeans, e.g. "
					+ PollingJmxServer.DEFAULT_READABLE_DOMAIN);
		}
		SortedSet<String> checked = new TreeSet<>();
		for (String domain : domains) {
			if (domain == null || domain.isBlank() || domain.chars().anyMatch((ch) -> ":=*?".indexOf(ch) >= 0)) {
				throw new IllegalArgumentException("JMX server: readable domain '" + domain + "' is blank or contains one of : = * ?; "
						+ "use the domain of the cluster MBeans, e.g. " + PollingJmxServer.DEFAULT_READABLE_DOMAIN);
			}
			checked.add(domain);
		}
		return Collections.unmodifiableSortedSet(checked);
	}

	/** Whether the address is a loopback address (by name: {@code localhost}, or by literal). */
	public static boolean isLoopback(String address) {
		if ("localhost".equalsIgnoreCase(address)) {
			return true;
		}
		if (!looksLikeLiteral(address)) {
			return false;
		}
		try {
			return InetAddress.getByName(address).isLoopbackAddress();
		}
		catch (UnknownHostException ex) {
			return false;
		}
	}

	private static boolean looksLikeLiteral(String address) {
		return address.indexOf(':') >= 0 || address.chars().allMatch((ch) -> Character.isDigit(ch) || ch == '.');
	}

	@Override
	public String toString() {
		return "JmxServerSettings[bindAddress=" + this.bindAddress + ", port=" + this.port + ", advertisedHost=" + this.advertisedHost
				+ ", username=" + this.username + ", password=" + ((this.password != null) ? "******" : "none")
				+ ", allowUnauthenticated=" + this.allowUnauthenticated + ", callTimeout=" + this.callTimeout + ", portableStubs="
				+ this.portableStubs + ", readableDomains=" + this.readableDomains + ", idleTimeout="
				+ (this.idleTimeout.isZero() ? "never" : this.idleTimeout) + "]";
	}

}
