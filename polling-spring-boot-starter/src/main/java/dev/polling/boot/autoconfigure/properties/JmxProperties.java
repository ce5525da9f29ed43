package dev.polling.boot.autoconfigure.properties;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.convert.DurationUnit;

import dev.polling.core.discovery.DnsDiscovery;
import dev.polling.core.JmxContract;
import dev.polling.core.PollingSettings;
import dev.polling.core.UnreachablePeerPolicy;

/**
 * Coordination over JMX, under {@code polling.jmx}: the peers this instance asks (configured or
 * discovered), how long it waits for them, the contract of the cluster MBeans, and the JMX server
 * the peers ask in return. Used by every cluster coordinated by {@code jmx} (the default kind).
 */
public class JmxProperties {

	/**
	 * Other instances of this application, by id (e.g. SERVER2). A list shared by all instances
	 * may include the instance itself; it recognises itself and does not ask itself. No peers
	 * (and no discovery) means standalone mode: every poll is granted.
	 */
	private final Map<String, Peer> peers = new LinkedHashMap<>();

	private final Discovery discovery = new Discovery();

	/**
	 * Longest time a decision waits for the peers: at least 100ms, and shorter than half of every
	 * cluster's wait time. A number without unit means seconds.
	 */
	@DurationUnit(ChronoUnit.SECONDS)
	private Duration peerTimeout = PollingSettings.DEFAULT_PEER_TIMEOUT;

	/**
	 * What to assume about a peer that timed out or failed: 'proceed' counts it as idle (fastest
	 * failover), 'presume-last-known' counts it as holding while it was last seen holding and the
	 * wait time has not passed since this instance first found it silent. A peer that refuses the
	 * connection always counts as gone.
	 */
	private UnreachablePeerPolicy unreachablePeerPolicy = UnreachablePeerPolicy.PROCEED;

	/**
	 * Whether to spread the clusters among the instances (load distribution): an instance holding
	 * at least two clusters more than a peer hands one over, at most one per half wait time.
	 */
	private boolean balanceClusters;

	/**
	 * JMX domain of the cluster MBeans. Must be the same on every instance. Defaults to
	 * dev.polling, or with the isy-polling contract to isy-polling's default
	 * de.bund.bva.isyfact.polling.
	 */
	private @Nullable String domain;

	/**
	 * ObjectName and attributes of the cluster MBeans, used to register this instance's and to
	 * read the peers': 'native', or 'isy-polling' for a cluster that still has isy-polling
	 * instances (MBean type=PollingStatus,name="Polling-Aktivitaet-<cluster name>", attribute
	 * ZeitraumLetztePollingAktivitaet). Must be the same on every instance.
	 */
	private JmxContract contract = JmxContract.NATIVE;

	private final Server server = new Server();

	public Map<String, Peer> getPeers() {
		return this.peers;
	}

	public Discovery getDiscovery() {
		return this.discovery;
	}

	public Duration getPeerTimeout() {
		return this.peerTimeout;
	}

	public void setPeerTimeout(Duration peerTimeout) {
		this.peerTimeout = peerTimeout;
	}

	public UnreachablePeerPolicy getUnreachablePeerPolicy() {
		return this.unreachablePeerPolicy;
	}

	public void setUnreachablePeerPolicy(UnreachablePeerPolicy unreachablePeerPolicy) {
		this.unreachablePeerPolicy = unreachablePeerPolicy;
	}

	public boolean isBalanceClusters() {
		return this.balanceClusters;
	}

	public void setBalanceClusters(boolean balanceClusters) {
		this.balanceClusters = balanceClusters;
	}

	public @Nullable String getDomain() {
		return this.domain;
	}

	public void setDomain(@Nullable String domain) {
		this.domain = domain;
	}

	/**
	 * The configured domain, or the contract's default.
	 * @return the JMX domain of the cluster MBeans
	 */
	public String effectiveDomain() {
		return (this.domain != null) ? this.domain : ((this.contract == JmxContract.ISY_POLLING)
				? JmxContract.ISY_POLLING.defaultDomain() : PollingSettings.DEFAULT_JMX_DOMAIN);
	}

	public JmxContract getContract() {
		return this.contract;
	}

	public void setContract(JmxContract contract) {
		this.contract = contract;
	}

	public Server getServer() {
		return this.server;
	}

	/** Peers found besides the static ones under polling.jmx.peers. */
	public static class Discovery {

		private final Dns dns = new Dns();

		public Dns getDns() {
			return this.dns;
		}

	}

	/**
	 * Peers from a DNS name: every address the name resolves to (e.g. a Kubernetes headless
	 * service) is asked at the JMX port, by every JMX cluster that names no peers.
	 */
	public static class Dns {

		/**
		 * DNS name whose addresses are the instances, e.g. orders-polling.prod.svc.cluster.local.
		 * Discovery is off while it is not set.
		 */
		private @Nullable String name;

		/** JMX port of every instance behind the name (their polling.jmx.server.port). */
		private @Nullable Integer port;

		/**
		 * How often the name is resolved again: at most a quarter of every cluster's wait time. A
		 * number without unit means seconds.
		 */
		@DurationUnit(ChronoUnit.SECONDS)
		private Duration interval = DnsDiscovery.DEFAULT_INTERVAL;

		/** User for JMX authentication at the discovered instances. */
		private @Nullable String username;

		/** Password for JMX authentication at the discovered instances. */
		private @Nullable String password;

		public @Nullable String getName() {
			return this.name;
		}

		public void setName(@Nullable String name) {
			this.name = name;
		}

		public @Nullable Integer getPort() {
			return this.port;
		}

		public void setPort(@Nullable Integer port) {
			this.port = port;
		}

		public Duration getInterval() {
			return this.interval;
		}

		public void setInterval(Duration interval) {
			this.interval = interval;
		}

		public @Nullable String getUsername() {
			return this.username;
		}

		public void setUsername(@Nullable String username) {
			this.username = username;
		}

		public @Nullable String getPassword() {
			return this.password;
		}

		public void setPassword(@Nullable String password) {
			this.password = password;
		}

	}

	/**
	 * The JMX connector server the peers talk to. Started when a port is set; otherwise the
	 * cluster MBeans are registered in the platform MBean server and the JVM's own JMX agent can
	 * serve them.
	 */
	public static class Server {

		/**
		 * Port of the JMX connector server (RMI registry and RMI objects share it). Setting it
		 * starts the server.
		 */
		private @Nullable Integer port;

		/**
		 * Address the JMX connector server listens on. A non-loopback address requires a
		 * username and password unless allow-unauthenticated is set.
		 */
		private String bindAddress = "127.0.0.1";

		/**
		 * Host name the peers connect to, for containers and NAT. Defaults to the bind address,
		 * or the local host name when bound to all interfaces.
		 */
		private @Nullable String advertisedHost;

		/**
		 * User the peers must authenticate as.
		 */
		private @Nullable String username;

		/**
		 * Password the peers must give.
		 */
		private @Nullable String password;

		/**
		 * Name of the SSL bundle (spring.ssl.bundle.*) whose key the JMX server presents; turns on
		 * TLS for registry and objects. Peers then need polling.jmx.peers.<id>.ssl-bundle with a trust
		 * store that trusts it.
		 */
		private @Nullable String sslBundle;

		/**
		 * Whether clients must present a certificate that the server's SSL bundle trusts.
		 */
		private boolean requireClientCertificate;

		public boolean isRequireClientCertificate() {
			return this.requireClientCertificate;
		}

		public void setRequireClientCertificate(boolean requireClientCertificate) {
			this.requireClientCertificate = requireClientCertificate;
		}

		/**
		 * Whether a non-loopback bind address without username and password is accepted.
		 */
		private boolean allowUnauthenticated;

		/**
		 * How long a client connection may stay idle before the JMX server closes it. Unset (the
		 * default) or 0: never, so peers that ask only at each timer tick keep their connection.
		 * A peer of this library whose connection was closed connects anew within its peer
		 * timeout; a plain JDK client gets an IOException at its next call on Java 17 and
		 * reconnects by itself on Java 25. A number without unit means seconds.
		 */
		@DurationUnit(ChronoUnit.SECONDS)
		private @Nullable Duration idleTimeout;

		public @Nullable Duration getIdleTimeout() {
			return this.idleTimeout;
		}

		public void setIdleTimeout(@Nullable Duration idleTimeout) {
			this.idleTimeout = idleTimeout;
		}

		public @Nullable Integer getPort() {
			return this.port;
		}

		public void setPort(@Nullable Integer port) {
			this.port = port;
		}

		public String getBindAddress() {
			return this.bindAddress;
		}

		public void setBindAddress(String bindAddress) {
			this.bindAddress = bindAddress;
		}

		public @Nullable String getAdvertisedHost() {
			return this.advertisedHost;
		}

		public void setAdvertisedHost(@Nullable String advertisedHost) {
			this.advertisedHost = advertisedHost;
		}

		public @Nullable String getUsername() {
			return this.username;
		}

		public void setUsername(@Nullable String username) {
			this.username = username;
		}

		public @Nullable String getPassword() {
			return this.password;
		}

		public void setPassword(@Nullable String password) {
			this.password = password;
		}

		public @Nullable String getSslBundle() {
			return this.sslBundle;
		}

		public void setSslBundle(@Nullable String sslBundle) {
			this.sslBundle = sslBundle;
		}

		public boolean isAllowUnauthenticated() {
			return this.allowUnauthenticated;
		}

		public void setAllowUnauthenticated(boolean allowUnauthenticated) {
			this.allowUnauthenticated = allowUnauthenticated;
		}

	}

	/** Another instance, reached over JMX by host and port or by URL. */
	public static class Peer {

		/**
		 * Host name or address of the peer's JMX server.
		 */
		private @Nullable String host;

		/**
		 * Port of the peer's JMX server (its RMI registry).
		 */
		private @Nullable Integer port;

		/**
		 * Full JMX service URL of the peer, instead of host and port.
		 */
		private @Nullable String url;

		/**
		 * User for JMX authentication at the peer.
		 */
		private @Nullable String username;

		/**
		 * Password for JMX authentication at the peer.
		 */
		private @Nullable String password;

		/**
		 * Name of the SSL bundle (spring.ssl.bundle.*) for TLS to this peer: its trust store must
		 * trust the peer's certificate; its key is presented when the peer requires client
		 * certificates.
		 */
		private @Nullable String sslBundle;

		public @Nullable String getHost() {
			return this.host;
		}

		public void setHost(@Nullable String host) {
			this.host = host;
		}

		public @Nullable Integer getPort() {
			return this.port;
		}

		public void setPort(@Nullable Integer port) {
			this.port = port;
		}

		public @Nullable String getUrl() {
			return this.url;
		}

		public void setUrl(@Nullable String url) {
			this.url = url;
		}

		public @Nullable String getUsername() {
			return this.username;
		}

		public void setUsername(@Nullable String username) {
			this.username = username;
		}

		public @Nullable String getPassword() {
			return this.password;
		}

		public void setPassword(@Nullable String password) {
			this.password = password;
		}

		public @Nullable String getSslBundle() {
			return this.sslBundle;
		}

		public void setSslBundle(@Nullable String sslBundle) {
			this.sslBundle = sslBundle;
		}

	}

}
