package dev.polling.jdbc.jobs;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import javax.sql.DataSource;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.polling.jdbc.ConnectionProvider;
import dev.polling.jdbc.DataAccessFailure;
import dev.polling.jdbc.DatabaseTime;
import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.HoldCheck;
import dev.polling.jdbc.coordination.LostHoldException;
import dev.polling.jdbc.TableNames;
import dev.polling.jdbc.builder.StoreBuilder;
import dev.polling.jdbc.builder.StoreBuilder.Store;
import dev.polling.jdbc.internal.Arguments;
import dev.polling.jdbc.internal.DialectSql;
import dev.polling.jdbc.internal.Purge;
import dev.polling.jdbc.internal.Sql;
import dev.polling.jdbc.queue.WorkQueue;

/**
 * Persistent jobs due at a time (seed 002: "check the order in 30 minutes"). {@link #schedule}
 * writes a row in the caller's transaction (a rolled-back transaction schedules nothing); jobs
 * survive restarts and redeploys because they live in the database. The {@link JobDispatcher} moves due
 * jobs into the {@link WorkQueue} in one transaction of its own, so each job becomes exactly one
 * queue message; workers on every instance then execute them with the queue's leases, retries and
 * fencing. Call it on one instance, the holder of a polling cluster, on a timer. Dispatch rounds
 * never overlap, on any number of instances: each transaction of a round first locks the row
 * {@value #DISPATCH_LOCK} of the coordination table, and a round that finds it locked returns at
 * once without moving anything. Within a business id, jobs are moved in due order (due time, then
 * id), and a job waiting for another attempt holds back the younger jobs of its business id.
 * When a batch fails, each of its jobs is tried in a transaction of its own; a job that still
 * fails stays SCHEDULED and is tried again after a backoff (its attempts and last error are kept),
 * so one poisoned job never holds back the others and no database error, transient or not, loses a
 * job. A job ends FAILED only when its handler fails for good (its queue message goes DEAD); an
 * operator {@link #requeue requeues} it.
 *
 * <p>Due times are database time when given as a delay ({@link #schedule(String, String, Duration,
 * String)}); an absolute {@link Instant} is compared with the database's clock.
 */
public final class JobScheduler {

	private static final Logger logger = LoggerFactory.getLogger(JobScheduler.class);

	/** Longest business id. */
	public static final int MAX_BUSINESS_ID_LENGTH = 255;

	/**
	 * The row of the coordination table that every dispatch transaction locks first, so that
	 * dispatch rounds never overlap.
	 */
	public static final String DISPATCH_LOCK = "polling.jobs.dispatch";


	private final ConnectionProvider connections;

	private final DataSource dataSource;

	private final Dialect dialect;

	private final TableNames tables;

	private final DatabaseTime time;

	private final String table;

	/** The inserts and updates of scheduled jobs. */
	private final JobWrites writes;

	/** The dispatch of due jobs ({@link #dispatchDue}). */
	private final DueJobs dueJobs;

	private final JobAdmin admin;

	private JobScheduler(Store store) {
		Dialect dialect = store.dialect();
		this.dataSource = store.dataSource();
		this.connections = store.connections();
		this.dialect = dialect;
		this.tables = store.tables();
		this.time = new DatabaseTime(dialect);
		this.table = this.tables.job();
		this.writes = new JobWrites(this.connections, dialect, this.time, this.table);
		this.dueJobs = new DueJobs(this.dataSource, dialect, this.tables, this.time, store.backoff());
		this.admin = new JobAdmin(this, this.dataSource, dialect, this.time, this.table);
	}

	/**
	 * Starts building a scheduler on a data source.
	 * @param dataSource the data source
	 * @return the builder
	 */
	public static Builder builder(DataSource dataSource) {
		return new Builder(dataSource);
	}

	/**
	 * A scheduler on a data source; {@link #schedule} joins the transaction of the connection the
	 * provider gives (with the starter: the current Spring transaction); dispatching borrows
	 * connections from the data source for transactions of its own.
	 * @param dataSource the data source
	 * @param connections the provider for {@code schedule}, {@code cancel} and {@code reschedule}
	 * @param dialect the dialect
	 * @param tables the table names
	 * @return the scheduler
	 */
	public static JobScheduler create(DataSource dataSource, ConnectionProvider connections, Dialect dialect, TableNames tables) {
		return builder(dataSource).connections(connections).dialect(dialect).tables(tables).build();
	}

	/**
	 * A scheduler on a data source whose {@code schedule} borrows a connection per call.
	 * @param dataSource the data source
	 * @return the scheduler
	 */
	public static JobScheduler create(DataSource dataSource) {
		return builder(dataSource).build();
	}

	// ---- scheduling, in the caller's transaction

	/**
	 * Schedules a job due after a delay in database time.
	 * @param queue the work queue the job goes to when due
	 * @param businessId what the job is about (e.g. an order id); also its ordering key in the queue
	 * @param delay how long from now (database time), zero or more
	 * @param payload what the worker gets
	 * @return the job id
	 */
	public long schedule(String queue, String businessId, Duration delay, String payload) {
		Objects.requireNonNull(delay, "delay must not be null");
		if (delay.isNegative()) {
			throw new IllegalArgumentException("delay " + delay + " is negative: pass Duration.ZERO for a job due at once");
		}
		return this.writes.insert(queue, businessId, null, payload, delay.toMillis(), null).orElseThrow();
	}

	/**
	 * Schedules a job due at an instant (compared with the database's clock).
	 * @param queue the work queue the job goes to when due
	 * @param businessId what the job is about; also its ordering key in the queue
	 * @param dueAt when it is due
	 * @param payload what the worker gets
	 * @return the job id
	 */
	public long schedule(String queue, String businessId, Instant dueAt, String payload) {
		Objects.requireNonNull(dueAt, "dueAt must not be null");
		return this.writes.insert(queue, businessId, null, payload, 0, dueAt).orElseThrow();
	}

	/**
	 * Schedules a job after a delay unless one scheduled with this method for the same queue and
	 * business id still waits (scheduled, not yet dispatched or cancelled): at most one waiting job
	 * per queue and business id. Once that job is dispatched, the id may be scheduled again. Never
	 * aborts the caller's transaction.
	 * @return the job id, or empty when such a job exists
	 */
	public Optional<Long> scheduleOnce(String queue, String businessId, Duration delay, String payload) {
		Objects.requireNonNull(delay, "delay must not be null");
		if (delay.isNegative()) {
			throw new IllegalArgumentException("delay " + delay + " is negative: pass Duration.ZERO for a job due at once");
		}
		return this.writes.insert(queue, businessId, queue + "\u001f" + businessId, payload, delay.toMillis(), null);
	}

	/**
	 * Cancels the still scheduled jobs of a business id in a queue.
	 * @return how many were cancelled
	 */
	public int cancel(String queue, String businessId) {
		validate(queue, businessId, "");
		return this.writes.update("UPDATE " + this.table + " SET state = 'CANCELLED', unique_key = NULL, finished_at = " + this.time.now()
				+ " WHERE queue = ? AND business_id = ? AND state = 'SCHEDULED'",
				(statement) -> {
					statement.setString(1, queue);
					statement.setString(2, businessId);
				}, "cancel jobs");
	}

	/**
	 * Moves the still scheduled jobs of a business id in a queue to a new delay from now.
	 * @return how many were moved
	 */
	public int reschedule(String queue, String businessId, Duration delay) {
		validate(queue, businessId, "");
		Objects.requireNonNull(delay, "delay must not be null");
		return this.writes.update("UPDATE " + this.table + " SET due_at = " + this.time.nowMinusMillis()
				+ " WHERE queue = ? AND business_id = ? AND state = 'SCHEDULED'", (statement) -> {
					statement.setLong(1, -delay.toMillis());
					statement.setString(2, queue);
					statement.setString(3, businessId);
				}, "reschedule jobs");
	}

	// ---- dispatching, in transactions of its own

	/**
	 * Moves up to {@code limit} due jobs into the work queue, oldest due first, in one transaction;
	 * if that fails, one transaction per job. A job that still fails stays SCHEDULED and is tried
	 * again after the backoff (attempts and last error recorded); nothing is lost.
	 * @param queue the work queue
	 * @param limit the most jobs to move, 1 to 10,000
	 * @return what happened
	 */
	DispatchResult dispatchDue(WorkQueue queue, int limit) {
		return dispatchDue(queue, limit, HoldCheck.NONE);
	}

	/**
	 * Moves due jobs like {@link #dispatchDue(WorkQueue, int)}, under a hold: every dispatch
	 * transaction runs the check first, so that an instance that lost its hold (another took over)
	 * moves nothing more.
	 * @param queue the work queue
	 * @param limit the most jobs to move, 1 to 10,000
	 * @param hold the check, e.g. {@link dev.polling.jdbc.coordination.JdbcCoordinator#holdCheck}
	 * @return what happened
	 * @throws LostHoldException if the hold is lost (nothing of that transaction is written)
	 */
	DispatchResult dispatchDue(WorkQueue queue, int limit, HoldCheck hold) {
		Objects.requireNonNull(queue, "queue must not be null");
		Objects.requireNonNull(hold, "hold must not be null");
		if (limit < 1 || limit > 10_000) {
			throw new IllegalArgumentException("limit " + limit + " is out of range: pass 1 to 10000");
		}
		return this.dueJobs.dispatchDue(queue, limit, hold);
	}

	// ---- operator actions

	/**
	 * Operator action on a FAILED job (its handler failed for good, so its queue message is DEAD):
	 * gives the message a fresh set of attempts, or, when the message is gone (discarded), schedules
	 * the job again, due now. In a transaction of its own.
	 * @param queue the work queue the job's message is in
	 * @param id the job id
	 * @return {@code false} if there is no FAILED job with this id
	 */
	public boolean requeue(WorkQueue queue, long id) {
		return this.admin.requeue(queue, id);
	}

	// ---- looking

	/**
	 * Counts of the open jobs (scheduled, and failed for good), read from the index on state and due
	 * time: dispatched and cancelled jobs, the bulk of the table until the retention purge, are not
	 * read.
	 * @return the numbers
	 */
	public JobStats stats() {
		return Sql.inTransaction(this.dataSource, "read job statistics", (connection) -> {
			long scheduled = 0;
			long due = 0;
			long retrying = 0;
			long failed = 0;
			try (PreparedStatement statement = connection.prepareStatement("SELECT state, COUNT(*), "
					+ "SUM(CASE WHEN due_at <= " + this.time.now() + " THEN 1 ELSE 0 END), "
					+ "SUM(CASE WHEN attempts > 0 THEN 1 ELSE 0 END) FROM " + this.table
					+ " WHERE state IN ('SCHEDULED', 'FAILED') GROUP BY state");
					ResultSet rows = statement.executeQuery()) {
				while (rows.next()) {
					if (rows.getString(1).equals("SCHEDULED")) {
						scheduled = rows.getLong(2);
						due = rows.getLong(3);
						retrying = rows.getLong(4);
					}
					else {
						failed = rows.getLong(2);
					}
				}
			}
			return new JobStats(scheduled, due, retrying, failed);
		});
	}

	// ---- retention

	/**
	 * Deletes dispatched and cancelled jobs finished longer ago than the retention, in batches of
	 * 1000.
	 * @param retention how long finished jobs are kept
	 * @return how many were deleted
	 */
	public int purge(Duration retention) {
		return purge(retention, Purge.DEFAULT_BATCH_SIZE);
	}

	/**
	 * Deletes dispatched and cancelled jobs finished longer ago than the retention, in batches of
	 * {@code batchSize}, each in a transaction of its own (so no batch holds many locks for long).
	 * Scheduled and failed jobs are kept. Safe on several instances at once.
	 * @param retention how long finished jobs are kept
	 * @param batchSize rows per batch, 1 to 100,000
	 * @return how many were deleted
	 */
	public int purge(Duration retention, int batchSize) {
		return Purge.run(this.dataSource, this.dialect, this.table,
				"state IN ('DISPATCHED', 'CANCELLED') AND finished_at < " + this.time.nowMinusMillis(), retention,
				batchSize);
	}

	// ---- internals

	static void validate(String queue, String businessId, String payload) {
		Arguments.key("queue", queue, WorkQueue.MAX_QUEUE_LENGTH, "name the queue in at most " + WorkQueue.MAX_QUEUE_LENGTH + " characters");
		Arguments.key("businessId", businessId, MAX_BUSINESS_ID_LENGTH,
				"use an id of at most " + MAX_BUSINESS_ID_LENGTH + " characters (e.g. an order id or a hash)");
		Arguments.payload("payload", payload, WorkQueue.MAX_PAYLOAD_LENGTH);
	}

	/**
	 * The operator's side of this scheduler: overdue jobs, listings, one job, requeue.
	 * @return the admin
	 */
	public JobAdmin admin() {
		return this.admin;
	}

	/** The tables this scheduler uses. */
	public TableNames tables() {
		return this.tables;
	}

	DataSource dataSource() {
		return this.dataSource;
	}

	Dialect dialect() {
		return this.dialect;
	}

	/**
	 * What one dispatch round of the {@link JobDispatcher} did.
	 *
	 * @param dispatched jobs moved into the work queue
	 * @param postponed jobs that could not be moved and are tried again after a backoff
	 * @param startDelaysMillis for each dispatched job, how late it was moved (database time)
	 */
	public record DispatchResult(int dispatched, int postponed, List<Long> startDelaysMillis) {

		/** Nothing moved (nothing due, or another dispatcher at work). */
		public static final DispatchResult NONE = new DispatchResult(0, 0, List.of());

		public DispatchResult {
			startDelaysMillis = List.copyOf(startDelaysMillis);
		}

	}

	/**
	 * Counts of the open jobs.
	 *
	 * @param scheduled jobs waiting (due or not)
	 * @param dueBacklog scheduled jobs whose due time has passed
	 * @param retrying scheduled jobs whose dispatch failed at least once (tried again after a backoff)
	 * @param failed jobs whose handler failed for good (their message is DEAD), waiting for an operator
	 */
	public record JobStats(long scheduled, long dueBacklog, long retrying, long failed) {
	}

	/**
	 * Builds a {@link JobScheduler}: where {@code schedule}, {@code cancel} and {@code reschedule}
	 * get their connection ({@link #connections}), and the wait before a job whose dispatch failed is
	 * tried again ({@link #backoff}; default: 1 s, doubling, at most 5 min), as every store is built.
	 */
	public static final class Builder extends StoreBuilder<Builder> {

		private Builder(DataSource dataSource) {
			super(dataSource);
		}

		/**
		 * Builds the scheduler, detecting the dialect from one connection if none was set.
		 * @return the scheduler
		 */
		public JobScheduler build() {
			return new JobScheduler(store());
		}

	}

}
