package dev.polling.jdbc.coordination;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.polling.core.ClusterCoordinator;
import dev.polling.core.ClusterDefinition;
import dev.polling.core.PollingManager;
import dev.polling.jdbc.HoldCheck;
import dev.polling.jdbc.DatabaseStatus;
import dev.polling.jdbc.DatabaseTime;
import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.TableNames;
import dev.polling.jdbc.internal.DialectSql;

/**
 * Coordinates clusters through one row per cluster in {@code <prefix>coordination}: holder, epoch
 * and last run in database time. Each decision is one short transaction of its own (never the
 * caller's, never held open across a cycle): it locks the row, and takes it if this instance holds
 * it, nobody does, or the holder's last run is older than the failover period. The holder keeps the
 * cluster as long as it decides within the failover period; the epoch grows by one whenever the
 * holder changes and serves as fencing token for the cycle's writes. Release on shutdown or pause
 * clears the holder, so another instance takes over at its next tick.
 *
 * <p>The failover period must be longer than the longest cycle plus the timer delay: a holder that
 * stops deciding for longer loses the cluster, and its late writes must then be fenced by the epoch.
 */
public final class JdbcCoordinator implements ClusterCoordinator {

	private static final Logger logger = LoggerFactory.getLogger(JdbcCoordinator.class);

	/** How long a decision waits for the cluster's row by default. */
	public static final Duration DEFAULT_LOCK_TIMEOUT = Duration.ofSeconds(2);

	/** Longest cluster id the table holds. */
	public static final int MAX_CLUSTER_ID_LENGTH = 100;

	/** Longest instance id the table holds. */
	public static final int MAX_INSTANCE_ID_LENGTH = 200;

	private final DataSource dataSource;

	private final Dialect dialect;

	private final TableNames tables;

	private final @Nullable Duration failoverPeriod;

	private final int lockTimeoutSeconds;









	private final CoordinationSql sql;

	private final Set<String> ensured = ConcurrentHashMap.newKeySet();

	private final Map<String, String> lastFailure = new ConcurrentHashMap<>();

	/**
	 * The epoch of each hold this coordinator took, by cluster and instance id: a row that names the
	 * instance's id with another epoch, or that this process never took, was written by another
	 * process with the same id (or by this instance before a restart), not by this one.
	 */
	private final Map<String, Long> taken = new ConcurrentHashMap<>();

	/**
	 * The highest epoch this coordinator has seen per cluster: a row re-created after a delete, or
	 * restored with a lower epoch, continues above it, so that this instance never hands out a
	 * fencing token lower than one it has seen.
	 */
	private final Map<String, Long> highestEpoch = new ConcurrentHashMap<>();

	/** Per cluster, the lower epoch a row was last found with (its warning logged once). */
	private final Map<String, Long> epochWentBack = new ConcurrentHashMap<>();

	/** Clusters whose row names this instance's id but was not taken by this process (logged once). */
	private final Set<String> foreignHold = ConcurrentHashMap.newKeySet();

	private final DatabaseTime time;

	private final @Nullable DatabaseStatus status;

	/**
	 * A coordinator that waits at most {@link #DEFAULT_LOCK_TIMEOUT} for the cluster's row.
	 * @param dataSource where the table lives; each call borrows its own connection
	 * @param dialect the database's dialect
	 * @param tables table names
	 * @param failoverPeriod how long a silent holder keeps the cluster; null for each cluster's wait time
	 */
	public JdbcCoordinator(DataSource dataSource, Dialect dialect, TableNames tables, @Nullable Duration failoverPeriod) {
		this(dataSource, dialect, tables, failoverPeriod, DEFAULT_LOCK_TIMEOUT);
	}

	/**
	 * @param dataSource where the table lives; each call borrows its own connection
	 * @param dialect the database's dialect
	 * @param tables table names
	 * @param failoverPeriod how long a silent holder keeps the cluster; null for each cluster's wait time
	 * @param lockTimeout the longest a decision waits for the cluster's row (JDBC query timeout, whole
	 * seconds, at least 1): another instance holding the row lock in a transaction it cannot finish
	 * (its JVM frozen mid-decision, its network gone) must not stall every decision; the decision is
	 * refused instead
	 */
	public JdbcCoordinator(DataSource dataSource, Dialect dialect, TableNames tables, @Nullable Duration failoverPeriod,
			Duration lockTimeout) {
		this(dataSource, dialect, tables, failoverPeriod, lockTimeout, null);
	}

	/**
	 * A coordinator that reports whether the database answers to the status of its instance: a lost
	 * database is then logged once by the status, not by each cluster.
	 * @param dataSource where the table lives; each call borrows its own connection
	 * @param dialect the database's dialect
	 * @param tables table names
	 * @param failoverPeriod how long a silent holder keeps the cluster; null for each cluster's wait time
	 * @param lockTimeout the longest a decision waits for the cluster's row (see above)
	 * @param status the instance's database status, or {@code null}
	 */
	public JdbcCoordinator(DataSource dataSource, Dialect dialect, TableNames tables, @Nullable Duration failoverPeriod,
			Duration lockTimeout, @Nullable DatabaseStatus status) {
		this.status = status;
		this.dataSource = Objects.requireNonNull(dataSource, "dataSource must not be null");
		this.dialect = Objects.requireNonNull(dialect, "dialect must not be null");
		this.tables = Objects.requireNonNull(tables, "tables must not be null");
		if (failoverPeriod != null && (failoverPeriod.isNegative() || failoverPeriod.isZero())) {
			throw new IllegalArgumentException("failoverPeriod " + failoverPeriod + " must be positive; e.g. the cluster's wait time");
		}
		this.failoverPeriod = failoverPeriod;
		Objects.requireNonNull(lockTimeout, "lockTimeout must not be null");
		if (lockTimeout.isNegative() || lockTimeout.isZero()) {
			throw new IllegalArgumentException("lockTimeout " + lockTimeout + " must be positive; e.g. the peer timeout, 2s");
		}
		this.lockTimeoutSeconds = (int) Math.max(1, Math.min(Integer.MAX_VALUE, (lockTimeout.toMillis() + 999) / 1000));
		this.time = new DatabaseTime(dialect);
		this.sql = new CoordinationSql(dialect, tables.coordination(), this.time, this.lockTimeoutSeconds);
	}

	@Override
	public Claim acquire(ClusterDefinition cluster, String instanceId) {
		validate(cluster.id(), instanceId);
		Duration failover = (this.failoverPeriod != null) ? this.failoverPeriod : cluster.waitTime();
		try {
			return decide(cluster, instanceId, failover);
		}
		catch (RowMissingException ex) {
			// deleted under this coordinator (a cleanup, a restore): made again at once, above the epochs seen
			this.ensured.remove(cluster.id());
			try {
				return decide(cluster, instanceId, failover);
			}
			catch (RowMissingException again) {
				return Claim.unavailable("the coordination row of cluster '" + cluster.id() + "' disappeared twice in a row");
			}
		}
	}

	private Claim decide(ClusterDefinition cluster, String instanceId, Duration failover) throws RowMissingException {
		long started = System.nanoTime();
		try (Connection connection = this.dataSource.getConnection()) {
			ensureRow(connection, cluster.id());
			boolean autoCommit = connection.getAutoCommit();
			try {
				connection.setAutoCommit(true);
				Claim claim = withoutLock(connection, cluster.id(), instanceId, failover);
				if (claim == null) {
					connection.setAutoCommit(false);
					try {
						claim = acquire(connection, cluster.id(), instanceId, failover);
						connection.commit();
					}
					catch (SQLException | RuntimeException ex) {
						CoordinationSql.rollbackQuietly(connection);
						throw ex;
					}
				}
				this.lastFailure.remove(cluster.id());
				if (this.status != null) {
					this.status.succeeded(DatabaseStatus.coordinationOf(cluster.id()), started);
				}
				return claim;
			}
			finally {
				CoordinationSql.restoreAutoCommit(connection, autoCommit);
			}
		}
		catch (RowMissingException ex) {
			throw ex;
		}
		catch (SQLException ex) {
			String failure = "database coordination failed: " + ex.getMessage() + " (SQLState " + ex.getSQLState() + ")";
			// once per streak of failures (a pool's timeout message differs on every retry); a lost database
			// once per outage by the instance's status
			boolean outage = this.status != null && this.status.failed("the coordination of cluster '" + cluster.id() + "'", ex);
			if (this.lastFailure.put(cluster.id(), failure) == null && !outage) {
				logger.warn("Cluster '{}': {}; refusing until the database answers", cluster.id(), failure, ex);
			}
			return Claim.unavailable(failure);
		}
	}

	/**
	 * The decisions that need no row lock, in auto-commit: the holder's renewal on PostgreSQL (one
	 * fenced statement), and a refusal because another instance's hold is live (one plain read: no
	 * lock and no transaction id, so nothing for the server to flush, and no wait for a transaction
	 * that holds the row). Refusing on a read that a concurrent takeover makes stale is safe; granting
	 * is not, so a row that looks free or this instance's is left to the locking path.
	 * @return the claim, or {@code null} when the locking path must decide
	 */
	private @Nullable Claim withoutLock(Connection connection, String clusterId, String instanceId, Duration failover)
			throws SQLException {
		String key = key(clusterId, instanceId);
		Long takenEpoch = this.taken.get(key);
		if (takenEpoch != null) {
			if (this.sql.renew == null) {
				return null;
			}
			try (PreparedStatement renew = connection.prepareStatement(this.sql.renew)) {
				renew.setQueryTimeout(this.lockTimeoutSeconds);
				renew.setString(1, clusterId);
				renew.setString(2, instanceId);
				renew.setLong(3, takenEpoch);
				try (ResultSet row = renew.executeQuery()) {
					if (!row.next()) {
						return null; // no longer this hold: the locking path says who holds it
					}
					Instant before = (row.getObject(1) != null) ? this.time.read(row, 1) : null;
					long ageMillis = (before != null) ? Math.max(0, Duration.between(before, this.time.read(row, 2)).toMillis()) : -1;
					return new Claim(true, true, instanceId, takenEpoch, ageMillis, null);
				}
			}
		}
		try (PreparedStatement read = connection.prepareStatement(this.sql.read)) {
			read.setString(1, clusterId);
			try (ResultSet row = read.executeQuery()) {
				if (!row.next()) {
					throw new RowMissingException(clusterId);
				}
				String holder = row.getString(1);
				long epoch = row.getLong(2);
				observe(clusterId, epoch);
				Instant lastRun = (row.getObject(3) != null) ? this.time.read(row, 3) : null;
				long ageMillis = (lastRun != null) ? Math.max(0, Duration.between(lastRun, this.time.read(row, 4)).toMillis()) : -1;
				boolean free = holder == null || lastRun == null || ageMillis >= failover.toMillis();
				return free ? null : refuse(clusterId, instanceId, holder, epoch, ageMillis, failover);
			}
		}
	}

	private Claim acquire(Connection connection, String clusterId, String instanceId, Duration failover) throws SQLException {
		String holder;
		long epoch;
		Instant lastRun;
		Instant now;
		try (PreparedStatement lock = connection.prepareStatement(this.sql.lock)) {
			lock.setQueryTimeout(this.lockTimeoutSeconds);
			lock.setString(1, clusterId);
			try (ResultSet row = lock.executeQuery()) {
				if (!row.next()) {
					throw new RowMissingException(clusterId);
				}
				holder = row.getString(1);
				epoch = row.getLong(2);
				lastRun = (row.getObject(3) != null) ? this.time.read(row, 3) : null;
				now = this.time.read(row, 4);
			}
		}
		long ageMillis = (lastRun != null) ? Math.max(0, Duration.between(lastRun, now).toMillis()) : -1;
		String key = key(clusterId, instanceId);
		Long takenEpoch = this.taken.get(key);
		boolean sameId = instanceId.equals(holder);
		boolean mine = sameId && takenEpoch != null && takenEpoch == epoch;
		boolean free = holder == null || lastRun == null || ageMillis >= failover.toMillis();
		if (!mine && !free) {
			return refuse(clusterId, instanceId, holder, epoch, ageMillis, failover);
		}
		this.foreignHold.remove(key);
		long seen = this.highestEpoch.getOrDefault(clusterId, epoch);
		if (seen > epoch && !Long.valueOf(epoch).equals(this.epochWentBack.put(clusterId, epoch))) {
			logger.warn("Cluster '{}': the coordination row's epoch went back from {} to {} (restored from a backup?); "
					+ "continuing above {}. An instance that never saw the higher epoch cannot know it", clusterId, seen, epoch, seen);
		}
		long newEpoch = mine ? epoch : Math.max(epoch, seen) + 1;
		observe(clusterId, newEpoch);
		try (PreparedStatement update = connection.prepareStatement(this.sql.update)) {
			update.setString(1, instanceId);
			update.setLong(2, newEpoch);
			update.setString(3, clusterId);
			update.executeUpdate();
		}
		this.taken.put(key, newEpoch);
		return new Claim(true, mine, instanceId, newEpoch, ageMillis, null);
	}

	/** A live hold of another instance (or of another process under this id): this instance does not hold the cluster. */
	private Claim refuse(String clusterId, String instanceId, String holder, long epoch, long ageMillis, Duration failover) {
		String key = key(clusterId, instanceId);
		this.taken.remove(key);
		if (instanceId.equals(holder) && this.foreignHold.add(key)) {
			logger.error("Cluster '{}': the database row names this instance's id '{}' as holder (epoch {}, last run {} ms ago), "
					+ "but this process did not take it: another process runs with the same instance id (give every instance "
					+ "its own polling.instance-id), or this instance held it before a restart, in which case it takes over "
					+ "once the row is {} ms old", clusterId, instanceId, epoch, ageMillis, failover.toMillis());
		}
		return new Claim(false, false, holder, epoch, ageMillis, null);
	}

	private static String key(String clusterId, String instanceId) {
		return clusterId + '\u0000' + instanceId;
	}

	@Override
	public void release(ClusterDefinition cluster, String instanceId) {
		// only the hold this process took: a row under the same id with another epoch is another process's
		Long epoch = this.taken.remove(key(cluster.id(), instanceId));
		if (epoch == null) {
			return;
		}
		try (Connection connection = this.dataSource.getConnection();
				PreparedStatement release = connection.prepareStatement(this.sql.release)) {
			if (!connection.getAutoCommit()) {
				connection.setAutoCommit(true);
			}
			release.setString(1, cluster.id());
			release.setString(2, instanceId);
			release.setLong(3, epoch);
			release.executeUpdate();
		}
		catch (SQLException ex) {
			logger.warn("Cluster '{}': could not release it in the database ({}); a peer takes over after the failover period",
					cluster.id(), ex.getMessage());
		}
	}

	/**
	 * Fencing: checks, inside the caller's transaction, that the instance still holds the cluster
	 * with the epoch it was granted, and keeps it so until that transaction ends. The cluster's row is
	 * read with a shared lock (on H2 an exclusive one), so an instance taking the cluster over waits
	 * for this transaction: the writes after the check commit only while the hold is current. Call it
	 * first in the transaction whose writes must not outlive the hold, and keep that transaction
	 * shorter than the lock timeout (other instances' decisions wait for it). Waits for the row at most
	 * the lock timeout.
	 * @param connection the connection of the caller's transaction (auto-commit off)
	 * @param clusterId the cluster
	 * @param instanceId this instance
	 * @param epoch the epoch of this instance's grant ({@code PollingManager.fencingToken})
	 * @throws LostHoldException if another instance holds the cluster, nobody does, or the epoch moved on
	 * @throws SQLException if the row cannot be read (e.g. the lock timeout passed)
	 */
	public void assertStillHolder(Connection connection, String clusterId, String instanceId, long epoch)
			throws SQLException {
		Objects.requireNonNull(connection, "connection must not be null");
		validate(clusterId, instanceId);
		try (PreparedStatement statement = connection.prepareStatement(this.sql.holder)) {
			statement.setQueryTimeout(this.lockTimeoutSeconds);
			statement.setString(1, clusterId);
			try (ResultSet row = statement.executeQuery()) {
				if (!row.next()) {
					throw new LostHoldException(clusterId, instanceId, epoch, null, -1);
				}
				String holder = row.getString(1);
				long current = row.getLong(2);
				if (!instanceId.equals(holder) || current != epoch) {
					throw new LostHoldException(clusterId, instanceId, epoch, holder, current);
				}
			}
		}
	}

	/**
	 * The {@link HoldCheck} of a grant, for writes made under it.
	 * @param clusterId the cluster
	 * @param instanceId this instance
	 * @param epoch the epoch of this instance's grant
	 * @return the check, see {@link #assertStillHolder}
	 */
	public HoldCheck holdCheck(String clusterId, String instanceId, long epoch) {
		return (connection) -> assertStillHolder(connection, clusterId, instanceId, epoch);
	}

	/**
	 * The {@link HoldCheck} of this instance's current grant of a cluster the manager coordinates
	 * through this coordinator, for the writes of a cycle ({@code runIfGranted}).
	 * @param manager the polling manager
	 * @param clusterId the cluster
	 * @return the check
	 * @throws IllegalStateException if the manager holds no grant of the cluster from a coordinator
	 */
	public HoldCheck holdCheck(PollingManager manager, String clusterId) {
		long epoch = manager.fencingToken(clusterId).orElseThrow(() -> new IllegalStateException("Cluster '"
				+ clusterId + "' has no fencing token: it is not coordinated through the database, or this "
				+ "instance has not been granted it; call holdCheck inside runIfGranted of a cluster with "
				+ "coordination jdbc"));
		return holdCheck(clusterId, manager.settings().instanceId(), epoch);
	}

	@Override
	public String describe() {
		return "database table " + this.tables.coordination() + " (" + this.dialect.id() + ")";
	}

	private void ensureRow(Connection connection, String clusterId) throws SQLException {
		if (this.ensured.contains(clusterId)) {
			return;
		}
		boolean autoCommit = connection.getAutoCommit();
		connection.setAutoCommit(true);
		// a plain read first: inserting next to an existing row that another transaction has locked
		// would wait for that lock (MariaDB, H2), the very wait the lock timeout is there to bound
		try (PreparedStatement exists = connection.prepareStatement(this.sql.exists)) {
			exists.setString(1, clusterId);
			try (ResultSet row = exists.executeQuery()) {
				if (row.next()) {
					connection.setAutoCommit(autoCommit);
					this.ensured.add(clusterId);
					return;
				}
			}
		}
		Long seen = this.highestEpoch.get(clusterId);
		try (PreparedStatement insert = connection.prepareStatement(this.sql.ensure)) {
			insert.setString(1, clusterId);
			insert.setLong(2, (seen != null) ? seen : 0);
			if (insert.executeUpdate() == 1 && seen != null) {
				logger.warn("Cluster '{}': its coordination row was missing (deleted?); created it again with epoch {}, the highest "
						+ "this instance saw, so its fencing tokens go on rising. An instance that never saw the old row cannot "
						+ "know its epochs", clusterId, seen);
			}
		}
		catch (SQLException ex) {
			if (!DialectSql.isDuplicateKey(ex)) {
				throw ex;
			}
		}
		finally {
			connection.setAutoCommit(autoCommit);
		}
		this.ensured.add(clusterId);
	}

	private void observe(String clusterId, long epoch) {
		this.highestEpoch.merge(clusterId, epoch, Math::max);
	}

	/** The cluster's row is gone: it was deleted after this coordinator made sure it exists. */
	private static final class RowMissingException extends SQLException {

		private static final long serialVersionUID = 1L;

		RowMissingException(String clusterId) {
			super("coordination row for cluster '" + clusterId + "' is missing", "02000");
		}

	}

	private static void validate(String clusterId, String instanceId) {
		if (clusterId.length() > MAX_CLUSTER_ID_LENGTH) {
			throw new IllegalArgumentException("Cluster id of " + clusterId.length() + " characters is longer than the "
					+ MAX_CLUSTER_ID_LENGTH + " the coordination table holds; use a shorter id");
		}
		if (instanceId.length() > MAX_INSTANCE_ID_LENGTH) {
			throw new IllegalArgumentException("Instance id of " + instanceId.length() + " characters is longer than the "
					+ MAX_INSTANCE_ID_LENGTH + " the coordination table holds; set a shorter instance id");
		}
	}

}
