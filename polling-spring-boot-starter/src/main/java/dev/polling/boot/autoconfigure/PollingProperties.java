package dev.polling.boot.autoconfigure;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.convert.DurationUnit;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

import dev.polling.core.discovery.DnsDiscovery;
import dev.polling.core.PollingSettings;
import dev.polling.core.UnreachablePeerPolicy;
import dev.polling.core.JmxContract;

/**
 * Configuration of the polling clusters under {@code polling.*}: the clusters this application
 * polls, the peers (other instances) it asks, and the JMX server the peers ask in return.
 * Validated when bound (this class is its own {@link Validator}, which Spring Boot applies at bind
 * time): every mistake fails the start with a report naming the key, its value and origin, and the
 * fix.
 */
@ConfigurationProperties("polling")
public class PollingProperties implements Validator {

	@Override
	public boolean supports(Class<?> type) {
		return PollingProperties.class.isAssignableFrom(type);
	}

	@Override
	public void validate(Object target, Errors errors) {
		new PollingPropertiesValidator(errors).validate((PollingProperties) target);
	}

	/**
	 * Whether polling coordination is enabled. When disabled, nothing is configured and the
	 * polling annotations have no effect.
	 */
	private boolean enabled = true;

	/**
	 * Id of this instance, unique among the peers. Used to recognise itself in a shared peer list
	 * and to break ties (the lower id wins). Defaults to host name and process id.
	 */
	private @Nullable String instanceId;

	/**
	 * Longest time a decision waits for the peers: at least 100ms, and shorter than half of every
	 * cluster's wait time. A number without unit means seconds.
	 */
	@DurationUnit(ChronoUnit.SECONDS)
	private Duration peerTimeout = PollingSettings.DEFAULT_PEER_TIMEOUT;

	/**
	 * How clusters are coordinated unless a cluster says otherwise: 'jmx' asks the peers over JMX,
	 * 'jdbc' takes a row in the database (needs a DataSource; see polling.jdbc.coordination),
	 * 'shedlock' takes a lock of the application's ShedLock LockProvider (see polling.shedlock),
	 * 'kubernetes' takes a coordination.k8s.io Lease object (see polling.kubernetes).
	 */
	private Coordination coordination = Coordination.JMX;

	/**
	 * Whether to spread the clusters among the instances (load distribution): an instance holding
	 * at least two clusters more than a peer hands one over, at most one per half wait time.
	 */
	private boolean balanceClusters;

	public boolean isBalanceClusters() {
		return this.balanceClusters;
	}

	public void setBalanceClusters(boolean balanceClusters) {
		this.balanceClusters = balanceClusters;
	}

	/**
	 * What to assume about a peer that timed out or failed: 'proceed' counts it as idle (fastest
	 * failover), 'presume-last-known' counts it as holding while it was last seen holding and the
	 * wait time has not passed since this instance first found it silent. A peer that refuses the
	 * connection always counts as gone.
	 */
	private UnreachablePeerPolicy unreachablePeerPolicy = UnreachablePeerPolicy.PROCEED;

	private final Jmx jmx = new Jmx();

	private final Shutdown shutdown = new Shutdown();

	/**
	 * Other instances of this application, by id (e.g. SERVER2). A list shared by all instances
	 * may include the instance itself; it recognises itself and does not ask itself. No peers
	 * means standalone mode: every poll is granted.
	 */
	private final Map<String, Peer> peers = new LinkedHashMap<>();

	/**
	 * Polling clusters, by id as used in code (e.g. MAILABRUF_CLUSTER).
	 */
	private final Map<String, Cluster> clusters = new LinkedHashMap<>();

	private final Discovery discovery = new Discovery();

	public Discovery getDiscovery() {
		return this.discovery;
	}

	/**
	 * Observations of decisions and peer requests (polling.decision, polling.peer.request), made
	 * when the application has an ObservationRegistry.
	 */
	private final Observations observations = new Observations();

	private final ShedLock shedlock = new ShedLock();

	private final Kubernetes kubernetes = new Kubernetes();

	public ShedLock getShedlock() {
		return this.shedlock;
	}

	public Kubernetes getKubernetes() {
		return this.kubernetes;
	}

	public Observations getObservations() {
		return this.observations;
	}

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public @Nullable String getInstanceId() {
		return this.instanceId;
	}

	public void setInstanceId(@Nullable String instanceId) {
		this.instanceId = instanceId;
	}

	public Duration getPeerTimeout() {
		return this.peerTimeout;
	}

	public Coordination getCoordination() {
		return this.coordination;
	}

	public void setCoordination(Coordination coordination) {
		this.coordination = coordination;
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

	public Jmx getJmx() {
		return this.jmx;
	}

	public Shutdown getShutdown() {
		return this.shutdown;
	}

	public Map<String, Peer> getPeers() {
		return this.peers;
	}

	public Map<String, Cluster> getClusters() {
		return this.clusters;
	}

	/** Peers found besides the static ones under polling.peers. */
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

	/** Micrometer observations. */
	public static class Observations {

		/**
		 * Whether each decision and each peer request is reported as a Micrometer observation.
		 */
		private boolean enabled = true;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

	}

	public static class Shutdown {

		/**
		 * How long stopping waits for running polling cycles to end before it releases the
		 * clusters (the first thing polling does on shutdown); keep it below
		 * spring.lifecycle.timeout-per-shutdown-phase. A number without unit means seconds.
		 */
		@DurationUnit(ChronoUnit.SECONDS)
		private Duration cycleWait = Duration.ofSeconds(10);

		public Duration getCycleWait() {
			return this.cycleWait;
		}

		public void setCycleWait(Duration cycleWait) {
			this.cycleWait = cycleWait;
		}

	}

	public static class Jmx {

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

		public @Nullable String getDomain() {
			return this.domain;
		}

		public void setDomain(@Nullable String domain) {
			this.domain = domain;
		}

		/** The configured domain, or the contract's default. */
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
		 * TLS for registry and objects. Peers then need polling.peers.<id>.ssl-bundle with a trust
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

	/** A polling cluster. */
	public static class Cluster {

		/**
		 * Display name (JMX, endpoint). Defaults to the cluster id.
		 */
		private @Nullable String name;

		/**
		 * How long the holder must have been idle before another instance may take over; at
		 * least 10s, recommended twice the timer delay. A number without unit means seconds,
		 * as in isy-polling.
		 */
		@DurationUnit(ChronoUnit.SECONDS)
		private @Nullable Duration waitTime;

		/**
		 * Ids of the peers this cluster asks. Empty means all configured peers.
		 */
		private List<String> peers = new ArrayList<>();

		/**
		 * Longest time a running cycle keeps the hold alive. Unset: for as long as it runs (peers
		 * see the holder as active). After it, the hold lapses one wait time later although the
		 * cycle still runs, so a peer may start polling beside it; set it only when a hung cycle must
		 * not keep the cluster from the other instances, and make the work safe against a second
		 * poller (the inbox). A number without unit means seconds.
		 */
		@DurationUnit(ChronoUnit.SECONDS)
		private @Nullable Duration maxCycleTime;

		public @Nullable Duration getMaxCycleTime() {
			return this.maxCycleTime;
		}

		public void setMaxCycleTime(@Nullable Duration maxCycleTime) {
			this.maxCycleTime = maxCycleTime;
		}

		/**
		 * How this cluster is coordinated: 'jmx', 'jdbc', 'shedlock' or 'kubernetes'; defaults to
		 * polling.coordination.
		 */
		private @Nullable Coordination coordination;

		public @Nullable Coordination getCoordination() {
			return this.coordination;
		}

		public void setCoordination(@Nullable Coordination coordination) {
			this.coordination = coordination;
		}

		public @Nullable String getName() {
			return this.name;
		}

		public void setName(@Nullable String name) {
			this.name = name;
		}

		public @Nullable Duration getWaitTime() {
			return this.waitTime;
		}

		public void setWaitTime(@Nullable Duration waitTime) {
			this.waitTime = waitTime;
		}

		public List<String> getPeers() {
			return this.peers;
		}

		public void setPeers(List<String> peers) {
			this.peers = peers;
		}

	}

	/** How a cluster is coordinated. */
	public enum Coordination {

		/** Ask the peers over JMX (the default). */
		JMX,

		/** Take a row in the database's coordination table. */
		JDBC,

		/** Take a lock of the application's ShedLock {@code LockProvider} bean (module polling-shedlock). */
		SHEDLOCK,

		/** Take a {@code coordination.k8s.io/v1} Lease object (module polling-kubernetes). */
		KUBERNETES

	}

	/** Settings of clusters coordinated through ShedLock ({@code polling.coordination=shedlock}). */
	public static class ShedLock {

		/**
		 * Prefix of the lock names: a cluster's lock is named prefix + cluster id.
		 */
		private String lockNamePrefix = "polling-";

		/**
		 * How long a holder that stopped renewing keeps a cluster before another instance takes it
		 * over (ShedLock's lockAtMostFor). Defaults to each cluster's wait time. Must exceed the
		 * longest cycle plus the timer delay. A number without unit means seconds.
		 */
		@DurationUnit(ChronoUnit.SECONDS)
		private @Nullable Duration failoverPeriod;

		public String getLockNamePrefix() {
			return this.lockNamePrefix;
		}

		public void setLockNamePrefix(String lockNamePrefix) {
			this.lockNamePrefix = lockNamePrefix;
		}

		public @Nullable Duration getFailoverPeriod() {
			return this.failoverPeriod;
		}

		public void setFailoverPeriod(@Nullable Duration failoverPeriod) {
			this.failoverPeriod = failoverPeriod;
		}

	}

	/** Settings of clusters coordinated through Kubernetes Leases ({@code polling.coordination=kubernetes}). */
	public static class Kubernetes {

		/**
		 * Namespace of the Lease objects. Defaults to the Kubernetes client's namespace (in a pod:
		 * the pod's own).
		 */
		private @Nullable String namespace;

		/**
		 * Prefix of the Lease names: a cluster's Lease is named prefix + cluster id.
		 */
		private String leaseNamePrefix = "polling-";

		/**
		 * How long a Lease that its holder stopped renewing keeps the cluster before another instance
		 * takes it over. Defaults to each cluster's wait time. A number without unit means seconds.
		 */
		@DurationUnit(ChronoUnit.SECONDS)
		private @Nullable Duration leaseDuration;

		/**
		 * How long a holder that cannot renew keeps acting as holder before it steps down; shorter
		 * than the lease duration. Defaults to two thirds of it. A number without unit means seconds.
		 */
		@DurationUnit(ChronoUnit.SECONDS)
		private @Nullable Duration renewDeadline;

		public @Nullable String getNamespace() {
			return this.namespace;
		}

		public void setNamespace(@Nullable String namespace) {
			this.namespace = namespace;
		}

		public String getLeaseNamePrefix() {
			return this.leaseNamePrefix;
		}

		public void setLeaseNamePrefix(String leaseNamePrefix) {
			this.leaseNamePrefix = leaseNamePrefix;
		}

		public @Nullable Duration getLeaseDuration() {
			return this.leaseDuration;
		}

		public void setLeaseDuration(@Nullable Duration leaseDuration) {
			this.leaseDuration = leaseDuration;
		}

		public @Nullable Duration getRenewDeadline() {
			return this.renewDeadline;
		}

		public void setRenewDeadline(@Nullable Duration renewDeadline) {
			this.renewDeadline = renewDeadline;
		}

	}

}
