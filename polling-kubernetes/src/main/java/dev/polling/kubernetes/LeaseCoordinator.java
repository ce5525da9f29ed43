package dev.polling.kubernetes;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.polling.core.ClusterCoordinator;
import dev.polling.core.ClusterDefinition;
import dev.polling.kubernetes.LeaseStore.LeaseRecord;
import dev.polling.kubernetes.LeaseStore.Observed;
import dev.polling.kubernetes.LeaseStore.StoreFault;
import dev.polling.kubernetes.LeaseStore.Write;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * Coordinates clusters through one {@code coordination.k8s.io/v1} Lease per cluster, named
 * {@code <prefix><cluster id>}: holderIdentity is the holding instance's id, leaseTransitions the
 * epoch (fencing token, grows by one whenever the holder changes), renewTime and acquireTime the
 * writer's wall clock (for display only). Every write replaces the lease under the resourceVersion
 * read, so of two instances writing on the same read exactly one succeeds; the other is refused.
 *
 * <p>Time is judged on each instance's own monotonic clock, never by comparing the wall clocks of
 * two machines: an instance takes over another's lease only when it has seen the lease unchanged
 * for the lease duration (so a fresh instance waits one lease duration before taking over a lease
 * it has never seen change), and the holder keeps the cluster only while it renews successfully
 * within the renew deadline counted from when its last successful renewal was sent; past it, it
 * steps down at its next decision instead of renewing late. Since the renew deadline is shorter
 * than the lease duration, a holder has stopped acting on its grant before anybody else can take
 * the lease over, as long as the instances' clocks run at nearly the same rate (a few percent).
 *
 * <p>Faults of the API server are answered with {@link Claim#unavailable(String)}, never thrown.
 * Built with {@link #builder(KubernetesClient)}.
 */
public final class LeaseCoordinator implements ClusterCoordinator {

	private static final Logger defaultLogger = LoggerFactory.getLogger(LeaseCoordinator.class);

	/** The lease name prefix unless one is given. */
	public static final String DEFAULT_LEASE_NAME_PREFIX = "polling-";

	/** Longest name of a Kubernetes object that must be a DNS-1123 subdomain. */
	static final int MAX_NAME_LENGTH = 253;

	/** Longest lease name prefix accepted, so that a cluster id always has room. */
	static final int MAX_PREFIX_LENGTH = 200;

	private static final Pattern SUBDOMAIN = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

	private static final Pattern LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");

	/** How expiry of another holder is judged; only the first is correct (the others show that the simulation catches them). */
	enum Expiry {

		/** The lease has not changed for the lease duration on this instance's monotonic clock, counted from the answer. */
		OBSERVED_CHANGE,

		/** Broken on purpose: renewTime compared with this instance's wall clock, which may be skewed. */
		WALL_CLOCK_RENEW_TIME,

		/**
		 * Broken on purpose: counted from when the read was sent, not from its answer; a read applied
		 * late sees a renewal sent after the read was.
		 */
		CHANGE_FROM_READ_SENT

	}

	private final LeaseStore store;

	private final Duration leaseDuration;

	private final long leaseNanos;

	private final Duration renewDeadline;

	private final long renewNanos;

	private final String prefix;

	private final LongSupplier nanoTime;

	private final Clock wallClock;

	private final Expiry expiry;

	private final Logger logger;

	private final Map<String, Hold> holds = new ConcurrentHashMap<>();

	/** The latest fault per cluster and instance, while the API server does not answer (logged once per outage). */
	private final Map<String, String> lastFailure = new ConcurrentHashMap<>();

	LeaseCoordinator(LeaseStore store, Duration leaseDuration, Duration renewDeadline, String prefix, LongSupplier nanoTime,
			Clock wallClock, Expiry expiry) {
		this(store, leaseDuration, renewDeadline, prefix, nanoTime, wallClock, expiry, defaultLogger);
	}

	/** With a logger of its own: a simulation of many outages logs elsewhere. */
	LeaseCoordinator(LeaseStore store, Duration leaseDuration, Duration renewDeadline, String prefix, LongSupplier nanoTime,
			Clock wallClock, Expiry expiry, Logger logger) {
		this.logger = logger;
		this.store = store;
		this.leaseDuration = leaseDuration;
		this.leaseNanos = leaseDuration.toNanos();
		this.renewDeadline = renewDeadline;
		this.renewNanos = renewDeadline.toNanos();
		this.prefix = prefix;
		this.nanoTime = nanoTime;
		this.wallClock = wallClock;
		this.expiry = expiry;
	}

	/**
	 * A builder of a coordinator on the given client.
	 * @param client the client (its namespace is the default one)
	 * @return the builder
	 */
	public static Builder builder(KubernetesClient client) {
		return new Builder(Objects.requireNonNull(client, "client must not be null"));
	}

	/** The lease duration: how long a lease must be seen unchanged before another instance takes it over. */
	public Duration leaseDuration() {
		return this.leaseDuration;
	}

	/** The renew deadline: how long after its last successful renewal was sent the holder keeps the cluster. */
	public Duration renewDeadline() {
		return this.renewDeadline;
	}

	/**
	 * The name of the lease of a cluster: the prefix and the cluster id when they form a DNS-1123
	 * subdomain; otherwise the prefix and the id in lower case with every other character than
	 * {@code a-z 0-9 -} replaced by {@code -}, leading and trailing dashes dropped, shortened if need be,
	 * and followed by {@code -} and the first 8 hex digits of the id's SHA-256, so that two ids differing
	 * only in case or punctuation get different leases ({@code MAILABRUF_CLUSTER} becomes
	 * {@code polling-mailabruf-cluster-72170219}).
	 * @param cluster the cluster id
	 * @return the lease name
	 */
	public String leaseName(String cluster) {
		return leaseName(this.prefix, cluster);
	}

	static String leaseName(String prefix, String cluster) {
		String plain = prefix + cluster;
		if (plain.length() <= MAX_NAME_LENGTH && SUBDOMAIN.matcher(plain).matches()) {
			return plain;
		}
		String hash = sha256(cluster).substring(0, 8);
		// starting with a letter or digit (the prefix is valid before one), dashes only: no empty labels
		String sanitized = cluster.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9-]", "-").replaceAll("^-+", "");
		int room = MAX_NAME_LENGTH - prefix.length() - hash.length() - 1;
		if (sanitized.length() > room) {
			sanitized = sanitized.substring(0, room);
		}
		sanitized = sanitized.replaceAll("-+$", "");
		return sanitized.isEmpty() ? prefix + hash : prefix + sanitized + "-" + hash;
	}

	private static String sha256(String text) {
		try {
			return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is missing from this JVM", ex);
		}
	}

	@Override
	public Claim acquire(ClusterDefinition cluster, String instanceId) {
		Objects.requireNonNull(instanceId, "instanceId must not be null");
		String name = leaseName(cluster.id());
		String key = key(cluster.id(), instanceId);
		Hold hold = this.holds.computeIfAbsent(key, (k) -> new Hold());
		synchronized (hold) {
			try {
				Claim claim = acquire(hold, name, instanceId);
				answered(cluster.id(), key);
				return claim;
			}
			catch (StoreFault ex) {
				return failed(cluster.id(), key, ex);
			}
		}
	}

	private Claim acquire(Hold hold, String name, String instanceId) throws StoreFault {
		long sent = this.nanoTime.getAsLong();
		Observed lease = this.store.get(name);
		long received = this.nanoTime.getAsLong();
		observe(hold, lease, (this.expiry == Expiry.CHANGE_FROM_READ_SENT) ? sent : received);
		if (lease == null) {
			return create(hold, name, instanceId);
		}
		LeaseRecord record = lease.record();
		long age = ageMillis(hold, received);
		boolean own = isOwn(record, instanceId, hold);
		if (own && hold.holding) {
			long send = this.nanoTime.getAsLong();
			if (send - hold.renewedAt >= this.renewNanos) {
				return stepDown(hold, name, lease, send);
			}
			LeaseRecord renewed = new LeaseRecord(instanceId, durationSeconds(), record.acquireTime(), wallNow(), record.transitions());
			return write(hold, name, lease.resourceVersion(), renewed, true, age, send);
		}
		hold.holding = false;
		// this process's own record while it does not hold it (the answer to its write was lost or came too
		// late, or it stepped down and could not clear it) is taken like a free one: a new grant, a new epoch
		if (!own && record.holder() != null && !expired(hold, record, received)) {
			return new Claim(false, false, record.holder(), record.transitions(), age, null);
		}
		long send = this.nanoTime.getAsLong();
		Instant now = wallNow();
		long epoch = record.transitions() + 1;
		hold.ownEpoch = epoch;
		return write(hold, name, lease.resourceVersion(), new LeaseRecord(instanceId, durationSeconds(), now, now, epoch), false, age,
				send);
	}

	private boolean expired(Hold hold, LeaseRecord record, long received) {
		if (this.expiry == Expiry.WALL_CLOCK_RENEW_TIME) {
			Instant renewed = (record.renewTime() != null) ? record.renewTime() : record.acquireTime();
			return renewed == null || Duration.between(renewed, wallNow()).compareTo(this.leaseDuration) >= 0;
		}
		return received - hold.seenSince >= this.leaseNanos;
	}

	private Claim create(Hold hold, String name, String instanceId) throws StoreFault {
		long send = this.nanoTime.getAsLong();
		Instant now = wallNow();
		hold.holding = false;
		hold.ownEpoch = 0;
		Write write = this.store.create(name, new LeaseRecord(instanceId, durationSeconds(), now, now, 0));
		return granted(hold, write, false, -1, send, instanceId);
	}

	private Claim write(Hold hold, String name, String resourceVersion, LeaseRecord record, boolean renewing, long age, long send)
			throws StoreFault {
		// a fault may hide an applied write: the lease then names this process with the epoch it remembers,
		// which the next decision recognises as its own
		Write write = this.store.update(name, resourceVersion, record);
		return granted(hold, write, renewing, age, send, Objects.requireNonNull(record.holder()));
	}

	private Claim granted(Hold hold, Write write, boolean renewing, long age, long send, String instanceId) {
		long received = this.nanoTime.getAsLong();
		if (write.isConflict()) {
			// another instance wrote first: it holds the lease now, or released it; the next decision reads which
			hold.holding = false;
			return new Claim(false, false, null, -1, -1, null);
		}
		Observed written = Objects.requireNonNull(write.written());
		observe(hold, written, received);
		if (received - send >= this.renewNanos) {
			hold.holding = false;
			return Claim.unavailable(this.store.describe() + " answered the write of the lease after " + (received - send) / 1_000_000L
					+ " ms, later than the renew deadline of " + this.renewDeadline.toMillis() + " ms; not acting on it");
		}
		hold.holding = true;
		hold.renewedAt = send;
		hold.held = written;
		hold.ownEpoch = written.record().transitions();
		return new Claim(true, renewing, instanceId, written.record().transitions(), age, null);
	}

	/**
	 * The holder missed its renew deadline (its process stood still, or the API server did not
	 * answer): it stops holding, and clears its record if it is still its own so that another instance
	 * need not wait for the lease to expire.
	 */
	private Claim stepDown(Hold hold, String name, Observed lease, long send) throws StoreFault {
		hold.holding = false;
		this.logger.info("Lease {}: not renewed within the renew deadline of {} ms (last successful renewal sent {} ms ago); stepping down",
				name, this.renewDeadline.toMillis(), (send - hold.renewedAt) / 1_000_000L);
		Write write = this.store.update(name, lease.resourceVersion(), cleared(lease.record()));
		if (!write.isConflict()) {
			Observed written = Objects.requireNonNull(write.written());
			observe(hold, written, this.nanoTime.getAsLong());
			hold.ownEpoch = -1;
			return new Claim(false, false, null, written.record().transitions(), 0, null);
		}
		return new Claim(false, false, null, -1, -1, null);
	}

	private LeaseRecord cleared(LeaseRecord record) {
		return new LeaseRecord(null, record.durationSeconds(), record.acquireTime(), wallNow(), record.transitions());
	}

	@Override
	public void release(ClusterDefinition cluster, String instanceId) {
		String key = key(cluster.id(), instanceId);
		Hold hold = this.holds.get(key);
		if (hold == null) {
			return;
		}
		synchronized (hold) {
			if (!hold.holding && hold.ownEpoch < 0) {
				return;
			}
			hold.holding = false;
			String name = leaseName(cluster.id());
			try {
				// the lease as last written; read anew if a write since may have been applied unanswered
				Observed lease = (hold.held != null && isOwn(hold.held.record(), instanceId, hold)) ? hold.held : this.store.get(name);
				for (int attempt = 0; attempt < 2 && lease != null && isOwn(lease.record(), instanceId, hold); attempt++) {
					Write write = this.store.update(name, lease.resourceVersion(), cleared(lease.record()));
					if (!write.isConflict()) {
						hold.ownEpoch = -1;
						observe(hold, Objects.requireNonNull(write.written()), this.nanoTime.getAsLong());
						break;
					}
					lease = this.store.get(name);
				}
				answered(cluster.id(), key);
			}
			catch (StoreFault ex) {
				this.logger.warn("Cluster '{}': could not release Lease {} ({}); another instance takes over once it has seen it unchanged "
						+ "for the lease duration of {} ms", cluster.id(), name, ex.getMessage(), this.leaseDuration.toMillis());
			}
		}
	}

	/** Whether a lease names this instance as written by this process (not by another process with the same id). */
	private static boolean isOwn(LeaseRecord record, String instanceId, Hold hold) {
		return instanceId.equals(record.holder()) && hold.ownEpoch >= 0 && hold.ownEpoch == record.transitions();
	}

	@Override
	public String describe() {
		return this.store.describe();
	}

	private void observe(Hold hold, @Nullable Observed lease, long received) {
		if (lease == null) {
			hold.seenVersion = null;
			return;
		}
		if (!lease.resourceVersion().equals(hold.seenVersion)) {
			hold.seenVersion = lease.resourceVersion();
			hold.seenSince = received;
		}
	}

	private static long ageMillis(Hold hold, long now) {
		return (hold.seenVersion != null) ? Math.max(0, (now - hold.seenSince) / 1_000_000L) : -1;
	}

	private int durationSeconds() {
		long seconds = (this.leaseNanos + 999_999_999L) / 1_000_000_000L;
		return (int) Math.min(Integer.MAX_VALUE, seconds);
	}

	private Instant wallNow() {
		return this.wallClock.instant();
	}

	private void answered(String cluster, String key) {
		if (this.lastFailure.remove(key) != null) {
			this.logger.info("Cluster '{}': {} answers again", cluster, this.store.describe());
		}
	}

	private Claim failed(String cluster, String key, StoreFault fault) {
		String failure = "Kubernetes coordination failed: " + fault.getMessage() + " (" + this.store.describe() + ")";
		if (this.lastFailure.put(key, failure) == null) {
			this.logger.warn("Cluster '{}': {}; refusing until the API server answers", cluster, failure);
		}
		return Claim.unavailable(failure);
	}

	private static String key(String clusterId, String instanceId) {
		return clusterId + '\u0000' + instanceId;
	}

	/** What one instance knows about the lease of one cluster; guarded by itself. */
	private static final class Hold {

		/** The resource version last observed, null when none or the lease was absent. */
		@Nullable String seenVersion;

		/** When {@link #seenVersion} was first observed (local monotonic nanos, on receipt of the answer). */
		long seenSince;

		/** Whether this process holds the lease. */
		boolean holding;

		/** When the last successful write making this process the holder was sent (local monotonic nanos). */
		long renewedAt;

		/** The lease as this process last wrote it while holding. */
		@Nullable Observed held;

		/**
		 * The epoch of the last write that named this process holder, confirmed or not (its answer may
		 * be lost); -1 after a release. A lease naming this instance's id with another epoch was written
		 * by another process with the same id, or by this instance before a restart.
		 */
		long ownEpoch = -1;

	}

	/** Builds a {@link LeaseCoordinator}; every setting is checked in {@link #build()}. */
	public static final class Builder {

		private final KubernetesClient client;

		private @Nullable String namespace;

		private @Nullable Duration leaseDuration;

		private @Nullable Duration renewDeadline;

		private String leaseNamePrefix = DEFAULT_LEASE_NAME_PREFIX;

		private LongSupplier nanoTime = System::nanoTime;

		private Clock wallClock = Clock.systemUTC();

		private Builder(KubernetesClient client) {
			this.client = client;
		}

		/**
		 * The namespace of the leases; by default the client's (in a pod: the pod's own namespace).
		 * @param namespace a DNS-1123 label
		 * @return this builder
		 */
		public Builder namespace(String namespace) {
			this.namespace = namespace;
			return this;
		}

		/**
		 * Required: how long an instance must have seen a lease unchanged before it takes it over, the
		 * failover period. Written to leaseDurationSeconds (rounded up to whole seconds).
		 * @param leaseDuration positive
		 * @return this builder
		 */
		public Builder leaseDuration(Duration leaseDuration) {
			this.leaseDuration = leaseDuration;
			return this;
		}

		/**
		 * How long after its last successful renewal was sent the holder keeps the cluster without
		 * renewing; past it, it steps down. Shorter than the lease duration; by default two thirds of it.
		 * @param renewDeadline positive and shorter than the lease duration
		 * @return this builder
		 */
		public Builder renewDeadline(Duration renewDeadline) {
			this.renewDeadline = renewDeadline;
			return this;
		}

		/**
		 * The prefix of the lease names, {@value LeaseCoordinator#DEFAULT_LEASE_NAME_PREFIX} by default.
		 * @param leaseNamePrefix lower case letters, digits, {@code -} and {@code .} that a name can follow
		 * (a DNS-1123 subdomain when a letter is appended), at most 200 characters; may be empty
		 * @return this builder
		 */
		public Builder leaseNamePrefix(String leaseNamePrefix) {
			this.leaseNamePrefix = leaseNamePrefix;
			return this;
		}

		/** The monotonic clock, for tests. */
		Builder nanoTime(LongSupplier nanoTime) {
			this.nanoTime = nanoTime;
			return this;
		}

		/** The wall clock for acquireTime and renewTime, for tests. */
		Builder wallClock(Clock wallClock) {
			this.wallClock = wallClock;
			return this;
		}

		/**
		 * Builds the coordinator.
		 * @return the coordinator
		 * @throws IllegalArgumentException naming the setting, its value and the fix, for the first bad setting
		 */
		public LeaseCoordinator build() {
			Duration lease = this.leaseDuration;
			if (lease == null) {
				throw new IllegalArgumentException("leaseDuration is not set; set it to the failover period, e.g. leaseDuration(Duration.ofSeconds(15))");
			}
			if (lease.isNegative() || lease.isZero()) {
				throw new IllegalArgumentException("leaseDuration " + lease + " must be positive; e.g. 15s");
			}
			if (lease.compareTo(Duration.ofSeconds(Integer.MAX_VALUE)) > 0) {
				throw new IllegalArgumentException("leaseDuration " + lease + " is longer than leaseDurationSeconds holds; use a shorter one");
			}
			Duration renew = (this.renewDeadline != null) ? this.renewDeadline : lease.multipliedBy(2).dividedBy(3);
			if (renew.isNegative() || renew.isZero()) {
				throw new IllegalArgumentException("renewDeadline " + renew + " must be positive; leave it unset for two thirds of the "
						+ "leaseDuration (" + lease.multipliedBy(2).dividedBy(3) + ")");
			}
			if (renew.compareTo(lease) >= 0) {
				throw new IllegalArgumentException("renewDeadline " + renew + " must be shorter than leaseDuration " + lease
						+ ": a holder must step down before another instance may take over; leave it unset for two thirds of the "
						+ "leaseDuration (" + lease.multipliedBy(2).dividedBy(3) + ")");
			}
			String prefix = this.leaseNamePrefix;
			// valid when a name can follow: the prefix and a letter form a DNS-1123 subdomain
			if (prefix == null || prefix.length() > MAX_PREFIX_LENGTH || !SUBDOMAIN.matcher(prefix + "x").matches()) {
				throw new IllegalArgumentException("leaseNamePrefix '" + prefix + "' cannot start a Kubernetes object name: use at most "
						+ MAX_PREFIX_LENGTH + " lower case letters, digits, '-' and '.', starting with a letter or digit, no '.' next to "
						+ "'-' or '.', e.g. '"
						+ DEFAULT_LEASE_NAME_PREFIX + "'");
			}
			String ns = this.namespace;
			if (ns == null) {
				ns = this.client.getNamespace();
				if (ns == null || ns.isBlank()) {
					throw new IllegalArgumentException("namespace is not set and the Kubernetes client has none configured; set it, e.g. "
							+ "namespace(\"my-namespace\"), or in a pod give the client its namespace (the service account's namespace "
							+ "file, or the Downward API's metadata.namespace)");
				}
			}
			if (ns.length() > 63 || !LABEL.matcher(ns).matches()) {
				throw new IllegalArgumentException("namespace '" + ns + "' is not a valid Kubernetes namespace: use at most 63 lower "
						+ "case letters, digits and '-', starting and ending with a letter or digit");
			}
			return new LeaseCoordinator(new Fabric8LeaseStore(this.client, ns, prefix), lease, renew, prefix, this.nanoTime,
					this.wallClock, Expiry.OBSERVED_CHANGE);
		}

	}

}
