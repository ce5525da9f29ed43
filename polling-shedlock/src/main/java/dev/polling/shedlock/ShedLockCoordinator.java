package dev.polling.shedlock;

import java.time.Duration;
import java.text.Normalizer;
import java.time.Instant;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.polling.core.ClusterCoordinator;
import dev.polling.core.ClusterDefinition;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.support.StorageBasedLockProvider;

/**
 * Coordinates clusters through a ShedLock {@link LockProvider}: one ShedLock lock per cluster, in
 * whatever store the provider uses (a database table, Redis, MongoDB, ...). The provider must be
 * able to extend a lock ({@link SimpleLock#extend}); {@link #verifyExtendSupport()} checks that at
 * start.
 *
 * <p>The mapping, for a cluster {@code id} and the failover period {@code F}:
 * <ul>
 * <li>lock name: the prefix ({@code polling-} by default) followed by the cluster id;</li>
 * <li>{@link #acquire} while this coordinator does not hold the lock:
 * {@code provider.lock(new LockConfiguration(now, name, lockAtMostFor = F, lockAtLeastFor = 0))};
 * a lock is a grant ({@code renewed = false}), none a refusal (holder unknown: {@code null}, epoch
 * and holder age {@code -1}); a storage-based provider's cache of existing records is cleared
 * first, so that a record the store lost is inserted again (ShedLock's {@code clearCache()});</li>
 * <li>{@link #acquire} while it holds the lock: {@code lock.extend(F, 0)}; a new lock is a renewed
 * grant (the new handle is kept), none means the lock was lost (a refusal);</li>
 * <li>{@link #release}: {@code unlock()} of the held lock;</li>
 * <li>the fencing token (epoch) is always {@code -1}: ShedLock has none, so the work of a cycle is
 * not fenced against a holder that lost the lock while it ran.</li>
 * </ul>
 *
 * <p><b>Local expiry.</b> For each lock it holds, the coordinator keeps a deadline on its own
 * monotonic clock: the time read <em>before</em> the lock or extend request was sent, plus
 * {@code F}, minus a safety margin of {@code min(F / 10, 1 s)}. The store's lease ends
 * {@code F} after it applied the request, so no later than the deadline plus the margin. Once the
 * deadline has passed (the process was frozen, a garbage collection paused it, the timer fell
 * behind), the coordinator forgets the lock <em>without</em> sending an extend or unlock and treats
 * the cluster as not held; an extend whose answer arrives after the deadline is not trusted either.
 * This matters because ShedLock's providers do not identify the holder of a lock well enough for a
 * late request: the JDBC providers match the owner by host name only ({@code locked_by}), so a late
 * extend or unlock from a frozen holder would extend or clear the lock of a new holder on the same
 * host; Redis without {@code safeUpdate} extends and deletes the key whoever holds it. The margin
 * must cover the time a request takes to reach the store. Configure the provider to check the owner
 * where it can (JDBC {@code withLockedByValue} unique per instance, Redis {@code safeUpdate(true)}):
 * a store that forgets its locks (Redis restarted without persistence) otherwise lets a former
 * holder's extend succeed on the new holder's lock, and both keep the cluster.
 *
 * <p>Faults of the store (any {@link RuntimeException} of the provider: ShedLock's
 * {@code LockException}, Spring's {@code DataAccessException}, Redis connection errors) are answered
 * with {@link Claim#unavailable(String)}, logged once per outage at WARN and once at INFO when the
 * store answers again. A lock held when an extend fails is kept until its local expiry, so a renewal
 * after a short outage keeps the cluster with its holder.
 *
 * <p>Lock names must stay distinct in the store: {@link #verifyLockNames} checks at start that no
 * two clusters' names differ only in case, accents, trailing spaces or after 64 characters, and a
 * cluster whose name collides with one decided before is refused as unavailable.
 *
 * <p>A holder that stops deciding loses the cluster to another instance at most {@code F} plus one
 * decision interval after its last renewal, also when the store forgot its lock. A frozen holder lets go when it resumes (its next
 * decision is refused), but the cycle it was running when it froze may overlap the new holder's
 * first cycle unless the work is fenced by other means.
 */
public final class ShedLockCoordinator implements ClusterCoordinator {

	private static final Logger logger = LoggerFactory.getLogger(ShedLockCoordinator.class);

	/** The lock name prefix used unless {@link Builder#lockNamePrefix(String)} says otherwise. */
	public static final String DEFAULT_LOCK_NAME_PREFIX = "polling-";

	/** The longest safety margin: a tenth of the failover period, at most this. */
	static final Duration MAX_SAFETY_MARGIN = Duration.ofSeconds(1);

	/**
	 * The width of the name column of ShedLock's documented tables ({@code name VARCHAR(64)}): a
	 * store may cut a longer name to it (MySQL without strict mode) or reject it.
	 */
	static final int STORE_NAME_WIDTH = 64;

	/** Name of the lock {@link #verifyExtendSupport()} takes, after the prefix. */
	static final String PROBE_LOCK = "extend-probe";

	private final LockProvider provider;

	/** The provider when it caches which lock records exist (ShedLock's storage-based providers), else null. */
	private final @Nullable StorageBasedLockProvider recordCaching;

	private final Duration failoverPeriod;

	private final String lockNamePrefix;

	private final long failoverNanos;

	private final long marginNanos;

	private final LongSupplier nanoTime;

	private final boolean localExpiryGuard;

	/** The locks this coordinator holds, by cluster and instance id. */
	private final Map<String, Held> held = new ConcurrentHashMap<>();

	/** The lock of each cluster this coordinator was asked about, with the collision that keeps it from the store. */
	private final Map<String, LockMapping> mappings = new ConcurrentHashMap<>();

	/** The cluster each store key (see {@link #storeKey}) was given to. */
	private final Map<String, String> clustersByStoreKey = new ConcurrentHashMap<>();

	/** The latest failure of each cluster's store requests, while they fail (logged once per outage). */
	private final Map<String, String> lastFailure = new ConcurrentHashMap<>();

	private volatile ExtendSupport extendSupport = ExtendSupport.UNKNOWN;

	private ShedLockCoordinator(Builder builder) {
		this.provider = builder.provider;
		this.recordCaching = (builder.provider instanceof StorageBasedLockProvider storageBased) ? storageBased : null;
		this.failoverPeriod = Objects.requireNonNull(builder.failoverPeriod);
		this.lockNamePrefix = builder.lockNamePrefix;
		this.failoverNanos = this.failoverPeriod.toNanos();
		this.marginNanos = safetyMargin(this.failoverPeriod).toNanos();
		this.nanoTime = builder.nanoTime;
		this.localExpiryGuard = builder.localExpiryGuard;
	}

	/**
	 * A builder of a coordinator that uses the provider's locks.
	 * @param provider the ShedLock lock provider; it must support extending a lock
	 * @return the builder
	 */
	public static Builder builder(LockProvider provider) {
		return new Builder(provider);
	}

	/**
	 * The safety margin subtracted from the failover period for the local expiry:
	 * {@code min(failoverPeriod / 10, 1 s)}.
	 * @param failoverPeriod the failover period
	 * @return the margin
	 */
	static Duration safetyMargin(Duration failoverPeriod) {
		Duration tenth = failoverPeriod.dividedBy(10);
		return (tenth.compareTo(MAX_SAFETY_MARGIN) < 0) ? tenth : MAX_SAFETY_MARGIN;
	}

	/**
	 * Checks that the provider can extend a lock, as renewing a hold needs: takes a probe lock
	 * ({@code <prefix>extend-probe}), extends it and unlocks it. When the store cannot be reached
	 * (or another instance holds the probe lock just now), it logs a warning and the check happens
	 * on the first grant instead.
	 * @throws IllegalStateException if the provider cannot extend a lock, naming the provider and
	 * the fix
	 */
	public void verifyExtendSupport() {
		if (this.extendSupport != ExtendSupport.UNKNOWN) {
			if (this.extendSupport == ExtendSupport.UNSUPPORTED) {
				throw new IllegalStateException(unsupportedMessage());
			}
			return;
		}
		String name = this.lockNamePrefix + PROBE_LOCK;
		SimpleLock lock;
		try {
			Optional<SimpleLock> taken = this.provider.lock(new LockConfiguration(Instant.now(), name, this.failoverPeriod, Duration.ZERO));
			if (taken.isEmpty()) {
				logger.warn("Could not check whether {} can extend a lock: the probe lock '{}' is held by another instance just now; "
						+ "checking on the first grant instead", providerName(), name);
				return;
			}
			lock = taken.get();
		}
		catch (RuntimeException ex) {
			logger.warn("Could not check whether {} can extend a lock: the store did not answer ({}); checking on the first grant "
					+ "instead", providerName(), String.valueOf(ex));
			return;
		}
		SimpleLock toUnlock = lock;
		try {
			Optional<SimpleLock> extended = lock.extend(this.failoverPeriod, Duration.ZERO);
			if (extended.isPresent()) {
				toUnlock = extended.get();
				this.extendSupport = ExtendSupport.SUPPORTED;
			}
			else {
				toUnlock = null;
				logger.warn("Could not check whether {} can extend a lock: the probe lock '{}' was lost at once; checking on the "
						+ "first grant instead", providerName(), name);
			}
		}
		catch (UnsupportedOperationException ex) {
			this.extendSupport = ExtendSupport.UNSUPPORTED;
			throw new IllegalStateException(unsupportedMessage(), ex);
		}
		catch (RuntimeException ex) {
			logger.warn("Could not check whether {} can extend a lock: the store did not answer ({}); checking on the first grant "
					+ "instead", providerName(), String.valueOf(ex));
		}
		finally {
			if (toUnlock != null) {
				unlockQuietly(toUnlock, name);
			}
		}
	}

	@Override
	public Claim acquire(ClusterDefinition cluster, String instanceId) {
		LockMapping mapping = mapping(cluster.id());
		if (mapping.collision() != null) {
			return Claim.unavailable(mapping.collision());
		}
		String key = key(cluster.id(), instanceId);
		String name = mapping.name();
		Held current = this.held.get(key);
		if (current != null && !lapsed(current, this.nanoTime.getAsLong())) {
			return renew(cluster.id(), instanceId, key, name, current);
		}
		if (current != null) {
			// the local deadline passed without a renewal: the store may have given the lock to another
			// instance (on this host), which a late extend or unlock would disturb; forget it unsent
			this.held.remove(key);
			logger.warn("Cluster '{}': this instance did not renew lock '{}' within the failover period ({} ms; frozen or "
					+ "paused?); it lets go without touching the lock and asks for it anew", cluster.id(), name,
					this.failoverPeriod.toMillis());
		}
		if (this.extendSupport == ExtendSupport.UNSUPPORTED) {
			return Claim.unavailable(unsupportedMessage());
		}
		long before = this.nanoTime.getAsLong();
		Optional<SimpleLock> lock;
		forgetCachedRecords();
		try {
			lock = this.provider.lock(new LockConfiguration(Instant.now(), name, this.failoverPeriod, Duration.ZERO));
		}
		catch (RuntimeException ex) {
			return failed(cluster.id(), "lock", ex);
		}
		answered(cluster.id());
		if (lock.isEmpty()) {
			return refused();
		}
		Held taken = new Held(lock.get(), before + this.failoverNanos - this.marginNanos);
		if (lapsed(taken, this.nanoTime.getAsLong())) {
			// the answer took longer than the lease minus the margin: too late to act on, left to expire
			logger.warn("Cluster '{}': lock '{}' was granted only after its local expiry; not acted on", cluster.id(), name);
			return refused();
		}
		if (this.extendSupport == ExtendSupport.UNKNOWN) {
			// not verified at start (the store was unreachable then): find out now, before acting on the grant
			return probeOnFirstGrant(cluster.id(), instanceId, key, name, taken);
		}
		this.held.put(key, taken);
		return granted(instanceId, false);
	}

	private Claim renew(String clusterId, String instanceId, String key, String name, Held current) {
		long before = this.nanoTime.getAsLong();
		Optional<SimpleLock> extended;
		try {
			extended = current.lock().extend(this.failoverPeriod, Duration.ZERO);
		}
		catch (UnsupportedOperationException ex) {
			return unsupported(clusterId, key, name, current.lock());
		}
		catch (RuntimeException ex) {
			// kept until its local expiry: a renewal after a short outage keeps the cluster here
			return failed(clusterId, "extend", ex);
		}
		answered(clusterId);
		this.extendSupport = ExtendSupport.SUPPORTED;
		if (extended.isEmpty()) {
			this.held.remove(key);
			logger.info("Cluster '{}': lock '{}' could not be extended: the store no longer has it for this instance", clusterId, name);
			return refused();
		}
		if (lapsed(current, this.nanoTime.getAsLong())) {
			// answered after the deadline: the store may have applied it after the lease ended, to another
			// instance's lock under the same owner name; not trusted, and not touched again
			this.held.remove(key);
			logger.warn("Cluster '{}': the extension of lock '{}' answered after its local expiry; not trusted, this instance "
					+ "lets go", clusterId, name);
			return refused();
		}
		this.held.put(key, new Held(extended.get(), before + this.failoverNanos - this.marginNanos));
		return granted(instanceId, true);
	}

	private Claim probeOnFirstGrant(String clusterId, String instanceId, String key, String name, Held taken) {
		long before = this.nanoTime.getAsLong();
		Optional<SimpleLock> extended;
		try {
			extended = taken.lock().extend(this.failoverPeriod, Duration.ZERO);
		}
		catch (UnsupportedOperationException ex) {
			return unsupported(clusterId, key, name, taken.lock());
		}
		catch (RuntimeException ex) {
			// the lock itself was granted; the check is repeated at the next renewal
			this.held.put(key, taken);
			return granted(instanceId, false);
		}
		this.extendSupport = ExtendSupport.SUPPORTED;
		if (extended.isEmpty() || lapsed(taken, this.nanoTime.getAsLong())) {
			this.held.remove(key);
			return refused();
		}
		this.held.put(key, new Held(extended.get(), before + this.failoverNanos - this.marginNanos));
		return granted(instanceId, false);
	}

	private Claim unsupported(String clusterId, String key, String name, SimpleLock lock) {
		boolean first = this.extendSupport != ExtendSupport.UNSUPPORTED;
		this.extendSupport = ExtendSupport.UNSUPPORTED;
		this.held.remove(key);
		unlockQuietly(lock, name);
		if (first) {
			logger.error("Cluster '{}': {}", clusterId, unsupportedMessage());
		}
		return Claim.unavailable(unsupportedMessage());
	}

	@Override
	public void release(ClusterDefinition cluster, String instanceId) {
		Held current = this.held.remove(key(cluster.id(), instanceId));
		if (current == null) {
			return;
		}
		String name = lockName(cluster.id());
		if (lapsed(current, this.nanoTime.getAsLong())) {
			logger.info("Cluster '{}': lock '{}' expired locally before the release; not unlocked (another instance may hold it "
					+ "by now)", cluster.id(), name);
			return;
		}
		try {
			current.lock().unlock();
		}
		catch (RuntimeException ex) {
			logger.warn("Cluster '{}': could not unlock '{}' in {} ({}); another instance takes over after the failover period",
					cluster.id(), name, describe(), String.valueOf(ex));
		}
	}

	@Override
	public String describe() {
		return "ShedLock " + providerName() + ", locks '" + this.lockNamePrefix + "*'";
	}

	/** The failover period: how long a lock lasts without renewal ({@code lockAtMostFor}). */
	public Duration failoverPeriod() {
		return this.failoverPeriod;
	}

	/** The prefix of the lock names. */
	public String lockNamePrefix() {
		return this.lockNamePrefix;
	}

	/**
	 * The lock name of a cluster.
	 * @param clusterId the cluster
	 * @return the prefix followed by the cluster id
	 */
	public String lockName(String clusterId) {
		return this.lockNamePrefix + clusterId;
	}

	/**
	 * Makes a storage-based provider check again whether a lock's record exists. ShedLock's
	 * storage-based providers (JDBC, JdbcTemplate, jOOQ, ...) remember which lock records they have
	 * seen and from then on only update the record; when the store loses it (the row deleted, the
	 * table truncated or restored) nobody could take the lock again until the provider's cache let
	 * go of the name. Before every lock request (a holder extends instead) the coordinator clears
	 * that cache ({@link StorageBasedLockProvider#clearCache()}), so the request first tries to
	 * insert the record: a lock the store forgot is taken again at the next decision of any
	 * instance that asks. The price is one more statement per lock request of an instance that
	 * does not hold the cluster (an insert that finds the record, before the update).
	 */
	private void forgetCachedRecords() {
		if (this.recordCaching != null) {
			this.recordCaching.clearCache();
		}
	}

	/**
	 * Checks that the clusters get locks no store can take for one: their lock names must differ
	 * in more than letter case, accents and trailing spaces (MySQL's and SQL Server's default
	 * collations ignore them) and within the first {@value #STORE_NAME_WIDTH} characters (the
	 * width of ShedLock's table, where a store may cut a name). Clusters that would share a lock
	 * would exclude each other, each running only while the other is not held. Call it at start
	 * with every cluster this coordinator (or another on the same store and prefix) decides; a
	 * cluster whose lock collides with one decided before is also refused at its first decision
	 * ({@link Claim#unavailable}, logged once at ERROR).
	 * @param clusterIds the cluster ids
	 * @throws IllegalStateException naming the first two clusters whose locks collide, and the fix
	 */
	public void verifyLockNames(Collection<String> clusterIds) {
		Map<String, String> byStoreKey = new LinkedHashMap<>();
		for (String clusterId : clusterIds) {
			String other = byStoreKey.putIfAbsent(storeKey(lockName(clusterId)), clusterId);
			if (other != null && !other.equals(clusterId)) {
				throw new IllegalStateException(collisionMessage(other, clusterId));
			}
		}
	}

	private LockMapping mapping(String clusterId) {
		LockMapping known = this.mappings.get(clusterId);
		if (known != null) {
			return known;
		}
		String name = lockName(clusterId);
		String other = this.clustersByStoreKey.putIfAbsent(storeKey(name), clusterId);
		String collision = (other == null || other.equals(clusterId)) ? null : collisionMessage(other, clusterId);
		LockMapping mapping = new LockMapping(name, collision);
		if (this.mappings.putIfAbsent(clusterId, mapping) == null && collision != null) {
			logger.error("Cluster '{}': {}; this cluster is never granted", clusterId, collision);
		}
		return this.mappings.get(clusterId);
	}

	/**
	 * What a store may make of a lock name: cut to {@value #STORE_NAME_WIDTH} characters, without
	 * trailing spaces, accents and letter case. Two names with the same key may be one lock.
	 */
	static String storeKey(String lockName) {
		String cut = lockName.codePoints()
			.limit(STORE_NAME_WIDTH)
			.collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append)
			.toString();
		String unaccented = Normalizer.normalize(cut, Normalizer.Form.NFKD).replaceAll("\\p{M}", "");
		return unaccented.toLowerCase(Locale.ROOT).stripTrailing();
	}

	private String collisionMessage(String first, String second) {
		return "clusters '" + first + "' and '" + second + "' would share one ShedLock lock: their lock names '" + lockName(first)
				+ "' and '" + lockName(second) + "' differ only in letter case, accents, trailing spaces or after the first "
				+ STORE_NAME_WIDTH + " characters, which stores ignore (MySQL's and SQL Server's default collations compare "
				+ "without case and accents; ShedLock's table holds " + STORE_NAME_WIDTH + " characters); rename one of the "
				+ "clusters (its id) so that the names differ in their first " + STORE_NAME_WIDTH + " characters beyond case and "
				+ "accents";
	}

	private boolean lapsed(Held held, long now) {
		return this.localExpiryGuard && now - held.expiresAt() >= 0;
	}

	private Claim failed(String clusterId, String request, RuntimeException ex) {
		String failure = describe() + ": " + request + " of lock '" + lockName(clusterId) + "' failed: " + describe(ex);
		if (this.lastFailure.put(clusterId, failure) == null) {
			logger.warn("Cluster '{}': {}; refusing until the store answers", clusterId, failure, ex);
		}
		return Claim.unavailable(failure);
	}

	/** The exception and its root cause, which often says more (connection refused). */
	private static String describe(Throwable ex) {
		Throwable root = ex;
		while (root.getCause() != null && root.getCause() != root) {
			root = root.getCause();
		}
		return (root == ex) ? String.valueOf(ex) : ex + " (" + root + ")";
	}

	private void answered(String clusterId) {
		if (this.lastFailure.remove(clusterId) != null) {
			logger.info("Cluster '{}': {} answers again", clusterId, describe());
		}
	}

	private void unlockQuietly(SimpleLock lock, String name) {
		try {
			lock.unlock();
		}
		catch (RuntimeException ex) {
			logger.warn("Could not unlock '{}' in {} ({}); it expires after the failover period", name, describe(), String.valueOf(ex));
		}
	}

	private String unsupportedMessage() {
		return "The ShedLock provider " + this.provider.getClass().getName() + " cannot extend a lock (SimpleLock.extend throws "
				+ "UnsupportedOperationException), and the polling coordinator renews the hold of a cluster by extending its lock. "
				+ "Use a provider that can (one implementing ShedLock's ExtensibleLockProvider, e.g. JdbcTemplateLockProvider, "
				+ "RedisLockProvider, MongoLockProvider), or another coordination (jdbc)";
	}

	private String providerName() {
		return this.provider.getClass().getSimpleName();
	}

	private static Claim granted(String instanceId, boolean renewed) {
		return new Claim(true, renewed, instanceId, -1, -1, null);
	}

	private static Claim refused() {
		return new Claim(false, false, null, -1, -1, null);
	}

	private static String key(String clusterId, String instanceId) {
		return clusterId + '\u0000' + instanceId;
	}

	/** The lock name of a cluster, and why it is not used (another cluster's lock may be the same), or null. */
	private record LockMapping(String name, @Nullable String collision) {
	}

	/** A lock this coordinator holds and its local expiry (monotonic nanos). */
	private record Held(SimpleLock lock, long expiresAt) {
	}

	private enum ExtendSupport {

		UNKNOWN, SUPPORTED, UNSUPPORTED

	}

	/**
	 * Builds a {@link ShedLockCoordinator}: the failover period is required.
	 */
	public static final class Builder {

		private final LockProvider provider;

		private @Nullable Duration failoverPeriod;

		private String lockNamePrefix = DEFAULT_LOCK_NAME_PREFIX;

		private LongSupplier nanoTime = System::nanoTime;

		private boolean localExpiryGuard = true;

		private Builder(LockProvider provider) {
			if (provider == null) {
				throw new IllegalArgumentException("provider is null; pass the application's ShedLock LockProvider, e.g. "
						+ "new JdbcTemplateLockProvider(...)");
			}
			this.provider = provider;
		}

		/**
		 * How long a lock lasts without renewal ({@code lockAtMostFor}): a holder that stops deciding
		 * loses the cluster after it. Required; longer than the longest interval between two decisions
		 * of the holder (the timer delay plus a cycle).
		 * @param failoverPeriod the period, positive
		 * @return this builder
		 */
		public Builder failoverPeriod(Duration failoverPeriod) {
			if (failoverPeriod == null || failoverPeriod.isNegative() || failoverPeriod.isZero()) {
				throw new IllegalArgumentException("failoverPeriod " + failoverPeriod + " must be positive; e.g. the cluster's "
						+ "wait time (twice the timer delay), 30s");
			}
			this.failoverPeriod = failoverPeriod;
			return this;
		}

		/**
		 * The prefix of the lock names, {@value ShedLockCoordinator#DEFAULT_LOCK_NAME_PREFIX} by default: the lock
		 * of a cluster is named prefix + cluster id.
		 * @param lockNamePrefix the prefix, may be empty
		 * @return this builder
		 */
		public Builder lockNamePrefix(String lockNamePrefix) {
			if (lockNamePrefix == null || lockNamePrefix.chars().anyMatch(Character::isWhitespace)) {
				throw new IllegalArgumentException("lockNamePrefix " + ((lockNamePrefix == null) ? "null" : "'" + lockNamePrefix + "'")
						+ " must be a string without whitespace; e.g. '" + DEFAULT_LOCK_NAME_PREFIX + "' (the default)");
			}
			this.lockNamePrefix = lockNamePrefix;
			return this;
		}

		/** For tests: the monotonic clock of the local expiry, {@code System::nanoTime} by default. */
		Builder nanoTime(LongSupplier nanoTime) {
			this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
			return this;
		}

		/** For tests only: without the local expiry guard, to show that the tests catch its absence. */
		Builder withoutLocalExpiryGuard() {
			this.localExpiryGuard = false;
			return this;
		}

		/**
		 * Builds the coordinator.
		 * @return the coordinator
		 * @throws IllegalStateException if the failover period is not set
		 */
		public ShedLockCoordinator build() {
			if (this.failoverPeriod == null) {
				throw new IllegalStateException("failoverPeriod is not set; set it to how long a lock lasts without renewal "
						+ "(lockAtMostFor), e.g. the cluster's wait time");
			}
			return new ShedLockCoordinator(this);
		}

	}

}
