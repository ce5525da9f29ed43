package dev.polling.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.net.ssl.SSLContext;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.polling.core.discovery.DnsDiscovery;
import dev.polling.core.discovery.DiscoveredPeer;
import dev.polling.core.discovery.PeerResolver;


/**
 * Decides which instance polls each cluster: the facade of the library. The decision itself is the
 * pure function in {@link Protocol}; {@link PeerDecider} drives it for clusters decided by their
 * peers over JMX, {@link CoordinatedCluster} for clusters decided by a {@link ClusterCoordinator};
 * {@link HoldState} is a cluster's hold in this instance.
 *
 * <p>Each instance publishes, per cluster, the time since its last activity, the age of its
 * candidacy while it acquires, its incarnation and its settings in an MBean. A decision asks every
 * peer of the cluster in parallel, waits at most the peer timeout per round, and grants at most one
 * of the instances that answer each other. See {@link Protocol} for the rules.
 */
public final class PollingManager implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(PollingManager.class);

	private final PollingSettings settings;

	private final Map<String, PeerDefinition> peers;

	private final Map<String, ClusterRuntime> clusters;

	private final LocalInstance instance;

	private final boolean ownsPeerClient;

	private final @Nullable MBeanServer mbeanServer;

	private final List<ObjectName> registeredMBeans = new ArrayList<>();

	/** The stop detector, null when no cluster needs one or a simulated stop source replaces it. */
	private final @Nullable StopDetector stopDetector;

	/** The peers from DNS, null when no DNS discovery is configured (or no cluster asks discovered peers). */
	private final @Nullable PeerDiscovery discovery;

	private volatile boolean closed;

	private PollingManager(Builder builder) {
		this.settings = builder.settings;
		this.peers = Collections.unmodifiableMap(new LinkedHashMap<>(builder.peers));
		BuilderChecks.validate(builder, this.settings);
		List<ClusterDefinition> discovering = (builder.discovery == null) ? List.of() : builder.clusters.values().stream()
			.filter((c) -> !builder.coordinators.containsKey(c.id()) && c.peerIds().isEmpty())
			.toList();
		StopDetector stopDetector = (builder.stopSource == null) ? LocalInstance.stopDetector(this.settings,
				this.peers.isEmpty() && discovering.isEmpty(),
				builder.clusters.keySet(), builder.coordinators.keySet(), builder.stopThreshold, this::heartbeat) : null;
		this.stopDetector = stopDetector;
		StopSource stopSource = (builder.stopSource != null) ? builder.stopSource : stopDetector;
		try {
			this.ownsPeerClient = builder.peerClient == null;
			PeerClient peerClient = (builder.peerClient != null) ? builder.peerClient
					: PeerClientFactory.load().create(this.settings, builder.time, builder.peerTls);
			this.instance = new LocalInstance(this.settings, builder.time, peerClient, new Events(builder.listener, builder.observer), stopSource,
					builder.balanceClusters, builder.grantProtocol);
			this.discovery = discovery(builder, discovering, this.instance);
			this.clusters = ClusterRuntime.assemble(builder.clusters.values(), this.peers, builder.coordinators, this.instance,
					this.discovery, discovering);
			this.instance.clusters(this.clusters.values());
			this.mbeanServer = builder.mbeanServer;
			if (this.mbeanServer != null) {
				this.registeredMBeans.addAll(ClusterMBean.register(this.mbeanServer, this.settings, this.clusters.values()));
			}
			if (this.discovery != null && builder.resolveInBackground) {
				this.discovery.start();
			}
		}
		catch (RuntimeException | Error ex) {
			if (stopDetector != null) {
				stopDetector.close(); // no heartbeat thread left behind by a manager that was never built
			}
			throw ex;
		}
	}

	private static @Nullable PeerDiscovery discovery(Builder builder, List<ClusterDefinition> discovering, LocalInstance instance) {
		DnsDiscovery dns = builder.discovery;
		if (dns == null) {
			return null;
		}
		if (discovering.isEmpty()) {
			logger.warn("DNS discovery of '{}' is configured, but every cluster names its peers or has a coordinator: no cluster asks "
					+ "the discovered peers, so the name is not resolved", dns.name());
			return null;
		}
		Duration shortest = discovering.stream().map(ClusterDefinition::waitTime).min(Duration::compareTo).orElseThrow();
		Duration longest = discovering.stream().map(ClusterDefinition::waitTime).max(Duration::compareTo).orElseThrow();
		return new PeerDiscovery(dns, builder.resolver, instance.time(), instance.selfPeers(), List.copyOf(builder.peers.values()),
				shortest, longest);
	}

	/** For tests that drive the discovery themselves: resolves the name once now; false when it failed or there is no discovery. */
	boolean refreshDiscovery() {
		return this.discovery != null && this.discovery.refresh();
	}

	/** On the heartbeat thread: holds that ended without a decision, cycles that overrun. */
	private void heartbeat() {
		LocalInstance.checkClusters(this.clusters);
	}

	/** The stop detector, null when no cluster needs one; for tests of what follows a stop. */
	@Nullable StopDetector stopDetector() {
		return this.stopDetector;
	}

	public static Builder builder() {
		return new Builder();
	}

	// ---------------------------------------------------------------- the seed's API

	/** Whether this instance may poll the cluster now (seed: {@code startePolling}). */
	public boolean tryStartPolling(String clusterId) {
		return decide(clusterId).isGranted();
	}

	/**
	 * Records polling activity (seed: {@code aktualisiereZeitpunktLetztePollingAktivitaet}): extends
	 * this instance's hold. Activity extends a hold, it never creates one, so a call on an instance
	 * that was not granted the cluster (or whose hold lapsed) changes nothing and returns false. No I/O,
	 * no lock.
	 * @return whether this instance holds the cluster and its hold was extended
	 */
	public boolean recordActivity(String clusterId) {
		return runtime(clusterId).state().recordActivity();
	}

	/** This instance's last activity (seed: {@code getZeitpunktLetztePollingAktivitaet}); empty when never or released. */
	public Optional<Instant> lastActivity(String clusterId) {
		long elapsed = runtime(clusterId).state().elapsedMillis();
		return (elapsed == Long.MAX_VALUE) ? Optional.empty() : Optional.of(this.instance.time().now().minusMillis(elapsed));
	}

	/**
	 * Decides whether this instance may poll the cluster now, asking the peers. An acquisition takes
	 * up to two rounds of at most the peer timeout each plus the settle time, whatever the peers do; a
	 * renewal one round. Never throws for a peer's fault.
	 * @throws UnknownClusterException if the cluster is not defined
	 */
	public Decision decide(String clusterId) {
		return runtime(clusterId).decide();
	}

	/**
	 * Asks the peers of every cluster decided by its peers, without deciding anything, and logs each
	 * peer entry with a configuration fault (credentials, TLS, not a JMX port, unknown host) as an
	 * error with its likely cause. Meant for the start of the application, where peers already up show
	 * a wrong entry before the first tick. Waits at most the peer timeout per cluster.
	 * @return the observations by cluster id (clusters without peers or with a coordinator are absent)
	 */
	public Map<String, List<PeerObservation>> checkPeers() {
		return this.instance.checkPeers();
	}

	/**
	 * Runs one polling cycle: decides, runs the task only when granted, and records activity at its
	 * end (also when it throws). While the task runs, the hold stays alive (peers see this instance as
	 * active) until it ends or the cluster's {@link ClusterDefinition#maxCycleTime() maximum cycle
	 * time} passes; a cycle longer than the wait time is reported once per wait time. A second cycle of
	 * the same cluster in this instance is refused with {@link Decision.Reason#LOCAL_CYCLE_RUNNING}
	 * while one runs, without asking the peers.
	 * @return the decision
	 * @throws E what the task throws
	 */
	public <E extends Exception> Decision runIfGranted(String clusterId, CycleTask<E> task) throws E {
		return runtime(clusterId).runIfGranted(task);
	}

	/** Whether a cycle of the cluster runs in this instance now. */
	public boolean isCycleRunning(String clusterId) {
		return runtime(clusterId).isCycleRunning();
	}

	/** Whether this instance holds the cluster: granted, activity younger than the wait time, not paused. */
	public boolean isHolding(String clusterId) {
		return runtime(clusterId).state().isHolding();
	}

	/**
	 * Pauses the cluster on this instance: it is refused until {@link #resume(String)}, and an
	 * acquisition under way is not granted. Returns at once. Without a running cycle it reports
	 * "never" at once (a peer takes over at its next tick); while a cycle runs under
	 * {@link #runIfGranted}, the hold is handed over when that cycle ends (or its maximum cycle time
	 * passes), so no peer starts a cycle beside it ({@link ClusterStatus#handingOver()} meanwhile).
	 */
	public void pause(String clusterId) {
		runtime(clusterId).pause();
	}

	/** Resumes a paused cluster; the next decision competes normally. */
	public void resume(String clusterId) {
		runtime(clusterId).state().resume();
		logger.info("Cluster '{}' resumed on this instance", clusterId);
	}

	public boolean isPaused(String clusterId) {
		return runtime(clusterId).state().isPaused();
	}

	/**
	 * Lets go of the cluster without pausing it, as {@link #pause(String)} does: at once, or when the
	 * running cycle ends. An acquisition under way is not granted.
	 */
	public void release(String clusterId) {
		runtime(clusterId).release();
	}

	/**
	 * Hands the cluster over to a peer: lets go of it as {@link #release(String)} does (at once, or
	 * when the running cycle ends, so no peer starts a cycle beside it) and then holds back from it
	 * for one wait time, so that a peer takes it at its next tick instead of this instance taking it
	 * again (decisions meanwhile are {@link Decision.Reason#HANDED_OVER}). Not paused: afterwards this
	 * instance competes as before. Returns at once.
	 * @param clusterId the cluster
	 * @throws IllegalStateException if the cluster has neither peers nor a coordinator (there is
	 * nobody to hand it to; {@link #pause(String)} stops polling it here)
	 */
	public void handOver(String clusterId) {
		ClusterRuntime runtime = runtime(clusterId);
		if (runtime.isStandalone()) {
			throw new IllegalStateException("Cluster '" + clusterId + "' runs standalone (no peers and no coordinator): there is "
					+ "no instance to hand it over to; pause it to stop polling it here");
		}
		runtime.handOver();
	}

	/**
	 * The fencing token of a cluster decided by a {@link ClusterCoordinator}: the epoch of this
	 * instance's latest grant, which grows whenever the holder changes. Pass it to writes that must
	 * be rejected once another instance has taken over. Empty for JMX-coordinated clusters and before
	 * the first grant.
	 */
	public OptionalLong fencingToken(String clusterId) {
		CoordinatedCluster coordinated = runtime(clusterId).coordinated();
		long epoch = (coordinated != null) ? coordinated.epoch() : -1;
		return (epoch < 0) ? OptionalLong.empty() : OptionalLong.of(epoch);
	}

	/**
	 * Starts shutting down: every cluster is refused from now on ({@link Decision.Reason#CLOSED}) and
	 * let go as by {@link #release(String)}: at once, or, while a cycle runs, when that cycle ends (or
	 * its maximum cycle time passes), so no peer starts a cycle beside it. Returns at once; the MBeans
	 * stay registered (peers go on seeing the running cycle's hold) until {@link #close()}. Wait for
	 * {@link #isCycleRunning(String)} to turn false, then close; the starter does so on shutdown,
	 * waiting at most {@code polling.shutdown.timeout}.
	 */
	public void shutdown() {
		if (this.closed) {
			return;
		}
		for (ClusterRuntime c : this.clusters.values()) {
			c.letGo(ClusterRuntime.LetGo.SHUTDOWN);
		}
	}

	/**
	 * Releases every cluster at once, unregisters the MBeans and closes the connections to the peers.
	 * A cycle still running loses its hold now (a peer may start beside it): call {@link #shutdown()}
	 * and wait for the running cycles first.
	 */
	@Override
	public void close() {
		if (this.closed) {
			return;
		}
		this.closed = true;
		for (ClusterRuntime c : this.clusters.values()) {
			c.close();
		}
		if (this.mbeanServer != null) {
			ClusterMBean.unregister(this.mbeanServer, this.registeredMBeans);
		}
		if (this.stopDetector != null) {
			this.stopDetector.close();
		}
		if (this.discovery != null) {
			this.discovery.close();
		}
		this.instance.close(this.ownsPeerClient);
	}

	// ---------------------------------------------------------------- status

	public PollingSettings settings() {
		return this.settings;
	}

	public Set<String> clusterIds() {
		return this.clusters.keySet();
	}

	public ClusterDefinition cluster(String clusterId) {
		return runtime(clusterId).definition();
	}

	public Map<String, PeerDefinition> peers() {
		return this.peers;
	}

	/**
	 * The peers found through DNS discovery, present and missing (a missing one is still asked until
	 * it has been missing for one wait time); empty without discovery.
	 */
	public List<DiscoveredPeer> discoveredPeers() {
		return (this.discovery != null) ? this.discovery.peers() : List.of();
	}

	/** The DNS discovery in effect, if any. */
	public Optional<DnsDiscovery> discovery() {
		return Optional.ofNullable(this.discovery).map(PeerDiscovery::config);
	}

	/** Whether no peers are configured and no cluster has a coordinator, so every decision is granted. */
	public boolean isStandalone() {
		return this.clusters.values().stream().allMatch(ClusterRuntime::isStandalone);
	}

	/** A snapshot of one cluster for endpoints and health. */
	public ClusterStatus status(String clusterId) {
		return runtime(clusterId).status();
	}

	/** Snapshots of all clusters, in definition order. */
	public List<ClusterStatus> statuses() {
		return this.clusters.keySet().stream().map(this::status).toList();
	}

	/** The runtime of a cluster; package-private for the tests' simulation hooks. */
	ClusterRuntime runtime(String clusterId) {
		Objects.requireNonNull(clusterId, "clusterId must not be null");
		ClusterRuntime c = this.clusters.get(clusterId);
		if (c == null) {
			throw new UnknownClusterException(clusterId, this.clusters.keySet());
		}
		return c;
	}

	/** A task run by {@link #runIfGranted(String, CycleTask)}. */
	@FunctionalInterface
	public interface CycleTask<E extends Exception> {

		void run() throws E;

	}

	/** Builds a {@link PollingManager}. */
	public static final class Builder {

		private PollingSettings settings = PollingSettings.defaults();

		final Map<String, ClusterDefinition> clusters = new LinkedHashMap<>();

		final Map<String, PeerDefinition> peers = new LinkedHashMap<>();

		private TimeSource time = TimeSource.SYSTEM;

		private PollingListener listener = PollingListener.NONE;

		private DecisionObserver observer = DecisionObserver.NONE;

		private @Nullable MBeanServer mbeanServer;

		private @Nullable PeerClient peerClient;

		final Map<String, ClusterCoordinator> coordinators = new LinkedHashMap<>();

		final Map<String, SSLContext> peerTls = new LinkedHashMap<>();

		private boolean balanceClusters;

		private GrantProtocol grantProtocol = GrantProtocol.ANNOUNCE;

		private @Nullable StopSource stopSource;

		private @Nullable Duration stopThreshold;

		@Nullable DnsDiscovery discovery;

		private PeerResolver resolver = PeerResolver.SYSTEM;

		private boolean resolveInBackground = true;

		private Builder() {
		}

		/**
		 * Also asks every address the DNS name resolves to, re-resolved on an interval on a thread of
		 * its own, in every cluster that names no peers and has no coordinator. See {@link DnsDiscovery}.
		 */
		public Builder discovery(@Nullable DnsDiscovery discovery) {
			this.discovery = discovery;
			return this;
		}

		/** How the discovery's DNS name is resolved; {@link PeerResolver#SYSTEM} by default. */
		public Builder peerResolver(PeerResolver resolver) {
			this.resolver = Objects.requireNonNull(resolver, "resolver must not be null");
			return this;
		}

		PeerResolver resolver() {
			return this.resolver;
		}

		/** For tests only: no discovery thread; the test resolves with {@link PollingManager#refreshDiscovery()}. */
		Builder resolveInBackground(boolean resolveInBackground) {
			this.resolveInBackground = resolveInBackground;
			return this;
		}

		/**
		 * For tests whose subject is not stop detection: a gap this long counts as a stop instead of
		 * half the peer timeout, so that a starved test JVM (a loaded build machine) does not refuse
		 * with STOPPED. Stops recorded by the test itself still count.
		 */
		Builder stopThreshold(Duration stopThreshold) {
			this.stopThreshold = Objects.requireNonNull(stopThreshold, "stopThreshold must not be null");
			return this;
		}

		/**
		 * For the tests' simulation only: replaces the stop detector (and its heartbeat thread, which
		 * also reports cycle overruns) by the given source of stops, so that stops are told in the
		 * simulation's virtual time.
		 */
		Builder stopSource(StopSource stopSource) {
			this.stopSource = Objects.requireNonNull(stopSource, "stopSource must not be null");
			return this;
		}

		/**
		 * For tests and the grant-race benchmark only: how a free cluster is acquired. Production
		 * code cannot select the known-bad {@link GrantProtocol#CHECK_THEN_ACT}; the tests reach
		 * this through {@code TestBuilders#checkThenAct}.
		 */
		Builder grantProtocol(GrantProtocol grantProtocol) {
			this.grantProtocol = Objects.requireNonNull(grantProtocol, "grantProtocol must not be null");
			return this;
		}

		/**
		 * Whether to spread clusters among the instances (seed: load distribution): a holder that
		 * holds at least two clusters more than a peer of the cluster it renews hands that cluster
		 * over (the peer takes it at its next tick) and holds back from it for one wait time; at most
		 * one handover per half wait time. JMX clusters only. Off by default.
		 */
		public Builder balanceClusters(boolean balanceClusters) {
			this.balanceClusters = balanceClusters;
			return this;
		}

		/**
		 * Talks to the peer over TLS with the given context (its trust store must trust the peer's
		 * certificate; its key material is presented when the peer requires client certificates).
		 */
		public Builder peerTls(String peerId, SSLContext context) {
			this.peerTls.put(Objects.requireNonNull(peerId, "peerId must not be null"),
					Objects.requireNonNull(context, "context must not be null"));
			return this;
		}

		/**
		 * Decides the cluster through the coordinator (e.g. a database row) instead of asking the
		 * peers over JMX.
		 */
		public Builder coordinator(String clusterId, ClusterCoordinator coordinator) {
			this.coordinators.put(Objects.requireNonNull(clusterId, "clusterId must not be null"),
					Objects.requireNonNull(coordinator, "coordinator must not be null"));
			return this;
		}

		public Builder settings(PollingSettings settings) {
			this.settings = Objects.requireNonNull(settings, "settings must not be null");
			return this;
		}

		public Builder cluster(ClusterDefinition cluster) {
			Objects.requireNonNull(cluster, "cluster must not be null");
			if (this.clusters.putIfAbsent(cluster.id(), cluster) != null) {
				throw new IllegalArgumentException("Cluster '" + cluster.id() + "' is defined twice; cluster ids must be unique");
			}
			return this;
		}

		public Builder clusters(Collection<ClusterDefinition> clusters) {
			clusters.forEach(this::cluster);
			return this;
		}

		public Builder peer(PeerDefinition peer) {
			Objects.requireNonNull(peer, "peer must not be null");
			if (this.peers.putIfAbsent(peer.id(), peer) != null) {
				throw new IllegalArgumentException("Peer '" + peer.id() + "' is defined twice; peer ids must be unique");
			}
			return this;
		}

		public Builder peers(Collection<PeerDefinition> peers) {
			peers.forEach(this::peer);
			return this;
		}

		public Builder timeSource(TimeSource time) {
			this.time = Objects.requireNonNull(time, "time source must not be null");
			return this;
		}

		/**
		 * Sets the observer called at the start and end of each decision and of each peer request
		 * (for tracing and timing); none by default.
		 * @param observer the observer
		 * @return this builder
		 */
		public Builder observer(DecisionObserver observer) {
			this.observer = Objects.requireNonNull(observer, "observer must not be null");
			return this;
		}

		public Builder listener(PollingListener listener) {
			this.listener = Objects.requireNonNull(listener, "listener must not be null");
			return this;
		}

		/** Where the cluster MBeans are registered, usually the one a connector server serves; none if not set. */
		public Builder mbeanServer(@Nullable MBeanServer mbeanServer) {
			this.mbeanServer = mbeanServer;
			return this;
		}

		/** The transport to the peers; by default the JMX one ({@link PeerClientFactory}), owned (and closed) by the manager. */
		public Builder peerClient(@Nullable PeerClient peerClient) {
			this.peerClient = peerClient;
			return this;
		}

		public PollingManager build() {
			return new PollingManager(this);
		}

	}

}
