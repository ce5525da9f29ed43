package dev.polling.jdbc.queue;

import dev.polling.jdbc.Backoff;
import dev.polling.jdbc.ConnectionProvider;
import dev.polling.jdbc.DataAccessFailure;
import dev.polling.jdbc.DatabaseTime;
import dev.polling.jdbc.FencedWrite;
import dev.polling.jdbc.TableNames;
import dev.polling.jdbc.internal.Arguments;
import dev.polling.jdbc.internal.Listeners;
import dev.polling.jdbc.internal.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fenced writes of a {@link WorkQueue} to claimed messages and their SQL: complete (one, or a
 * batch in one transaction), fail (FAILED with a retry, or DEAD, failing a job's message's job),
 * postpone and release; a key's head leaving its key with its completion; what the listener hears
 * of each. Logs under the category of {@link WorkQueue}.
 */
final class QueueOutcomes {

	static final int MAX_ERROR_LENGTH = 1000;

	/**
	 * The condition of every fenced write: the row still carries the claim's fence and is in
	 * progress. The state test is written so that it implies no partial index's predicate: a plan
	 * the server reuses for any parameters (a generic plan of a prepared statement) can then only
	 * find the row by its primary key, never by scanning the index of rows in progress, which a plan
	 * made while the statistics counted none of them chose (measured: 20,000 rows read per write).
	 */
	static final String HELD = " WHERE id = ? AND fence = ? AND COALESCE(state, '') = 'IN_PROGRESS'";

	private static final Logger logger = LoggerFactory.getLogger(WorkQueue.class);

	private final DataSource dataSource;

	private final ConnectionProvider connections;

	private final TableNames tables;

	private final String table;

	private final DatabaseTime time;

	private final Backoff backoff;

	private final QueueListener listener;

	private final KeyHeads heads;

	/** The statement that ends a claimed message: marks it DONE, or deletes it. */
	private final String completeSql;

	QueueOutcomes(DataSource dataSource, ConnectionProvider connections, TableNames tables, DatabaseTime time,
			Backoff backoff, QueueListener listener, KeyHeads heads, boolean deleteWhenDone) {
		this.dataSource = dataSource;
		this.connections = connections;
		this.tables = tables;
		this.table = tables.queue();
		this.time = time;
		this.backoff = backoff;
		this.listener = listener;
		this.heads = heads;
		this.completeSql = (deleteWhenDone ? "DELETE FROM " + this.table
				: "UPDATE " + this.table + " SET state = 'DONE', owner = NULL, lease_until = NULL, finished_at = " + this.time.now())
				+ HELD;
	}

	/** See {@link WorkQueue#complete(Connection, QueueMessage)}. */
	FencedWrite complete(Connection connection, QueueMessage message) {
		Objects.requireNonNull(message, "message must not be null");
		FencedWrite result;
		String sql = this.completeSql;
		try {
			if (message.businessKey() == null && connection.getAutoCommit()) {
				// one statement: it commits by itself, without a transaction's extra round trips
				result = fenced(connection, message, "complete", sql, (statement) -> {
				});
			}
			else {
				result = Sql.inConnectionTransaction(connection, (transaction) -> {
					FencedWrite written = fenced(transaction, message, "complete", sql, (statement) -> {
					});
					if (written.isApplied() && message.businessKey() != null) {
						this.heads.leave(transaction, message.queue(), message.businessKey());
					}
					return written;
				});
			}
		}
		catch (SQLException ex) {
			throw new DataAccessFailure("Could not complete message " + message.id() + " of queue '" + message.queue()
					+ "' in " + this.table, ex);
		}
		if (result.isApplied()) {
			notify(() -> this.listener.onCompleted(message.queue()));
		}
		return result;
	}

	/** See {@link WorkQueue#completeAll(List)}. */
	List<FencedWrite> completeAll(List<QueueMessage> messages) {
		Objects.requireNonNull(messages, "messages must not be null");
		if (messages.isEmpty()) {
			return List.of();
		}
		// rows locked in id order, like the claims, so that concurrent batches cannot deadlock
		List<QueueMessage> ordered = new ArrayList<>(messages);
		ordered.sort((a, b) -> Long.compare(a.id(), b.id()));
		int[] sortedCounts = Sql.inTransaction(this.dataSource, "complete " + messages.size() + " messages in "
				+ this.table, (connection) -> {
					try (PreparedStatement statement = connection.prepareStatement(this.completeSql)) {
						for (QueueMessage message : ordered) {
							statement.setLong(1, message.id());
							statement.setLong(2, message.fence());
							statement.addBatch();
						}
						int[] counts = statement.executeBatch();
						// the heads that left their keys, in key order (as enqueues lock them)
						List<QueueMessage> keyed = new ArrayList<>();
						for (int i = 0; i < ordered.size(); i++) {
							if (counts[i] == 1 && ordered.get(i).businessKey() != null) {
								keyed.add(ordered.get(i));
							}
						}
						keyed.sort(Comparator.comparing((QueueMessage m) -> m.queue())
							.thenComparing((m) -> Objects.requireNonNull(m.businessKey())));
						for (QueueMessage message : keyed) {
							this.heads.leave(connection, message.queue(), Objects.requireNonNull(message.businessKey()));
						}
						return counts;
					}
				});
		Map<QueueMessage, Integer> counts = new HashMap<>();
		for (int i = 0; i < ordered.size(); i++) {
			counts.put(ordered.get(i), sortedCounts[i]);
		}
		List<FencedWrite> results = new ArrayList<>(messages.size());
		for (QueueMessage message : messages) {
			if (counts.get(message) == 1) {
				results.add(FencedWrite.APPLIED);
				notify(() -> this.listener.onCompleted(message.queue()));
			}
			else {
				logger.debug("Fence rejected: could not complete message {} of queue '{}' with fence {}", message.id(),
						message.queue(), message.fence());
				notify(() -> this.listener.onFenceRejected(message.queue()));
				results.add(FencedWrite.REJECTED);
			}
		}
		return results;
	}

	/** See {@link WorkQueue#fail(QueueMessage, Throwable)}. */
	FencedWrite fail(QueueMessage message, Throwable failure) {
		Objects.requireNonNull(message, "message must not be null");
		Objects.requireNonNull(failure, "failure must not be null");
		boolean dead = message.isLastAttempt();
		String error = Arguments.describe(failure, MAX_ERROR_LENGTH);
		long delay = dead ? 0 : this.backoff.delayAfter(message.attempt()).toMillis();
		Connection connection = obtain();
		FencedWrite result;
		try {
			result = Sql.inConnectionTransaction(connection, (transaction) -> {
				FencedWrite written = fenced(transaction, message, "record a failure of",
						"UPDATE " + this.table + " SET state = ?, attempts = attempts + 1, owner = NULL, lease_until = NULL, "
								+ "last_error = ?, available_at = " + this.time.nowPlusMillis() + ", finished_at = "
								+ (dead ? this.time.now() : "NULL") + HELD,
						(statement) -> {
							statement.setString(1, dead ? "DEAD" : "FAILED");
							statement.setString(2, error);
							statement.setLong(3, delay);
						});
				if (written.isApplied() && dead) {
					markJob(transaction, message.id(), "FAILED", error);
				}
				return written;
			});
		}
		catch (SQLException ex) {
			throw new DataAccessFailure("Could not record a failure of message " + message.id() + " of queue '"
					+ message.queue() + "' in " + this.table, ex);
		}
		finally {
			release(connection);
		}
		if (result.isApplied()) {
			if (dead) {
				logger.warn("Message {} of queue '{}' is dead after {} attempts: {}", message.id(), message.queue(),
						message.attempt(), error);
				notify(() -> this.listener.onDead(message.queue()));
			}
			else {
				notify(() -> this.listener.onRetryScheduled(message.queue()));
			}
		}
		return result;
	}

	/** See {@link WorkQueue#postpone(QueueMessage, Throwable)}. */
	FencedWrite postpone(QueueMessage message, Throwable failure) {
		Objects.requireNonNull(message, "message must not be null");
		Objects.requireNonNull(failure, "failure must not be null");
		String error = Arguments.describe(failure, MAX_ERROR_LENGTH);
		long delay = this.backoff.delayAfter(message.attempt()).toMillis();
		Connection connection = obtain();
		try {
			FencedWrite result = fenced(connection, message, "postpone",
					"UPDATE " + this.table + " SET state = 'FAILED', owner = NULL, lease_until = NULL, last_error = ?, "
							+ "available_at = " + this.time.nowPlusMillis() + HELD,
					(statement) -> {
						statement.setString(1, error);
						statement.setLong(2, delay);
					});
			if (result.isApplied()) {
				notify(() -> this.listener.onRetryScheduled(message.queue()));
			}
			return result;
		}
		finally {
			release(connection);
		}
	}

	/** See {@link WorkQueue#markJob}. */
	void markJob(Connection connection, long messageId, String state, @Nullable String error)
			throws SQLException {
		String from = state.equals("FAILED") ? "DISPATCHED" : "FAILED";
		try (PreparedStatement statement = connection.prepareStatement("UPDATE " + this.tables.job() + " SET state = ?, "
				+ "last_error = ?, finished_at = " + this.time.now() + " WHERE message_id = ? AND state = ?")) {
			statement.setString(1, state);
			statement.setString(2, error);
			statement.setLong(3, messageId);
			statement.setString(4, from);
			statement.executeUpdate();
		}
	}

	/** See {@link WorkQueue#release(QueueMessage)}. */
	FencedWrite release(QueueMessage message) {
		Objects.requireNonNull(message, "message must not be null");
		Connection connection = obtain();
		try {
			return fenced(connection, message, "release",
					"UPDATE " + this.table + " SET state = CASE WHEN attempts = 0 THEN 'NEW' ELSE 'FAILED' END, "
							+ "fence = fence + 1, owner = NULL, lease_until = NULL, available_at = "
							+ this.time.now() + HELD,
					(statement) -> {
					});
		}
		finally {
			release(connection);
		}
	}

	/**
	 * Writes to a claimed message only while the claim holds ({@link #HELD}). The statement may be
	 * prepared on the server and run with a generic plan (no planning per message): its condition
	 * leaves the primary key as the only index a plan can use.
	 */
	private FencedWrite fenced(Connection connection, QueueMessage message, String what, String sql, Binder binder) {
		try (PreparedStatement statement = connection.prepareStatement(sql)) {
			binder.bind(statement);
			int count = (int) sql.chars().filter((c) -> c == '?').count();
			statement.setLong(count - 1, message.id());
			statement.setLong(count, message.fence());
			if (statement.executeUpdate() == 1) {
				return FencedWrite.APPLIED;
			}
		}
		catch (SQLException ex) {
			throw new DataAccessFailure("Could not " + what + " message " + message.id() + " of queue '"
					+ message.queue() + "' in " + this.table, ex);
		}
		logger.debug("Fence rejected: could not {} message {} of queue '{}' with fence {}: the claim was lost "
				+ "(lease expired and the message was recovered or reclaimed)", what, message.id(), message.queue(),
				message.fence());
		notify(() -> this.listener.onFenceRejected(message.queue()));
		return FencedWrite.REJECTED;
	}

	private Connection obtain() {
		return Sql.obtain(this.connections, this.table);
	}

	private void release(Connection connection) {
		Sql.release(this.connections, connection, this.table);
	}

	private void notify(Runnable callback) {
		notify(this.listener, callback);
	}

	/** Tells the listener of something, logging (not throwing) what the listener throws. */
	static void notify(QueueListener listener, Runnable callback) {
		Listeners.notify(logger, "Queue listener", listener, callback);
	}

	@FunctionalInterface
	interface Binder {

		void bind(PreparedStatement statement) throws SQLException;

	}

}
