package dev.polling.boot.autoconfigure.properties;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.boot.convert.DurationUnit;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

import dev.polling.core.CoordinationKind;

/**
 * Configuration of the polling clusters under {@code polling.*}: the clusters this application
 * polls ({@code polling.clusters}), how they are coordinated ({@code polling.coordination}, and
 * {@code polling.jmx} for the peers asked over JMX), and how polling stops
 * ({@code polling.shutdown}). Validated when bound (this class is its own {@link Validator}, which
 * Spring Boot applies at bind time): every mistake fails the start with a report naming the key,
 * its value and origin, and the fix. Keys of earlier versions are still read, with a warning
 * ({@link DeprecatedPollingProperties}).
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
	 * Polling clusters, by id as used in code (e.g. MAILABRUF_CLUSTER).
	 */
	private final Map<String, Cluster> clusters = new LinkedHashMap<>();

	private final Coordination coordination = new Coordination();

	@NestedConfigurationProperty
	private final JmxProperties jmx = new JmxProperties();

	private final Shutdown shutdown = new Shutdown();

	/**
	 * Observations of decisions and peer requests (polling.decision, polling.peer.request), made
	 * when the application has an ObservationRegistry.
	 */
	private final Observations observations = new Observations();

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

	public Map<String, Cluster> getClusters() {
		return this.clusters;
	}

	public Coordination getCoordination() {
		return this.coordination;
	}

	public JmxProperties getJmx() {
		return this.jmx;
	}

	public Shutdown getShutdown() {
		return this.shutdown;
	}

	public Observations getObservations() {
		return this.observations;
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
		 * polling.coordination.kind.
		 */
		private @Nullable CoordinationKind coordination;

		public @Nullable CoordinationKind getCoordination() {
			return this.coordination;
		}

		public void setCoordination(@Nullable CoordinationKind coordination) {
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

	/**
	 * How clusters are coordinated: the kind every cluster uses unless it names its own, and the
	 * settings of the store-based kinds.
	 */
	public static class Coordination {

		/**
		 * How clusters are coordinated unless a cluster says otherwise: 'jmx' asks the peers over JMX
		 * (see polling.jmx), 'jdbc' takes a row in the database (needs a DataSource), 'shedlock' takes
		 * a lock of the application's ShedLock LockProvider, 'kubernetes' takes a coordination.k8s.io
		 * Lease object.
		 */
		private CoordinationKind kind = CoordinationKind.JMX;

		/**
		 * For the store-based kinds (jdbc, shedlock, kubernetes): how long a holder that stopped
		 * renewing keeps a cluster before another instance takes it over (the row's lease in database
		 * time, ShedLock's lockAtMostFor, the Lease's duration). Defaults to each cluster's wait time.
		 * Must exceed the longest cycle plus the timer delay. A number without unit means seconds.
		 */
		@DurationUnit(ChronoUnit.SECONDS)
		private @Nullable Duration failoverPeriod;

		private final ShedLock shedlock = new ShedLock();

		private final Kubernetes kubernetes = new Kubernetes();

		public CoordinationKind getKind() {
			return this.kind;
		}

		public void setKind(CoordinationKind kind) {
			this.kind = kind;
		}

		public @Nullable Duration getFailoverPeriod() {
			return this.failoverPeriod;
		}

		public void setFailoverPeriod(@Nullable Duration failoverPeriod) {
			this.failoverPeriod = failoverPeriod;
		}

		public ShedLock getShedlock() {
			return this.shedlock;
		}

		public Kubernetes getKubernetes() {
			return this.kubernetes;
		}

	}

	/** Settings of clusters coordinated through ShedLock (kind shedlock). */
	public static class ShedLock {

		/**
		 * Prefix of the lock names: a cluster's lock is named prefix + cluster id.
		 */
		private String lockNamePrefix = "polling-";

		public String getLockNamePrefix() {
			return this.lockNamePrefix;
		}

		public void setLockNamePrefix(String lockNamePrefix) {
			this.lockNamePrefix = lockNamePrefix;
		}

	}

	/** Settings of clusters coordinated through Kubernetes Leases (kind kubernetes). */
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
		 * How long a holder that cannot renew keeps acting as holder before it steps down; shorter
		 * than the failover period. Defaults to two thirds of it. A number without unit means
		 * seconds.
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

		public @Nullable Duration getRenewDeadline() {
			return this.renewDeadline;
		}

		public void setRenewDeadline(@Nullable Duration renewDeadline) {
			this.renewDeadline = renewDeadline;
		}

	}

	/** How polling stops. */
	public static class Shutdown {

		/**
		 * How long each step of polling's stop may wait: first for running cycles to end before the
		 * clusters are released, then (side by side, in a later lifecycle phase) for the queue's
		 * running handlers, the send under way and the jobs' dispatch round. Keep it below
		 * spring.lifecycle.timeout-per-shutdown-phase. A number without unit means seconds.
		 */
		@DurationUnit(ChronoUnit.SECONDS)
		private Duration timeout = DEFAULT_SHUTDOWN_TIMEOUT;

		public Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(Duration timeout) {
			this.timeout = timeout;
		}

	}

	/** The default of {@code polling.shutdown.timeout}. */
	public static final Duration DEFAULT_SHUTDOWN_TIMEOUT = Duration.ofSeconds(20);

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

}
