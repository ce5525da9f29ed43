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
 * <p>A process is fresh until it has looked at the Lease for one lease duration (counted from its first
 * successful read): while fresh it takes no Lease, a free one included, before it has seen it unchanged
 * for that long, and a missing Lease is created as its reservation (no renewTime), taken only once it
 * has stood that long. A Lease deleted under a running holder, or put back from an older copy, may
 * hide a holder that still acts on its grant; a holder inside its renew deadline takes such a
 * reservation back at its next decision. The cost: the first start of an application (every instance
 * fresh, or no Lease yet) waits one lease duration before the first cycle.
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

	/** What this coordinator has seen of each cluster's Lease, whichever instance id it decided for. */
	private final Map<String, Fence> fences = new ConcurrentHashMap<>();

	/** The cluster id each lease name was first asked for: two ids on one Lease are refused. */
	private final Map<String, String> clusterOfLease = new ConcurrentHashMap<>();

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

	/**
	 * Checks that distinct cluster ids get distinct Lease names with the prefix.
	 * @param prefix the lease name prefix
	 * @param clusterIds the cluster ids
	 * @throws IllegalArgumentException naming the first two ids that share a Lease name
	 */
	static void checkLeaseNames(String prefix, java.util.Collection<String> clusterIds) {
		Map<String, String> byName = new java.util.HashMap<>();
		for (String id : clusterIds) {
			String name = leaseName(prefix, id);
			String other = byName.putIfAbsent(name, id);
			if (other != null && !other.equals(id)) {
				throw new IllegalArgumentException("cluster ids '" + other + "' and '" + id + "' map to the same Lease name '" + name
						+ "' (an id that is no DNS-1123 name is sanitized and gets a hash suffix, which another id can equal); "
						+ "rename one of them");
			}
		}
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
		String shared = sharedLease(cluster.id(), name);
		if (shared != null) {
			return Claim.unavailable(shared);
		}
		String key = key(cluster.id(), instanceId);
		Fence fence = this.fences.computeIfAbsent(cluster.id(), (k) -> new Fence());
		Hold hold = this.holds.computeIfAbsent(key, (k) -> new Hold(fence));
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

	/**
	 * Null when the lease name is this cluster's alone; otherwise why the cluster is refused: another
	 * cluster id maps to the same Lease (logged once).
	 */
	private @Nullable String sharedLease(String cluster, String name) {
		String first = this.clusterOfLease.putIfAbsent(name, cluster);
		if (first == null || first.equals(cluster)) {
			return null;
		}
		String failure = "cluster ids '" + first + "' and '" + cluster + "' map to the same Lease " + name + " ("
				+ this.store.describe() + "); rename one of them: cluster '" + cluster + "' is not coordinated";
		if (this.lastFailure.put(key(cluster, name), failure) == null) {
			this.logger.error("Cluster '{}': {}", cluster, failure);
		}
		return failure;
	}

	private Claim acquire(Hold hold, String name, String instanceId) throws StoreFault {
		Fence fence = hold.fence;
		long sent = this.nanoTime.getAsLong();
		Observed lease = this.store.get(name);
		long received = this.nanoTime.getAsLong();
		boolean heldByThis = heldByThis(hold, instanceId, received);
		observe(hold, name, lease, (this.expiry == Expiry.CHANGE_FROM_READ_SENT) ? sent : received);
		// fresh: this process has looked at the Lease for less than a lease duration, so a holder it has not seen
		// (of a Lease deleted, or replaced by an older copy, just before) may still act on its grant
		boolean fresh = received - fence.firstLook(received) < Math.max(this.leaseNanos, fence.longestNanos());
		if (lease == null) {
			return absent(hold, fence, name, instanceId, heldByThis);
		}
		LeaseRecord record = lease.record();
		long age = ageMillis(hold, received);
		boolean own = isOwn(record, instanceId, hold);
		if (hold.pending) {
			if (!own) {
				hold.pending = false;
			}
			else if (!hold.pendingKnown || received - hold.pendingSince < hold.pendingNanos) {
				// this instance's reservation of a re-created Lease (its create's answer lost: counted from now)
				if (!hold.pendingKnown) {
					hold.pendingKnown = true;
					hold.pendingSince = received;
				}
				return new Claim(false, false, null, -1, age, null);
			}
			else {
				// reserved long enough: taken below like this process's own record that it does not hold
				hold.pending = false;
			}
		}
		if (!own && heldByThis && ((record.holder() != null && record.renewTime() == null)
				|| (record.transitions() < fence.highest() && received - hold.renewedAt < durationNanos(record)))) {
			// this holder's Lease, deleted and re-created as another instance's reservation, or restored from a
			// backup: nobody acts on either, so the holder takes it back at once with the next epoch. Any record
			// this holder finds was written after its last successful write; a takeover by another instance
			// (also of a reservation, by a process that knew no token) comes at least the lease duration it
			// writes after that. So a record with fewer transitions than seen that is younger than its own
			// leaseDurationSeconds (counted from this holder's last write) is a restored copy; an older one may
			// be a takeover while this holder, with a longer lease duration, was still inside its renew
			// deadline: it waits like any holder's record, and this instance steps down
			long send = this.nanoTime.getAsLong();
			Instant now = wallNow();
			long epoch = Math.max(record.transitions(), fence.highest()) + 1;
			// a new grant: not holding until it is answered (an unanswered one is not renewed)
			hold.holding = false;
			hold.ownEpoch = epoch;
			this.logger.info("Lease {} was replaced while this instance held it (re-created by {} after a delete, or restored, "
					+ "leaseTransitions {}); taking it back with leaseTransitions {}", name, record.holder(), record.transitions(), epoch);
			return write(hold, name, lease.resourceVersion(), new LeaseRecord(instanceId, durationSeconds(), now, now, epoch), false,
					age, send);
		}
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
		// a record with fewer transitions than seen (restored from a backup, also one its holder had released)
		// is not a release by the current holder: it waits like a holder's
		if (!own && (record.holder() != null || record.transitions() < fence.highest() || fresh) && !expired(hold, record, received, fresh)) {
			return new Claim(false, false, record.holder(), record.transitions(), age, null);
		}
		long send = this.nanoTime.getAsLong();
		Instant now = wallNow();
		// above the Lease's own and above every token this coordinator has seen for the cluster: a Lease
		// re-created with fewer transitions does not take the token back
		long epoch = Math.max(record.transitions(), fence.highest()) + 1;
		hold.ownEpoch = epoch;
		return write(hold, name, lease.resourceVersion(), new LeaseRecord(instanceId, durationSeconds(), now, now, epoch), false, age,
				send);
	}

	/**
	 * Whether another holder's record has expired: seen unchanged for the lease duration that holder
	 * wrote (its leaseDurationSeconds, not this instance's setting: during a rolling change of the
	 * lease duration a holder with a longer one is inside its renew deadline for longer). Two kinds of
	 * record were not written by a holder taking over from the one before, which may act on its grant
	 * for as long as it wrote: a reservation (written after a delete, without renewTime) and a record
	 * with fewer transitions than this coordinator has seen (deleted and re-created, or restored from a
	 * backup). For those the longest lease duration seen for the cluster counts, and this instance's own;
	 * also for any record, a released one included, while this process is fresh (has looked at the Lease
	 * for less than that long): it cannot tell a release from an older copy put back.
	 */
	private boolean expired(Hold hold, LeaseRecord record, long received, boolean fresh) {
		long duration = durationNanos(record);
		if (fresh || record.renewTime() == null || record.transitions() < hold.fence.highest()) {
			duration = Math.max(duration, Math.max(this.leaseNanos, hold.fence.longestNanos()));
		}
		if (this.expiry == Expiry.WALL_CLOCK_RENEW_TIME) {
			Instant renewed = (record.renewTime() != null) ? record.renewTime() : record.acquireTime();
			return renewed == null || Duration.between(renewed, wallNow()).compareTo(Duration.ofNanos(duration)) >= 0;
		}
		return received - hold.seenSince >= duration;
	}

	/** The lease duration a record's writer set, this instance's own when the record has none. */
	private long durationNanos(LeaseRecord record) {
		return (record.durationSeconds() > 0) ? record.durationSeconds() * 1_000_000_000L : this.leaseNanos;
	}

	/**
	 * The lease is gone. Created and held at once only when the last version this process saw is its
	 * own grant, still inside the renew deadline (deleted under the holder: nobody else can have been
	 * granted the lease since). Otherwise a holder this process did not see may still act on a grant
	 * written just before the delete, also when this process has never seen the Lease at all (its first
	 * start, or a start after the Lease was deleted under a running holder): the lease is re-created as
	 * this instance's reservation, written with the longest lease duration this coordinator knows of for
	 * the cluster (its own at least), and taken (with the next epoch) only once it has been there that
	 * long. Waiting for the absence itself to last would not do: absent twice is not "absent in
	 * between", a Lease created and deleted again between two reads leaves no trace, while a
	 * reservation has a resourceVersion that every other instance waits on, and that a holder inside its
	 * renew deadline takes back at once.
	 */
	private Claim absent(Hold hold, Fence fence, String name, String instanceId, boolean heldByThis) throws StoreFault {
		LeaseRecord last = hold.lastPresent;
		boolean reserve = !heldByThis;
		long wait = Math.max(this.leaseNanos, fence.longestNanos());
		long highest = fence.highest();
		long epoch = (highest >= 0) ? highest + 1 : 0;
		long send = this.nanoTime.getAsLong();
		Instant now = wallNow();
		hold.holding = false;
		hold.ownEpoch = epoch;
		// set before the create: if its answer is lost, the next read still sees a reservation, not a grant
		hold.pending = reserve;
		hold.pendingKnown = false;
		hold.pendingNanos = wait;
		// a reservation has no renewTime: every instance waits on it for the longest lease duration it knows of
		LeaseRecord record = reserve ? new LeaseRecord(instanceId, seconds(wait), now, null, epoch)
				: new LeaseRecord(instanceId, durationSeconds(), now, now, epoch);
		Write write = this.store.create(name, record);
		if (write.isConflict()) {
			hold.pending = false;
			return granted(hold, name, write, false, -1, send, instanceId);
		}
		if (reserve) {
			long answered = this.nanoTime.getAsLong();
			observe(hold, name, Objects.requireNonNull(write.written()), answered);
			hold.pendingKnown = true;
			hold.pendingSince = answered;
			if (highest < 0) {
				this.logger.warn("Lease {} did not exist and this instance has not seen it before; created it naming this instance with "
						+ "leaseTransitions 0 and takes it once it has stood for {} ms (a holder of a Lease deleted just before may act "
						+ "until then). This instance knows no earlier fencing token of the cluster: if a Lease of it existed before "
						+ "(deleted, or not restored with the namespace), tokens start again at 0, below ones handed out before (see "
						+ "docs/kubernetes.md, Fencing token)", name, wait / 1_000_000L);
			}
			else {
				this.logger.warn("Lease {} was deleted (last seen with holder {} and leaseTransitions {}); re-created it naming this "
						+ "instance with leaseTransitions {}, above the highest this instance has seen, and takes it once it has stood for "
						+ "{} ms (a holder this instance did not see may act until then). A holder change after this instance's last read "
						+ "of the Lease is not known here: its token may be as high (see docs/kubernetes.md, Fencing token)", name,
						(last != null && last.holder() != null) ? last.holder() : "none", (last != null) ? last.transitions() : -1, epoch,
						wait / 1_000_000L);
			}
			return new Claim(false, false, null, -1, 0, null);
		}
		this.logger.info("Lease {} was deleted while this instance held it; re-created it with leaseTransitions {}", name, epoch);
		return granted(hold, name, write, false, -1, send, instanceId);
	}

	/**
	 * Whether this process holds the lease and the last version of it that it saw before this read is
	 * its own grant, still inside the renew deadline: then nobody else can have been granted the lease
	 * since. Not after a release or step-down, even if its write was not answered (a release is sent
	 * before it is answered, and another instance may take the lease at once).
	 */
	private boolean heldByThis(Hold hold, String instanceId, long received) {
		LeaseRecord last = hold.lastPresent;
		return hold.holding && last != null && !hold.pending && hold.granted && isOwn(last, instanceId, hold)
				&& received - hold.renewedAt < this.renewNanos;
	}

	private static int seconds(long nanos) {
		return (int) Math.min(Integer.MAX_VALUE, (nanos + 999_999_999L) / 1_000_000_000L);
	}

	private Claim write(Hold hold, String name, String resourceVersion, LeaseRecord record, boolean renewing, long age, long send)
			throws StoreFault {
		// a fault may hide an applied write: the lease then names this process with the epoch it remembers,
		// which the next decision recognises as its own
		Write write = this.store.update(name, resourceVersion, record);
		return granted(hold, name, write, renewing, age, send, Objects.requireNonNull(record.holder()));
	}

	private Claim granted(Hold hold, String name, Write write, boolean renewing, long age, long send, String instanceId) {
		long received = this.nanoTime.getAsLong();
		if (write.isConflict()) {
			// another instance wrote first: it holds the lease now, or released it; the next decision reads which.
			// A renewal's conflict leaves this holder's grant as it was (still its own inside the renew deadline
			// for the next read): nobody can have taken the Lease over inside it, so what replaced the Lease was
			// a delete, a reservation or a restored copy, which that read takes back
			if (!renewing) {
				hold.holding = false;
			}
			return new Claim(false, false, null, -1, -1, null);
		}
		Observed written = Objects.requireNonNull(write.written());
		observe(hold, name, written, received);
		if (received - send >= this.renewNanos) {
			hold.holding = false;
			return Claim.unavailable(this.store.describe() + " answered the write of the lease after " + (received - send) / 1_000_000L
					+ " ms, later than the renew deadline of " + this.renewDeadline.toMillis() + " ms; not acting on it");
		}
		hold.holding = true;
		hold.granted = true;
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
			observe(hold, name, written, this.nanoTime.getAsLong());
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
			if (hold.pending) {
				// a reservation is left to expire: cleared, it would be free at once while a holder this
				// instance did not see may still act on its grant
				hold.pending = false;
				hold.ownEpoch = -1;
				return;
			}
			if (!hold.holding && hold.ownEpoch < 0) {
				return;
			}
			hold.holding = false;
			String name = leaseName(cluster.id());
			try {
				// the lease as last written; read anew if a write since may have been applied unanswered
				Observed lease = (hold.held != null && isOwn(hold.held.record(), instanceId, hold)) ? hold.held : read(hold, name);
				for (int attempt = 0; attempt < 2 && lease != null && isOwn(lease.record(), instanceId, hold); attempt++) {
					Write write = this.store.update(name, lease.resourceVersion(), cleared(lease.record()));
					if (!write.isConflict()) {
						hold.ownEpoch = -1;
						observe(hold, name, Objects.requireNonNull(write.written()), this.nanoTime.getAsLong());
						break;
					}
					lease = read(hold, name);
				}
				answered(cluster.id(), key);
			}
			catch (StoreFault ex) {
				this.logger.warn("Cluster '{}': could not release Lease {} ({}); another instance takes over once it has seen it unchanged "
						+ "for the lease duration of {} ms", cluster.id(), name, ex.getMessage(), this.leaseDuration.toMillis());
			}
		}
	}

	/**
	 * Reads the lease for a release and notes what it shows like any other read: a token seen only here
	 * (another instance's grant, found when this process releases a lease it no longer holds) must still
	 * keep this process's later grants above it.
	 */
	private @Nullable Observed read(Hold hold, String name) throws StoreFault {
		Observed lease = this.store.get(name);
		observe(hold, name, lease, this.nanoTime.getAsLong());
		return lease;
	}

	/**
	 * Whether a lease names this instance as written by this process (not by another process with the
	 * same id), and is not an older copy of such a write put back (restored from a backup) after a
	 * higher token was seen: then another instance was granted the Lease since, and may hold it still.
	 */
	private static boolean isOwn(LeaseRecord record, String instanceId, Hold hold) {
		return instanceId.equals(record.holder()) && hold.ownEpoch >= 0 && hold.ownEpoch == record.transitions()
				&& record.transitions() >= hold.fence.highest();
	}

	@Override
	public String describe() {
		return this.store.describe();
	}

	/**
	 * Notes a lease as read or written: when its version (or its absence) was first seen, its token and
	 * lease duration; logs a token that went back and a lease duration other than this instance's, once.
	 */
	private void observe(Hold hold, String name, @Nullable Observed lease, long received) {
		String version = (lease != null) ? lease.resourceVersion() : ABSENT;
		if (!version.equals(hold.seenVersion)) {
			hold.seenVersion = version;
			hold.seenSince = received;
		}
		if (lease == null) {
			return;
		}
		LeaseRecord record = lease.record();
		hold.lastPresent = record;
		Fence observer = hold.fence;
		long highest = observer.observe(record.transitions(), durationNanos(record));
		if (record.transitions() < highest && observer.firstResetBelow(highest)) {
			this.logger.warn("Lease {}: leaseTransitions went back from {} (the highest this instance has seen) to {}, holder {}: the "
					+ "Lease was deleted and re-created, or restored from a backup; the holder's fencing token is below one handed out "
					+ "before. This instance's next grant uses {} (see docs/kubernetes.md, Fencing token)", name, highest,
					record.transitions(), (record.holder() != null) ? record.holder() : "none", highest + 1);
		}
		if (record.holder() != null && record.durationSeconds() != durationSeconds() && observer.firstDuration(record.durationSeconds())) {
			this.logger.warn("Lease {}: holder {} wrote leaseDurationSeconds {}, this instance's lease duration is {} s (instances with "
					+ "different lease durations, e.g. during a rolling change of it); a holder is taken over only once its Lease has "
					+ "been seen unchanged for the duration it wrote", name, record.holder(), record.durationSeconds(),
					durationSeconds());
		}
	}

	/** The version noted for a lease that is not there. */
	private static final String ABSENT = "\u0000absent";

	private static long ageMillis(Hold hold, long now) {
		return (hold.seenVersion != null) ? Math.max(0, (now - hold.seenSince) / 1_000_000L) : -1;
	}

	private int durationSeconds() {
		return seconds(this.leaseNanos);
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

		/** What the coordinator has seen of the cluster's lease. */
		final Fence fence;

		Hold(Fence fence) {
			this.fence = fence;
		}

		/** The resource version last observed, null when none or the lease was absent. */
		@Nullable String seenVersion;

		/** When {@link #seenVersion} was first observed (local monotonic nanos, on receipt of the answer). */
		long seenSince;

		/** Whether this process holds the lease. */
		boolean holding;

		/** When the last successful write making this process the holder was sent (local monotonic nanos). */
		long renewedAt;

		/** Whether this process has held the lease at all ({@link #renewedAt} is set). */
		boolean granted;

		/** The lease as last read or written, null before one was seen. */
		@Nullable LeaseRecord lastPresent;

		/** Whether the lease is this process's reservation: re-created by it after a delete, not yet taken. */
		boolean pending;

		/** Whether {@link #pendingSince} is known (the create was answered, or a read saw the reservation since). */
		boolean pendingKnown;

		/** When the reservation was seen in place (local monotonic nanos, on receipt of the answer). */
		long pendingSince;

		/** How long the reservation must stand before this process takes it. */
		long pendingNanos;

		/** The lease as this process last wrote it while holding. */
		@Nullable Observed held;

		/**
		 * The epoch of the last write that named this process holder, confirmed or not (its answer may
		 * be lost); -1 after a release. A lease naming this instance's id with another epoch was written
		 * by another process with the same id, or by this instance before a restart.
		 */
		long ownEpoch = -1;

	}

	/**
	 * The fencing tokens and lease durations this coordinator has seen for one cluster, and what it has
	 * logged about them; guarded by itself.
	 */
	private static final class Fence {

		private long highest = -1;

		private long longestNanos;

		private long resetLoggedBelow = -1;

		private long firstLook;

		private boolean looked;

		private final java.util.Set<Integer> durationsLogged = new java.util.HashSet<>();

		synchronized long highest() {
			return this.highest;
		}

		synchronized long longestNanos() {
			return this.longestNanos;
		}

		/** Notes a token and a lease duration read; returns the highest token before this one. */
		synchronized long observe(long transitions, long durationNanos) {
			long before = this.highest;
			this.highest = Math.max(this.highest, transitions);
			this.longestNanos = Math.max(this.longestNanos, durationNanos);
			return Math.max(before, transitions);
		}

		/** Whether a token below the given highest is the first one seen below it (logged once per reset). */
		synchronized boolean firstResetBelow(long highest) {
			if (this.resetLoggedBelow == highest) {
				return false;
			}
			this.resetLoggedBelow = highest;
			return true;
		}

		/** When this coordinator first read the cluster's Lease (or found none): the given time at the first call. */
		synchronized long firstLook(long now) {
			if (!this.looked) {
				this.looked = true;
				this.firstLook = now;
			}
			return this.firstLook;
		}

		/** Whether a lease duration other than this instance's is seen for the first time (logged once per value, 16 at most). */
		synchronized boolean firstDuration(int seconds) {
			return this.durationsLogged.size() < 16 && this.durationsLogged.add(seconds);
		}

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

		private final java.util.List<String> clusterIds = new java.util.ArrayList<>();

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

		/**
		 * The ids of the clusters this coordinator (and any other with the same namespace and prefix)
		 * will coordinate: {@link #build()} fails when two of them map to the same Lease name. A cluster
		 * not given here is checked at its first decision (refused, naming both ids).
		 * @param clusterIds the cluster ids
		 * @return this builder
		 */
		public Builder clusterIds(java.util.Collection<String> clusterIds) {
			clusterIds.forEach((id) -> this.clusterIds.add(Objects.requireNonNull(id, "cluster id must not be null")));
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
			checkLeaseNames(prefix, this.clusterIds);
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
