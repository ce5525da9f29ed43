package dev.polling.jdbc.queue;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import javax.sql.DataSource;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.polling.jdbc.BulkRetry;
import dev.polling.jdbc.DataAccessFailure;
import dev.polling.jdbc.DatabaseTime;
import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.TableNames;
import dev.polling.jdbc.internal.Arguments;
import dev.polling.jdbc.internal.DeadRows;
import dev.polling.jdbc.internal.DialectSql;
import dev.polling.jdbc.internal.Purge;
import dev.polling.jdbc.internal.Listing;
import dev.polling.jdbc.internal.Listing.Page;
import dev.polling.jdbc.internal.Sql;

/**
 * The operator's side of a {@link WorkQueue} ({@link WorkQueue#admin()}): what is queued (pages of
 * messages by state, queue and business key, {@link QueueQuery}), what is stuck (blocked keys), and
 * the actions on it (retry or discard a DEAD message, retry all DEAD messages of a queue after the
 * operator confirmed their count, purge DONE ones). Nothing here is on
 * the workers' path; an application gives this object to its operations tooling (the starter's
 * {@code pollingqueue} endpoint, health and meters) and the {@link WorkQueue} to its code.
 */
public final class QueueAdmin {

	private static final Logger logger = LoggerFactory.getLogger(QueueAdmin.class);

	/** Messages per statement of a bulk retry (bind parameters of an IN list). */

	private static final String OPEN = "'NEW', 'BLOCKED', 'IN_PROGRESS', 'FAILED', 'DEAD'";

	/** Marks the job of a retried message DISPATCHED again. */
	private final QueueOutcomes outcomes;

	private final DataSource dataSource;

	private final Dialect dialect;

	private final TableNames tables;

	private final DatabaseTime time;

	private final KeyHeads heads;

	private final String table;

	private final DeadRows dead;

	private final Listing<QueueEntry> listing;

	QueueAdmin(QueueOutcomes outcomes, DataSource dataSource, Dialect dialect, TableNames tables, DatabaseTime time, KeyHeads heads) {
		this.outcomes = outcomes;
		this.dataSource = dataSource;
		this.dialect = dialect;
		this.tables = tables;
		this.time = time;
		this.heads = heads;
		this.table = tables.queue();
		this.dead = new DeadRows(dataSource, this.table, "queue", "dead messages of queue");
		this.listing = new Listing<>(dataSource, dialect, this.table,
				"id, queue, business_key, state, attempts, max_attempts, owner, enqueued_at, last_error", "messages",
				(result) -> new QueueEntry(result.getLong(1), result.getString(2), result.getString(3),
						MessageState.valueOf(result.getString(4)), result.getInt(5), result.getInt(6),
						result.getString(7), time.read(result, 8), result.getString(9)));
	}

	/**
	 * Counts per queue of open messages, and the age of the oldest waiting one.
	 * @return one entry per queue that has open messages, by name
	 */
	public List<QueueStats> stats() {
		return Sql.inTransaction(this.dataSource, "read the statistics of " + this.table, (connection) -> {
			Instant now = this.time.currentTime(connection);
			Map<String, long[]> counts = new LinkedHashMap<>();
			Map<String, Instant> oldest = new HashMap<>();
			try (PreparedStatement statement = connection.prepareStatement("SELECT queue, state, COUNT(*), "
					+ "MIN(enqueued_at) FROM " + this.table + " WHERE state IN (" + OPEN + ") GROUP BY queue, state "
					+ "ORDER BY queue");
					ResultSet result = statement.executeQuery()) {
				while (result.next()) {
					String queue = result.getString(1);
					MessageState state = MessageState.valueOf(result.getString(2));
					long[] perState = counts.computeIfAbsent(queue, (q) -> new long[MessageState.values().length]);
					perState[state.ordinal()] = result.getLong(3);
					if (state == MessageState.NEW || state == MessageState.FAILED || state == MessageState.BLOCKED) {
						Instant first = this.time.read(result, 4);
						oldest.merge(queue, first, (a, b) -> a.isBefore(b) ? a : b);
					}
				}
			}
			List<QueueStats> stats = new ArrayList<>();
			counts.forEach((queue, perState) -> {
				Instant first = oldest.get(queue);
				Duration age = (first != null) ? Duration.between(first, now) : null;
				if (age != null && age.isNegative()) {
					age = Duration.ZERO;
				}
				stats.add(new QueueStats(queue, perState[MessageState.NEW.ordinal()],
						perState[MessageState.BLOCKED.ordinal()], perState[MessageState.IN_PROGRESS.ordinal()],
						perState[MessageState.FAILED.ordinal()], perState[MessageState.DEAD.ordinal()], age));
			});
			return stats;
		});
	}

	/**
	 * Messages in a state, oldest first: the first page of {@link #entries(QueueQuery)} without
	 * filters.
	 * @param state the state
	 * @param limit the most entries, 1 to 1000
	 * @return the entries
	 * @throws NullPointerException if {@code state} is null
	 * @throws IllegalArgumentException if {@code limit} is out of range
	 */
	public List<QueueEntry> entries(MessageState state, int limit) {
		return entries(new QueueQuery(state, null, null, 0, limit));
	}

	/**
	 * One page of messages: those in the query's state, of its queue and business key if it names
	 * them, with an id greater than its {@code afterId}, by id ascending, at most its limit. One
	 * bounded statement per call (no offset); the next page is {@code entries(query.next(page))}.
	 * Messages enqueued while an operator pages get greater ids and show up on later pages; a message
	 * that enters the state after its id was passed is not listed again.
	 * @param query the state, filters and page
	 * @return the page, possibly empty
	 * @throws NullPointerException if {@code query} is null
	 * @throws DataAccessFailure if the database fails
	 */
	public List<QueueEntry> entries(QueueQuery query) {
		Objects.requireNonNull(query, "query must not be null: pass e.g. QueueQuery.of(MessageState.DEAD)");
		return this.listing.page(page(query));
	}

	/**
	 * The SQL of {@link #entries(QueueQuery)} for a query, for plan checks.
	 */
	String entriesSql(QueueQuery query) {
		return this.listing.sql(page(query));
	}

	private static Page page(QueueQuery query) {
		return new Page(query.state().name(), "queue", query.queue(), "business_key", query.businessKey(),
				query.afterId(), query.limit());
	}

	/**
	 * One message.
	 * @param id the id
	 * @return the message, if it exists
	 */
	public Optional<QueueEntry> entry(long id) {
		return this.listing.entry(id);
	}

	/**
	 * Business keys whose oldest open message is FAILED or DEAD, oldest first, with how many younger
	 * messages wait behind it: the first page of {@link #blockedKeys(long, int)}.
	 * @param limit the most keys, 1 to 1000
	 * @return the blocked keys
	 * @throws IllegalArgumentException if {@code limit} is out of range
	 */
	public List<BlockedKey> blockedKeys(int limit) {
		return blockedKeys(0, limit);
	}

	/**
	 * One page of the business keys whose oldest open message (the key's head) is FAILED or DEAD,
	 * by the head's id ascending, with how many younger messages wait behind it ("stuck keys").
	 * @param afterHeadId only keys whose head has a greater id: 0 for the first page, else the
	 * {@link BlockedKey#headId()} of the last key of the previous page
	 * @param limit the most keys, 1 to 1000
	 * @return the page, possibly empty
	 * @throws IllegalArgumentException if {@code afterHeadId} is negative or {@code limit} out of range
	 * @throws DataAccessFailure if the database fails
	 */
	public List<BlockedKey> blockedKeys(long afterHeadId, int limit) {
		Arguments.page(afterHeadId, limit, QueueQuery.MAX_LIMIT);
		// a FAILED or DEAD message with a key is its key's head; the key's row counts the others
		String sql = "SELECT h.queue, h.business_key, h.id, h.state, h.attempts, h.last_error, k.open_count - 1 FROM "
				+ this.table + " h JOIN " + this.tables.queueKey() + " k ON k.queue = h.queue AND k.business_key = "
				+ "h.business_key WHERE h.state IN ('FAILED', 'DEAD') AND h.business_key IS NOT NULL AND h.id > ? "
				+ "ORDER BY h.id" + limit();
		return Sql.inTransaction(this.dataSource, "list the blocked keys of " + this.table, (connection) -> {
			List<BlockedKey> keys = new ArrayList<>();
			try (PreparedStatement statement = connection.prepareStatement(sql)) {
				statement.setLong(1, afterHeadId);
				statement.setInt(2, limit);
				try (ResultSet result = statement.executeQuery()) {
					while (result.next()) {
						keys.add(new BlockedKey(result.getString(1), result.getString(2), result.getLong(3),
								MessageState.valueOf(result.getString(4)), result.getInt(5), result.getString(6),
								Math.max(0, result.getLong(7))));
					}
				}
			}
			return keys;
		});
	}

	/**
	 * Operator action: gives a DEAD message a fresh set of attempts (it becomes NEW).
	 * @param id the message id
	 * @return {@code false} if there is no DEAD message with this id
	 */
	public boolean retry(long id) {
		return Sql.inTransaction(this.dataSource, "retry dead message " + id + " in " + this.table,
				(connection) -> retry(connection, id));
	}

	/**
	 * Operator action on the given connection, in its current transaction: gives a DEAD message a
	 * fresh set of attempts (it becomes NEW); the job it belongs to, if any, is DISPATCHED again.
	 * @param connection the connection
	 * @param id the message id
	 * @return {@code false} if there is no DEAD message with this id
	 */
	public boolean retry(Connection connection, long id) {
		try {
			return Sql.inConnectionTransaction(connection, (transaction) -> {
				int updated;
				try (PreparedStatement statement = transaction.prepareStatement("UPDATE " + this.table + " SET state = "
						+ "'NEW', attempts = 0, fence = fence + 1, finished_at = NULL, available_at = " + this.time.now()
						+ " WHERE id = ? AND state = 'DEAD'")) {
					statement.setLong(1, id);
					updated = statement.executeUpdate();
				}
				if (updated == 1) {
					this.outcomes.markJob(transaction, id, "DISPATCHED", null);
				}
				return updated == 1;
			});
		}
		catch (SQLException ex) {
			throw new DataAccessFailure("Could not retry dead message " + id + " in " + this.table, ex);
		}
	}

	/**
	 * The number of DEAD messages of a queue: what an operator confirms before
	 * {@link #retryAllDead(String, long)}.
	 * @param queue the queue name (exact)
	 * @return the count
	 * @throws NullPointerException if {@code queue} is null
	 * @throws IllegalArgumentException if {@code queue} could not be a queue's name
	 * @throws DataAccessFailure if the database fails
	 */
	public long countDead(String queue) {
		checkQueue(queue);
		return this.dead.count(queue);
	}

	/**
	 * Operator action: retries every DEAD message of one queue as {@link #retry(long)} does (fresh
	 * attempts, NEW, the job of each DISPATCHED again), in one transaction, only if their number is
	 * the one the operator confirmed ({@link #countDead(String)}). The transaction first locks the
	 * queue's DEAD messages and counts them; if the count differs (a message died, or was retried or
	 * discarded, since the operator saw the count), nothing is changed and the result says so, with
	 * the new count. Messages of other queues are never touched; a message that dies while this runs
	 * stays DEAD.
	 * @param queue the queue name (exact)
	 * @param confirmedCount the number of DEAD messages the operator confirmed, 0 or more
	 * @return what was done; {@link BulkRetry#applied()} is {@code false} if the count had changed
	 * @throws NullPointerException if {@code queue} is null
	 * @throws IllegalArgumentException if {@code queue} could not be a queue's name or
	 * {@code confirmedCount} is negative
	 * @throws DataAccessFailure if the database fails (nothing is retried then)
	 */
	public BulkRetry retryAllDead(String queue, long confirmedCount) {
		checkQueue(queue);
		BulkRetry result = this.dead.retryAll(queue, confirmedCount, "countDead(queue)", this::retryLocked);
		if (result.applied()) {
			logger.info("{} dead messages of queue '{}' in {} retried by an operator", result.retried(), queue, this.table);
		}
		return result;
	}

	private int retryLocked(Connection connection, List<Long> ids) throws SQLException {
		String in = DeadRows.placeholders(ids.size());
		int updated;
		try (PreparedStatement statement = connection.prepareStatement("UPDATE " + this.table + " SET state = 'NEW', "
				+ "attempts = 0, fence = fence + 1, finished_at = NULL, available_at = " + this.time.now()
				+ " WHERE id IN (" + in + ") AND state = 'DEAD'")) {
			DeadRows.bind(statement, ids);
			updated = statement.executeUpdate();
		}
		// as QueueOutcomes.markJob(connection, id, "DISPATCHED", null) for each message
		try (PreparedStatement statement = connection.prepareStatement("UPDATE " + this.tables.job() + " SET state = "
				+ "'DISPATCHED', last_error = NULL, finished_at = " + this.time.now() + " WHERE message_id IN (" + in
				+ ") AND state = 'FAILED'")) {
			DeadRows.bind(statement, ids);
			statement.executeUpdate();
		}
		return updated;
	}

	/**
	 * Operator action: deletes a DEAD message, unblocking its key.
	 * @param id the message id
	 * @return {@code false} if there is no DEAD message with this id
	 */
	public boolean discard(long id) {
		boolean discarded = Sql.inTransaction(this.dataSource, "discard dead message " + id + " in " + this.table,
				(connection) -> {
					String queue;
					String key;
					try (PreparedStatement statement = connection.prepareStatement("SELECT queue, business_key FROM "
							+ this.table + " WHERE id = ? AND state = 'DEAD' FOR UPDATE")) {
						statement.setLong(1, id);
						try (ResultSet row = statement.executeQuery()) {
							if (!row.next()) {
								return false;
							}
							queue = row.getString(1);
							key = row.getString(2);
						}
					}
					try (PreparedStatement statement = connection.prepareStatement("DELETE FROM " + this.table
							+ " WHERE id = ? AND state = 'DEAD'")) {
						statement.setLong(1, id);
						if (statement.executeUpdate() != 1) {
							return false;
						}
					}
					if (key != null) {
						this.heads.leave(connection, queue, key);
					}
					return true;
				});
		if (discarded) {
			logger.info("Dead message {} of {} discarded by an operator", id, this.table);
		}
		return discarded;
	}

	/**
	 * Deletes DONE messages finished longer ago than the retention, in batches of 1000.
	 * @param retention how long DONE messages are kept
	 * @return how many were deleted
	 */
	public int purge(Duration retention) {
		return purge(retention, Purge.DEFAULT_BATCH_SIZE);
	}

	/**
	 * Deletes DONE messages finished longer ago than the retention, in batches, each in a transaction
	 * of its own. Open messages are kept. Safe on several instances at once.
	 * @param retention how long DONE messages are kept
	 * @param batchSize rows per batch, 1 to 100,000
	 * @return how many were deleted
	 */
	public int purge(Duration retention, int batchSize) {
		return Purge.run(this.dataSource, this.dialect, this.table, "state = 'DONE' AND finished_at < "
				+ this.time.nowMinusMillis(), retention, batchSize);
	}

	private String limit() {
		return DialectSql.limit(this.dialect, "?");
	}

	private static void checkQueue(String queue) {
		Arguments.key("queue", queue, WorkQueue.MAX_QUEUE_LENGTH,
				"pass the name of the queue, at most " + WorkQueue.MAX_QUEUE_LENGTH + " characters");
	}

}
