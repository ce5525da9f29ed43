package dev.polling.jdbc.jobs;

import dev.polling.jdbc.Backoff;
import dev.polling.jdbc.DataAccessFailure;
import dev.polling.jdbc.DatabaseTime;
import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.Failures;
import dev.polling.jdbc.HoldCheck;
import dev.polling.jdbc.TableNames;
import dev.polling.jdbc.coordination.LostHoldException;
import dev.polling.jdbc.internal.Arguments;
import dev.polling.jdbc.internal.DialectSql;
import dev.polling.jdbc.internal.Sql;
import dev.polling.jdbc.jobs.JobScheduler.DispatchResult;
import dev.polling.jdbc.queue.WorkQueue;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dispatch of a {@link JobScheduler}'s due jobs into the work queue and its SQL: the dispatch
 * lock row (created once, locked first by every dispatch transaction), the locking read of due jobs
 * in due order, the move of each into the queue, the fallback of one transaction per job when a
 * batch fails, and the postponement of a job that could not be moved. Logs under the category of
 * {@link JobScheduler}.
 */
final class DueJobs {

	private static final Logger logger = LoggerFactory.getLogger(JobScheduler.class);

	private static final int MAX_ERROR_LENGTH = 1000;

	private static final String DISPATCH_LOCK = JobScheduler.DISPATCH_LOCK;

	private volatile boolean dispatchLockInPlace;

	private final DataSource dataSource;

	private final Dialect dialect;

	private final TableNames tables;

	private final DatabaseTime time;

	private final String table;

	private final Backoff backoff;

	DueJobs(DataSource dataSource, Dialect dialect, TableNames tables, DatabaseTime time, Backoff backoff) {
		this.dataSource = dataSource;
		this.dialect = dialect;
		this.tables = tables;
		this.time = time;
		this.table = tables.job();
		this.backoff = backoff;
	}

	/** See {@link JobScheduler#dispatchDue(WorkQueue, int, HoldCheck)}; arguments checked by the caller. */
	DispatchResult dispatchDue(WorkQueue queue, int limit, HoldCheck hold) {
		ensureDispatchLock();
		List<DueJob> listed;
		try {
			return Sql.inTransaction(this.dataSource, "dispatch due jobs", (connection) -> {
				if (!lockDispatch(connection)) {
					return DispatchResult.NONE;
				}
				hold.assertStillHolder(connection);
				List<DueJob> due = lockDue(connection, limit, null);
				for (DueJob job : due) {
					dispatch(connection, queue, job);
				}
				return new DispatchResult(due.size(), 0, due.stream().map(DueJob::delayMillis).toList());
			});
		}
		catch (LostHoldException ex) {
			throw ex;
		}
		catch (RuntimeException ex) {
			if (Failures.isConnectionFailure(ex)) {
				// the database is gone: every job would fail the same way, and a late commit may have gone through
				throw ex;
			}
			logger.warn("Dispatching a batch of due jobs failed ({}); trying each job on its own", Arguments.describe(ex, 300));
			listed = Sql.inTransaction(this.dataSource, "list due jobs", (connection) -> lockDue(connection, limit, null));
		}
		int dispatched = 0;
		int postponed = 0;
		List<Long> delays = new ArrayList<>();
		// a job that fails holds back the younger jobs of its business id, in this round too
		Set<List<String>> held = new HashSet<>();
		for (DueJob job : listed) {
			List<String> key = List.of(job.queue(), job.businessId());
			if (held.contains(key)) {
				continue;
			}
			long id = job.id();
			try {
				Optional<Optional<Long>> delay = Sql.inTransaction(this.dataSource, "dispatch job " + id, (connection) -> {
					if (!lockDispatch(connection)) {
						return Optional.<Optional<Long>>empty();
					}
					hold.assertStillHolder(connection);
					List<DueJob> one = lockDue(connection, 1, id);
					if (one.isEmpty()) {
						return Optional.of(Optional.<Long>empty());
					}
					dispatch(connection, queue, one.get(0));
					return Optional.of(Optional.of(one.get(0).delayMillis()));
				});
				if (delay.isEmpty()) {
					break; // another dispatcher is at work
				}
				if (delay.get().isPresent()) {
					dispatched++;
					delays.add(delay.get().get());
				}
				else {
					held.add(key);
				}
			}
			catch (LostHoldException ex) {
				throw ex;
			}
			catch (RuntimeException ex) {
				postponed++;
				held.add(key);
				postpone(id, ex);
			}
		}
		return new DispatchResult(dispatched, postponed, delays);
	}

	/** Inserts the dispatch lock row if it is missing, once per scheduler. */
	private void ensureDispatchLock() {
		if (this.dispatchLockInPlace) {
			return;
		}
		String table = this.tables.coordination();
		Sql.inTransaction(this.dataSource, "create the dispatch lock row in " + table, (connection) -> {
			try (PreparedStatement exists = connection.prepareStatement("SELECT 1 FROM " + table + " WHERE cluster_id = ?")) {
				exists.setString(1, DISPATCH_LOCK);
				try (ResultSet row = exists.executeQuery()) {
					if (row.next()) {
						return null;
					}
				}
			}
			String insert = switch (this.dialect) {
				case POSTGRESQL -> "INSERT INTO " + table + " (cluster_id, epoch) VALUES (?, 0) ON CONFLICT (cluster_id) DO NOTHING";
				case MARIADB -> "INSERT IGNORE INTO " + table + " (cluster_id, epoch) VALUES (?, 0)";
				case H2 -> "MERGE INTO " + table + " (cluster_id, epoch) KEY (cluster_id) VALUES (?, 0)";
			};
			try (PreparedStatement statement = connection.prepareStatement(insert)) {
				statement.setString(1, DISPATCH_LOCK);
				statement.executeUpdate();
			}
			return null;
		});
		this.dispatchLockInPlace = true;
	}

	/**
	 * Locks the dispatch lock row for the rest of the transaction; {@code false} if another
	 * dispatcher holds it (never waits).
	 */
	private boolean lockDispatch(Connection connection) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement("SELECT cluster_id FROM "
				+ this.tables.coordination() + " WHERE cluster_id = ? FOR UPDATE SKIP LOCKED")) {
			statement.setString(1, DISPATCH_LOCK);
			try (ResultSet row = statement.executeQuery()) {
				return row.next();
			}
		}
	}

	/**
	 * Locks due jobs (due time passed, no later attempt pending) in due order, skipping jobs held
	 * back by an older job of their business id that waits for another attempt.
	 */
	private List<DueJob> lockDue(Connection connection, int limit, @Nullable Long id) throws SQLException {
		String skip = (this.dialect == Dialect.H2) ? "" : " SKIP LOCKED";
		String now = this.time.now();
		String sql = "SELECT j.id, j.queue, j.business_id, j.payload, j.due_at, " + now + " FROM " + this.table + " j"
				+ " WHERE j.state = 'SCHEDULED' AND j.due_at <= " + now + " AND (j.next_attempt_at IS NULL OR "
				+ "j.next_attempt_at <= " + now + ")" + ((id != null) ? " AND j.id = ?" : "")
				+ " AND NOT EXISTS (SELECT 1 FROM " + this.table + " p WHERE p.queue = j.queue AND p.business_id = "
				+ "j.business_id AND p.state = 'SCHEDULED' AND p.next_attempt_at > " + now + " AND (p.due_at < j.due_at "
				+ "OR (p.due_at = j.due_at AND p.id < j.id)))"
				+ " ORDER BY j.due_at, j.id" + DialectSql.limit(this.dialect, "?") + " FOR UPDATE" + skip;
		List<DueJob> due = new ArrayList<>();
		try (PreparedStatement statement = connection.prepareStatement(sql)) {
			int index = 1;
			if (id != null) {
				statement.setLong(index++, id);
			}
			statement.setInt(index, limit);
			try (ResultSet rows = statement.executeQuery()) {
				while (rows.next()) {
					Instant dueAt = this.time.read(rows, 5);
					Instant dbNow = this.time.read(rows, 6);
					due.add(new DueJob(rows.getLong(1), rows.getString(2), rows.getString(3), rows.getString(4),
							Math.max(0, Duration.between(dueAt, dbNow).toMillis())));
				}
			}
		}
		return due;
	}

	private void dispatch(Connection connection, WorkQueue queue, DueJob job) throws SQLException {
		long messageId = queue.enqueue(connection, job.queue(), job.businessId(), job.payload());
		try (PreparedStatement mark = connection.prepareStatement("UPDATE " + this.table + " SET state = 'DISPATCHED', dispatched_at = "
				+ this.time.now() + ", finished_at = " + this.time.now() + ", next_attempt_at = NULL, unique_key = NULL, "
				+ "message_id = ? WHERE id = ?")) {
			mark.setLong(1, messageId);
			mark.setLong(2, job.id());
			mark.executeUpdate();
		}
	}

	/**
	 * Records a failed dispatch of a job: it stays SCHEDULED, counts the attempt and is due again
	 * after the backoff. If even this cannot be written (the database is gone), the job stays due and
	 * is tried at the next round.
	 */
	private void postpone(long id, Exception failure) {
		String error = Arguments.describe(failure, MAX_ERROR_LENGTH);
		try {
			Sql.inTransaction(this.dataSource, "postpone job " + id, (connection) -> {
				int attempts;
				try (PreparedStatement statement = connection.prepareStatement("SELECT attempts FROM " + this.table
						+ " WHERE id = ? AND state = 'SCHEDULED' FOR UPDATE")) {
					statement.setLong(1, id);
					try (ResultSet row = statement.executeQuery()) {
						if (!row.next()) {
							return 0;
						}
						attempts = row.getInt(1) + 1;
					}
				}
				long delay = this.backoff.delayAfter(attempts).toMillis();
				try (PreparedStatement statement = connection.prepareStatement("UPDATE " + this.table
						+ " SET attempts = ?, last_error = ?, next_attempt_at = " + this.time.nowPlusMillis()
						+ " WHERE id = ? AND state = 'SCHEDULED'")) {
					statement.setInt(1, attempts);
					statement.setString(2, error);
					statement.setLong(3, delay);
					statement.setLong(4, id);
					statement.executeUpdate();
				}
				logger.warn("Job {} could not be moved into the work queue (attempt {}); it stays scheduled and is tried "
						+ "again in {} ms{}: {}", id, attempts, delay,
						Failures.isTransient(failure) ? " (transient database error)" : "", error);
				return attempts;
			});
		}
		catch (DataAccessFailure ex) {
			logger.warn("Job {} could not be moved into the work queue, nor its retry recorded; it stays due and is "
					+ "tried at the next round: {}", id, ex.getMessage());
		}
	}

	private record DueJob(long id, String queue, String businessId, String payload, long delayMillis) {
	}

}
