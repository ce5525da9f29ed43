package dev.polling.jdbc.jobs;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.polling.jdbc.DataAccessFailure;
import dev.polling.jdbc.DatabaseTime;
import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.internal.Listing;
import dev.polling.jdbc.internal.Listing.Page;
import dev.polling.jdbc.internal.Sql;
import dev.polling.jdbc.queue.WorkQueue;

/**
 * The operator's side of a {@link JobScheduler} ({@link JobScheduler#admin()}): the open and overdue
 * jobs, listings by state, one job, and the action on a FAILED job (requeue). Nothing here is on the
 * dispatcher's path.
 */
public final class JobAdmin {

	private static final Logger logger = LoggerFactory.getLogger(JobAdmin.class);

	private static final String COLUMNS = "id, queue, business_id, state, due_at, created_at, attempts, "
			+ "next_attempt_at, dispatched_at, message_id, last_error";

	private final JobScheduler scheduler;

	private final DataSource dataSource;

	private final Dialect dialect;

	private final DatabaseTime time;

	private final String table;

	private final Listing<JobEntry> listing;

	JobAdmin(JobScheduler scheduler, DataSource dataSource, Dialect dialect, DatabaseTime time, String table) {
		this.scheduler = scheduler;
		this.dataSource = dataSource;
		this.dialect = dialect;
		this.time = time;
		this.table = table;
		this.listing = new Listing<>(dataSource, dialect, table, COLUMNS, "jobs", (rows) -> {
			long messageId = rows.getLong(10);
			Long message = rows.wasNull() ? null : messageId;
			return new JobEntry(rows.getLong(1), rows.getString(2), rows.getString(3),
					JobState.valueOf(rows.getString(4)), time.read(rows, 5), time.read(rows, 6), rows.getInt(7),
					instant(rows, 8), instant(rows, 9), message, rows.getString(11));
		});
	}

	/**
	 * The counts of the open jobs ({@link JobScheduler#stats()}) and the overdue ones: SCHEDULED jobs
	 * whose due time passed more than {@code grace} ago, in database time, with the due time of the
	 * oldest. A job is due when its due time passes and the dispatcher moves it at its next round, so
	 * a grace of a few dispatch intervals tells a dispatcher that is not running or not keeping up
	 * (or a job whose dispatch keeps failing) from normal lag. Reads only the SCHEDULED and FAILED
	 * jobs (the index on state and due time).
	 * @param grace how long after its due time a scheduled job counts as overdue, zero or more
	 * @return the counts
	 * @throws NullPointerException if {@code grace} is null
	 * @throws IllegalArgumentException if {@code grace} is negative
	 * @throws DataAccessFailure if the database fails
	 */
	public JobOverview stats(Duration grace) {
		Objects.requireNonNull(grace, "grace must not be null: pass e.g. Duration.ofMinutes(5)");
		if (grace.isNegative()) {
			throw new IllegalArgumentException("grace must be zero or more but was " + grace
					+ ": pass how long after its due time a scheduled job counts as overdue, e.g. Duration.ofMinutes(5)");
		}
		String overdue = "j.due_at < " + this.time.nowMinusMillis();
		String sql = "SELECT j.state, COUNT(*), SUM(CASE WHEN j.due_at <= " + this.time.now() + " THEN 1 ELSE 0 END), "
				+ "SUM(CASE WHEN j.attempts > 0 THEN 1 ELSE 0 END), SUM(CASE WHEN " + overdue + " THEN 1 ELSE 0 END), "
				+ "MIN(CASE WHEN " + overdue + " THEN j.due_at END) FROM " + this.table
				+ " j WHERE j.state IN ('SCHEDULED', 'FAILED') GROUP BY j.state";
		return Sql.inTransaction(this.dataSource, "read the job statistics of " + this.table, (connection) -> {
			Instant now = this.time.currentTime(connection);
			long scheduled = 0;
			long due = 0;
			long retrying = 0;
			long failed = 0;
			long late = 0;
			@Nullable Instant oldest = null;
			try (PreparedStatement statement = connection.prepareStatement(sql)) {
				statement.setLong(1, grace.toMillis());
				statement.setLong(2, grace.toMillis());
				try (ResultSet rows = statement.executeQuery()) {
					while (rows.next()) {
						if (rows.getString(1).equals(JobState.SCHEDULED.name())) {
							scheduled = rows.getLong(2);
							due = rows.getLong(3);
							retrying = rows.getLong(4);
							late = rows.getLong(5);
							oldest = instant(rows, 6);
						}
						else {
							failed = rows.getLong(2);
						}
					}
				}
			}
			Duration age = (oldest != null) ? Duration.between(oldest, now) : null;
			return new JobOverview(new JobScheduler.JobStats(scheduled, due, retrying, failed), grace, late, oldest,
					(age != null && age.isNegative()) ? Duration.ZERO : age);
		});
	}

	/**
	 * One page of jobs: those in the query's state, of its queue and business id if it names them,
	 * with an id greater than its {@code afterId}, by id ascending, at most its limit. One bounded
	 * statement per call (no offset); the next page is {@code entries(query.next(page))}.
	 * @param query the state, filters and page
	 * @return the page, possibly empty
	 * @throws NullPointerException if {@code query} is null
	 * @throws DataAccessFailure if the database fails
	 */
	public List<JobEntry> entries(JobQuery query) {
		Objects.requireNonNull(query, "query must not be null: pass e.g. JobQuery.of(JobState.FAILED)");
		return this.listing.page(new Page(query.state().name(), "queue", query.queue(), "business_id", query.businessId(),
				query.afterId(), query.limit()));
	}

	/**
	 * One job.
	 * @param id the job id
	 * @return the job, if it exists (a purged one does not)
	 * @throws DataAccessFailure if the database fails
	 */
	public Optional<JobEntry> entry(long id) {
		return this.listing.entry(id);
	}

	/**
	 * Operator action on a FAILED job, as {@link JobScheduler#requeue(WorkQueue, long)}: its DEAD
	 * message gets a fresh set of attempts (the job is DISPATCHED again), or, when the message is
	 * gone, the job is SCHEDULED again, due now.
	 * @param queue the work queue the job's message is in
	 * @param id the job id
	 * @return {@code false} if there is no FAILED job with this id
	 * @throws NullPointerException if {@code queue} is null
	 * @throws DataAccessFailure if the database fails
	 */
	public boolean requeue(WorkQueue queue, long id) {
		Objects.requireNonNull(queue, "queue must not be null");
		boolean requeued = Sql.inTransaction(this.dataSource, "requeue job " + id, (connection) -> {
			Long messageId;
			try (PreparedStatement statement = connection.prepareStatement("SELECT message_id FROM " + this.table
					+ " WHERE id = ? AND state = 'FAILED' FOR UPDATE")) {
				statement.setLong(1, id);
				try (ResultSet row = statement.executeQuery()) {
					if (!row.next()) {
						return false;
					}
					long value = row.getLong(1);
					messageId = row.wasNull() ? null : value;
				}
			}
			if (messageId != null && queue.admin().retry(connection, messageId)) {
				return true; // the queue marks the job DISPATCHED again
			}
			try (PreparedStatement statement = connection.prepareStatement("UPDATE " + this.table + " SET state = "
					+ "'SCHEDULED', attempts = 0, next_attempt_at = NULL, message_id = NULL, finished_at = NULL, "
					+ "dispatched_at = NULL, due_at = " + this.time.now() + " WHERE id = ? AND state = 'FAILED'")) {
				statement.setLong(1, id);
				return statement.executeUpdate() == 1;
			}
		});
		if (requeued) {
			logger.info("Failed job {} requeued by an operator", id);
		}
		return requeued;
	}

	private @Nullable Instant instant(ResultSet rows, int column) throws SQLException {
		return (rows.getObject(column) != null) ? this.time.read(rows, column) : null;
	}

}
