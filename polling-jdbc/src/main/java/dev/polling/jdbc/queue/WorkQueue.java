package dev.polling.jdbc.queue;

import dev.polling.jdbc.Backoff;
import dev.polling.jdbc.ConnectionProvider;
import dev.polling.jdbc.DataAccessFailure;
import dev.polling.jdbc.DatabaseTime;
import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.FencedWrite;
import dev.polling.jdbc.TableNames;
import dev.polling.jdbc.internal.Arguments;
import dev.polling.jdbc.internal.DialectSql;
import dev.polling.jdbc.internal.LeasedRows;
import dev.polling.jdbc.internal.Sql;
import dev.polling.jdbc.internal.UnansweredClaims;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A work queue in a database table, processed by workers on every instance (seed 004): nothing
 * lost, nothing done twice, nothing stuck.
 * <ul>
 * <li>{@link #enqueue} joins the caller's transaction (typically right after the inbox said NEW).</li>
 * <li>{@link #claim} takes a batch of ready messages in one short transaction of its own, with
 * {@code FOR UPDATE SKIP LOCKED}, so that instances never wait for or take each other's rows. Each
 * claim sets the owner and a lease in database time, and bumps the row's <em>fence</em>.</li>
 * <li>{@link #complete}, {@link #fail} and {@link #release} write only while the row still carries
 * the claim's fence; otherwise they answer {@link FencedWrite#REJECTED} (counted, not thrown).</li>
 * <li>{@link #renewLeases} extends the leases of everything an instance holds, prefetched messages
 * included, each only under its claim's fence; {@link #expireLeases} recovers messages whose lease
 * ran out (their holder stopped) as FAILED and claimable at once, bumping the fence so the old
 * holder cannot complete. An expired lease does not count as an attempt: attempts count handler
 * failures ({@link #fail}), so instances that crash while holding a message never use them up.</li>
 * <li>Messages with a business key are processed one at a time per key, in enqueue order: only the
 * oldest open message of a key (its head) is claimable; the younger ones wait in state BLOCKED
 * until the head is DONE (or, DEAD, discarded), so claims never read them and cost the same however
 * many wait. Enqueues and completions of one key are ordered by a row per key in
 * {@code <prefix>queue_key}, locked by the enqueuing or completing transaction.</li>
 * <li>A failure schedules a retry after the {@link Backoff}; the last allowed attempt (default
 * {@value #DEFAULT_MAX_ATTEMPTS}) makes the message DEAD with its last error, which blocks its key
 * ({@link #blockedKeys}) until an operator {@link #retry retries} or {@link #discard discards} it.</li>
 * </ul>
 * Limits: queue names at most {@value #MAX_QUEUE_LENGTH} characters, business keys at most
 * {@value #MAX_KEY_LENGTH}, payloads at most {@value #MAX_PAYLOAD_LENGTH}. Thread-safe; one
 * instance per application instance (its owner id identifies the instance's claims).
 */
public final class WorkQueue {

	/** Longest queue name. */
	public static final int MAX_QUEUE_LENGTH = 100;

	/** Longest business key. */
	public static final int MAX_KEY_LENGTH = 255;

	/** Longest payload, in characters. */
	public static final int MAX_PAYLOAD_LENGTH = 1_000_000;

	/** Default attempts before a message goes dead. */
	public static final int DEFAULT_MAX_ATTEMPTS = 3;

	/** Default lease of a claim. */
	public static final Duration DEFAULT_LEASE_TIME = Duration.ofSeconds(30);

	static final int MAX_ERROR_LENGTH = 1000;

	private static final Logger logger = LoggerFactory.getLogger(WorkQueue.class);

	/**
	 * The condition of every fenced write: the row still carries the claim's fence and is in
	 * progress. The state test is written so that it implies no partial index's predicate: a plan
	 * the server reuses for any parameters (a generic plan of a prepared statement) can then only
	 * find the row by its primary key, never by scanning the index of rows in progress, which a plan
	 * made while the statistics counted none of them chose (measured: 20,000 rows read per write).
	 */
	static final String HELD = " WHERE id = ? AND fence = ? AND COALESCE(state, '') = 'IN_PROGRESS'";

	private static final String COLUMNS = "id, queue, business_key, payload, attempts, max_attempts, fence, enqueued_at";

	private final DataSource dataSource;

	private final ConnectionProvider connections;

	private final Dialect dialect;

	private final TableNames tables;

	private final DatabaseTime time;

	private final String owner;

	/**
	 * Claims whose answer was lost (the connection broke after the server committed): their rows were
	 * never handed to a worker and are released by the next claim instead of waiting out their lease.
	 */
	private final UnansweredClaims unanswered;

	private final Duration leaseTime;

	private final int maxAttempts;

	private final Backoff backoff;

	private final QueueListener listener;

	private final LeasedRows rows;

	private final KeyHeads heads;

	private final String table;

	private final boolean joinsCallerTransactions;

	/** The statement that ends a claimed message: marks it DONE, or deletes it. */
	private final String completeSql;

	private final boolean deleteWhenDone;

	private final QueueAdmin admin;

	private WorkQueue(Builder builder, Dialect dialect) {
		this.dataSource = builder.dataSource;
		this.connections = (builder.connections != null) ? builder.connections : ConnectionProvider.of(builder.dataSource);
		this.joinsCallerTransactions = builder.connections != null;
		this.dialect = dialect;
		this.tables = builder.tables;
		this.time = new DatabaseTime(dialect);
		this.owner = Arguments.cut(builder.instanceId, 160) + "/" + UUID.randomUUID().toString().substring(0, 8);
		this.leaseTime = builder.leaseTime;
		this.maxAttempts = builder.maxAttempts;
		this.backoff = builder.backoff;
		this.listener = builder.listener;
		this.table = this.tables.queue();
		this.rows = new LeasedRows(dialect, this.table, "queue", "NEW", "FAILED", "IN_PROGRESS", COLUMNS);
		// no attempt counted: the rows were never handed to a handler
		this.unanswered = new UnansweredClaims(this.owner, "UPDATE " + this.table + " SET state = CASE WHEN attempts = 0 "
				+ "THEN 'NEW' ELSE 'FAILED' END, fence = fence + 1, owner = NULL, lease_until = NULL, available_at = "
				+ this.time.now() + " WHERE state = 'IN_PROGRESS' AND owner = ?");
		this.heads = new KeyHeads(dialect, this.table, this.tables.queueKey());
		this.deleteWhenDone = builder.deleteWhenDone;
		this.completeSql = (this.deleteWhenDone ? "DELETE FROM " + this.table
				: "UPDATE " + this.table + " SET state = 'DONE', owner = NULL, lease_until = NULL, finished_at = " + this.time.now())
				+ HELD;
		this.admin = new QueueAdmin(this, builder.dataSource, dialect, this.tables, this.time, this.heads);
	}

	/**
	 * Starts building a queue on a data source. Enqueues and completions borrow a connection per
	 * call unless {@link Builder#connections} joins them to a transaction manager; claims, renewals
	 * and recoveries always run in short transactions of their own on this data source.
	 * @param dataSource the data source
	 * @return the builder
	 */
	public static Builder builder(DataSource dataSource) {
		return new Builder(Objects.requireNonNull(dataSource, "dataSource must not be null"));
	}

	// ---- enqueue

	/**
	 * Enqueues a message in the transaction of the provider's connection.
	 * @param queue the queue name
	 * @param businessKey the ordering key, or {@code null} for no ordering
	 * @param payload the payload
	 * @return the message id
	 * @throws IllegalArgumentException if an argument is invalid
	 * @throws DataAccessFailure if the database fails
	 */
	public long enqueue(String queue, @Nullable String businessKey, String payload) {
		Connection connection = obtain();
		try {
			return enqueue(connection, queue, businessKey, payload);
		}
		finally {
			release(connection);
		}
	}

	/**
	 * Enqueues a message on the given connection, in its current transaction.
	 * @param connection the connection
	 * @param queue the queue name
	 * @param businessKey the ordering key, or {@code null}
	 * @param payload the payload
	 * @return the message id
	 */
	public long enqueue(Connection connection, String queue, @Nullable String businessKey, String payload) {
		validate(queue, businessKey, payload);
		try {
			long id = Sql.inConnectionTransaction(connection, (transaction) -> {
				boolean head = businessKey == null || this.heads.join(transaction, queue, businessKey, 1) == 0;
				try (PreparedStatement statement = transaction.prepareStatement(insertSql(),
						Statement.RETURN_GENERATED_KEYS)) {
					bindInsert(statement, queue, businessKey, payload, head);
					statement.executeUpdate();
					try (ResultSet keys = statement.getGeneratedKeys()) {
						keys.next();
						return keys.getLong(1);
					}
				}
			});
			notify(() -> this.listener.onEnqueued(queue, 1));
			return id;
		}
		catch (SQLException ex) {
			throw new DataAccessFailure("Could not enqueue a message in " + this.table + " (queue '" + queue + "')", ex);
		}
	}

	/**
	 * Enqueues messages in one JDBC batch, in list order, in the transaction of the provider's
	 * connection.
	 * @param queue the queue name
	 * @param messages the messages
	 * @return how many were enqueued
	 */
	public int enqueueAll(String queue, List<NewMessage> messages) {
		Connection connection = obtain();
		try {
			return enqueueAll(connection, queue, messages);
		}
		finally {
			release(connection);
		}
	}

	/**
	 * Enqueues messages in one JDBC batch on the given connection.
	 * @param connection the connection
	 * @param queue the queue name
	 * @param messages the messages
	 * @return how many were enqueued
	 */
	public int enqueueAll(Connection connection, String queue, List<NewMessage> messages) {
		Objects.requireNonNull(messages, "messages must not be null");
		for (int i = 0; i < messages.size(); i++) {
			NewMessage message = Objects.requireNonNull(messages.get(i), "messages[" + i + "] must not be null");
			validate(queue, message.businessKey(), message.payload());
		}
		if (messages.isEmpty()) {
			return 0;
		}
		// the keys' rows are locked in key order, so that concurrent batches cannot deadlock on them
		Map<String, Integer> perKey = new TreeMap<>();
		for (NewMessage message : messages) {
			if (message.businessKey() != null) {
				perKey.merge(message.businessKey(), 1, Integer::sum);
			}
		}
		try {
			Sql.inConnectionTransaction(connection, (transaction) -> {
				Set<String> headless = new HashSet<>();
				for (Map.Entry<String, Integer> key : perKey.entrySet()) {
					if (this.heads.join(transaction, queue, key.getKey(), key.getValue()) == 0) {
						headless.add(key.getKey());
					}
				}
				try (PreparedStatement statement = transaction.prepareStatement(insertSql())) {
					for (NewMessage message : messages) {
						String key = message.businessKey();
						boolean head = key == null || headless.remove(key);
						bindInsert(statement, queue, key, message.payload(), head);
						statement.addBatch();
					}
					statement.executeBatch();
				}
				return null;
			});
		}
		catch (SQLException ex) {
			throw new DataAccessFailure("Could not enqueue " + messages.size() + " messages in " + this.table
					+ " (queue '" + queue + "')", ex);
		}
		notify(() -> this.listener.onEnqueued(queue, messages.size()));
		return messages.size();
	}

	private String insertSql() {
		return "INSERT INTO " + this.table + " (queue, business_key, payload, state, attempts, max_attempts, fence, "
				+ "available_at, enqueued_at) VALUES (?, ?, ?, ?, 0, ?, 0, " + this.time.now() + ", "
				+ this.time.now() + ")";
	}

	private void bindInsert(PreparedStatement statement, String queue, @Nullable String businessKey, String payload,
			boolean head) throws SQLException {
		statement.setString(1, queue);
		statement.setString(2, businessKey);
		statement.setString(3, payload);
		statement.setString(4, head ? "NEW" : "BLOCKED");
		statement.setInt(5, this.maxAttempts);
	}

	static void validate(@Nullable String queue, @Nullable String businessKey, @Nullable String payload) {
		Arguments.key("queue", queue, MAX_QUEUE_LENGTH, "name the queue in at most " + MAX_QUEUE_LENGTH
				+ " characters, e.g. \"mails\"");
		if (businessKey != null) {
			Arguments.key("businessKey", businessKey, MAX_KEY_LENGTH,
					"pass null for an unordered message, or a key of at most " + MAX_KEY_LENGTH
							+ " characters (e.g. a customer id or a hash of a longer key)");
		}
		Arguments.payload("payload", payload, MAX_PAYLOAD_LENGTH);
	}

	// ---- claim and fenced writes

	/**
	 * Claims up to {@code limit} ready messages of a queue for this instance, oldest first, in a
	 * transaction of its own. Never waits for rows other instances are claiming. Per-key ordering
	 * holds whatever the claim order: a message is claimable only when no older message of its key
	 * is open.
	 * @param queue the queue name
	 * @param limit the most messages to claim, 1 to 1000
	 * @return the claimed messages in id order, possibly none
	 * @throws DataAccessFailure if the database fails
	 */
	public List<QueueMessage> claim(String queue, int limit) {
		Arguments.key("queue", queue, MAX_QUEUE_LENGTH, "pass the queue name used to enqueue");
		if (limit < 1 || limit > 1000) {
			throw new IllegalArgumentException("limit must be between 1 and 1000 but was " + limit
					+ ": e.g. 10 for batches, 1 for single-row claims");
		}
		this.unanswered.release(this.dataSource, (claimOwner, released) -> logger.info("Released {} message(s) of {} "
				+ "taken by a claim whose answer was lost ({}): never handled, claimable again", released, this.table, claimOwner));
		List<QueueMessage> claimed = this.unanswered.claiming((claimOwner) -> this.rows.claim(this.dataSource, queue,
				claimOwner, this.leaseTime.toMillis(), limit, this::map));
		if (!claimed.isEmpty()) {
			if (this.dialect == Dialect.POSTGRESQL) {
				claimed = new ArrayList<>(claimed);
				claimed.sort((a, b) -> Long.compare(a.id(), b.id()));
			}
			int count = claimed.size();
			notify(() -> this.listener.onClaimed(queue, count));
		}
		return claimed;
	}

	private QueueMessage map(ResultSet result) throws SQLException {
		return new QueueMessage(result.getLong("id"), result.getString("queue"), result.getString("business_key"),
				result.getString("payload"), result.getInt("attempts") + 1, result.getInt("max_attempts"),
				result.getLong("fence"), this.time.read(result, result.findColumn("enqueued_at")));
	}

	/**
	 * Marks a claimed message DONE, in the transaction of the provider's connection.
	 * @param message the claimed message
	 * @return {@link FencedWrite#REJECTED} if the claim was lost (counted, nothing written)
	 */
	public FencedWrite complete(QueueMessage message) {
		Connection connection = obtain();
		try {
			return complete(connection, message);
		}
		finally {
			release(connection);
		}
	}

	/**
	 * Marks a claimed message DONE on the given connection, e.g. in the transaction of the work the
	 * message caused.
	 * @param connection the connection
	 * @param message the claimed message
	 * @return {@link FencedWrite#REJECTED} if the claim was lost (counted, nothing written)
	 */
	public FencedWrite complete(Connection connection, QueueMessage message) {
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

	/**
	 * Marks several claimed messages DONE in one transaction of its own (one JDBC batch), so that
	 * many completions share one commit. Each is fenced like {@link #complete(QueueMessage)}.
	 * @param messages the claimed messages
	 * @return the outcome per message, in the same order
	 */
	public List<FencedWrite> completeAll(List<QueueMessage> messages) {
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

	/**
	 * Records a failed attempt: FAILED with a retry after the backoff, or DEAD on the last attempt.
	 * Stores the failure's class and message (no stack trace), cut to 1000 characters.
	 * @param message the claimed message
	 * @param failure why it failed
	 * @return {@link FencedWrite#REJECTED} if the claim was lost (counted, nothing written)
	 */
	public FencedWrite fail(QueueMessage message, Throwable failure) {
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

	/**
	 * Gives a claimed message back after a transient failure that is not the handler's (the database
	 * rolled the transaction back: a deadlock, a lost connection, a timeout): FAILED, claimable again
	 * after the backoff, without counting an attempt.
	 * @param message the claimed message
	 * @param failure what went wrong, kept as the last error
	 * @return {@link FencedWrite#REJECTED} if the claim was lost (counted, nothing written)
	 */
	public FencedWrite postpone(QueueMessage message, Throwable failure) {
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

	/**
	 * A job's message (see {@code JobScheduler}) that went DEAD fails its job; one retried by an
	 * operator makes the job DISPATCHED again. Messages that are not a job's change nothing.
	 */
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

	/**
	 * Gives a claimed but unprocessed message back (e.g. prefetched when the workers stop): it
	 * becomes claimable at once; no attempt is counted.
	 * @param message the claimed message
	 * @return {@link FencedWrite#REJECTED} if the claim was lost already
	 */
	public FencedWrite release(QueueMessage message) {
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

	@FunctionalInterface
	interface Binder {

		void bind(PreparedStatement statement) throws SQLException;

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

	// ---- leases

	/**
	 * Extends the lease of every message this instance holds (running and prefetched) in one
	 * statement per 500 messages, and answers those no longer held.
	 * @param held the messages this instance believes it holds
	 * @return the messages whose claim was lost (lease expired and recovered or reclaimed)
	 * @throws DataAccessFailure if the database fails
	 */
	public List<QueueMessage> renewLeases(Collection<QueueMessage> held) {
		if (held.isEmpty()) {
			return List.of();
		}
		Map<Long, QueueMessage> byId = new LinkedHashMap<>();
		for (QueueMessage message : held) {
			byId.put(message.id(), message);
		}
		Map<Long, Long> claims = new LinkedHashMap<>();
		byId.forEach((id, message) -> claims.put(id, message.fence()));
		int renewed = this.rows.renew(this.dataSource, claims, this.leaseTime.toMillis());
		if (renewed == byId.size()) {
			return List.of();
		}
		Map<Long, Long> fences = this.rows.fences(this.dataSource, byId.keySet());
		List<QueueMessage> lost = new ArrayList<>();
		for (QueueMessage message : byId.values()) {
			Long fence = fences.get(message.id());
			if (fence == null || fence != message.fence()) {
				lost.add(message);
			}
		}
		Map<String, Integer> perQueue = new HashMap<>();
		lost.forEach((message) -> perQueue.merge(message.queue(), 1, Integer::sum));
		perQueue.forEach((queue, count) -> notify(() -> this.listener.onClaimsLost(queue, count)));
		if (!lost.isEmpty()) {
			logger.info("{} claimed message(s) of this instance were taken over after their lease expired", lost.size());
		}
		return lost;
	}

	/**
	 * Recovers messages whose lease expired (their holder stopped renewing): FAILED and claimable at
	 * once, without counting an attempt (a handler that fails counts; an instance that crashed or
	 * froze does not). Bumps the fence, so the old holder's late writes are rejected. Safe to run on
	 * every instance at once.
	 * @return how many leases this call recovered
	 * @throws DataAccessFailure if the database fails
	 */
	public int expireLeases() {
		String now = this.time.now();
		String set = "UPDATE " + this.table + " SET state = 'FAILED', last_error = CONCAT('lease of ', owner, ' expired'), "
				+ "fence = fence + 1, owner = NULL, lease_until = NULL, available_at = " + now;
		String expired = "state = 'IN_PROGRESS' AND lease_until < " + now;
		// rows another transaction holds (a claim, a completion, another instance's recovery) are skipped,
		// never waited for: they are recovered at the next round if still expired
		int count = Sql.inTransaction(this.dataSource, "recover expired leases in " + this.table, (connection) -> {
			if (this.dialect == Dialect.POSTGRESQL) {
				// ARRAY(...) runs the locking pick once, whatever the statistics (see LeasedRows)
				try (PreparedStatement statement = connection.prepareStatement(set + " WHERE id = ANY(ARRAY(SELECT id FROM "
						+ this.table + " WHERE " + expired + " LIMIT 1000 FOR UPDATE SKIP LOCKED)) AND " + expired)) {
					return statement.executeUpdate();
				}
			}
			List<Long> ids = new ArrayList<>();
			try (PreparedStatement statement = connection.prepareStatement("SELECT id FROM " + this.table + " WHERE "
					+ expired + DialectSql.limit(this.dialect, "1000")
					+ " FOR UPDATE SKIP LOCKED");
					ResultSet result = statement.executeQuery()) {
				while (result.next()) {
					ids.add(result.getLong(1));
				}
			}
			if (ids.isEmpty()) {
				return 0;
			}
			try (PreparedStatement statement = connection.prepareStatement(set + " WHERE id IN ("
					+ Sql.placeholders(ids.size()) + ") AND " + expired)) {
				int index = 1;
				for (Long id : ids) {
					statement.setLong(index++, id);
				}
				return statement.executeUpdate();
			}
		});
		if (count > 0) {
			logger.info("Recovered {} message(s) of {} whose lease expired", count, this.table);
			notify(() -> this.listener.onLeasesExpired(count));
		}
		return count;
	}

	// ---- accessors

	/**
	 * The operator's view and actions on this queue (statistics, entries, blocked keys, retry,
	 * discard, purge), kept apart from the workers' path.
	 * @return the admin operations
	 */
	public QueueAdmin admin() {
		return this.admin;
	}

	/**
	 * The owner id this queue writes into the rows it claims: the instance id plus a random suffix.
	 * @return the owner id
	 */
	public String owner() {
		return this.owner;
	}

	/**
	 * The lease of a claim.
	 * @return the lease time
	 */
	public Duration leaseTime() {
		return this.leaseTime;
	}

	/**
	 * The attempts given to newly enqueued messages.
	 * @return the max attempts
	 */
	public int maxAttempts() {
		return this.maxAttempts;
	}

	/**
	 * Whether enqueues and completions use connections from a {@link Builder#connections provider}
	 * (which may bind them to the caller's transaction) rather than borrowing their own.
	 * @return {@code true} if built with {@link Builder#connections}
	 */
	public boolean joinsCallerTransactions() {
		return this.joinsCallerTransactions;
	}

	/**
	 * Whether a completion deletes the message instead of keeping it as DONE.
	 * @return {@code true} if built with {@link Builder#deleteWhenDone(boolean) deleteWhenDone(true)}
	 */
	public boolean deletesWhenDone() {
		return this.deleteWhenDone;
	}

	/**
	 * The dialect.
	 * @return the dialect
	 */
	public Dialect dialect() {
		return this.dialect;
	}

	/**
	 * The table names.
	 * @return the table names
	 */
	public TableNames tables() {
		return this.tables;
	}

	/**
	 * The PostgreSQL claim statement (for documentation).
	 * @return the SQL
	 */
	String claimSql() {
		return this.rows.claimSql();
	}

	private Connection obtain() {
		return Sql.obtain(this.connections, this.table);
	}

	private void release(Connection connection) {
		Sql.release(this.connections, connection, this.table);
	}

	private void notify(Runnable callback) {
		try {
			callback.run();
		}
		catch (RuntimeException ex) {
			logger.warn("Queue listener {} failed", this.listener, ex);
		}
	}

	static String defaultInstanceId() {
		String host;
		try {
			host = InetAddress.getLocalHost().getHostName();
		}
		catch (Exception ex) {
			host = "localhost";
		}
		return host + ":" + ManagementFactory.getRuntimeMXBean().getPid();
	}

	/**
	 * Builds a {@link WorkQueue}.
	 */
	public static final class Builder {

		private final DataSource dataSource;

		private @Nullable ConnectionProvider connections;

		private @Nullable Dialect dialect;

		private TableNames tables = TableNames.defaults();

		private String instanceId = defaultInstanceId();

		private Duration leaseTime = DEFAULT_LEASE_TIME;

		private int maxAttempts = DEFAULT_MAX_ATTEMPTS;

		private Backoff backoff = Backoff.defaults();

		private QueueListener listener = QueueListener.NONE;

		private boolean deleteWhenDone;

		private Builder(DataSource dataSource) {
			this.dataSource = dataSource;
		}

		/**
		 * Sets where enqueues and completions get their connection, e.g. one bound to the current
		 * transaction (default: a connection borrowed from the data source per call).
		 * @param connections the provider
		 * @return this builder
		 */
		public Builder connections(ConnectionProvider connections) {
			this.connections = Objects.requireNonNull(connections, "connections must not be null");
			return this;
		}

		/**
		 * Sets the dialect instead of detecting it at {@link #build()}.
		 * @param dialect the dialect
		 * @return this builder
		 */
		public Builder dialect(Dialect dialect) {
			this.dialect = Objects.requireNonNull(dialect, "dialect must not be null");
			return this;
		}

		/**
		 * Sets the table names.
		 * @param tables the table names
		 * @return this builder
		 */
		public Builder tables(TableNames tables) {
			this.tables = Objects.requireNonNull(tables, "tables must not be null");
			return this;
		}

		/**
		 * Sets the instance id written (with a random suffix) as owner of claimed rows (default: host
		 * name and pid).
		 * @param instanceId the instance id
		 * @return this builder
		 */
		public Builder instanceId(String instanceId) {
			this.instanceId = Arguments.key("instanceId", instanceId, 160, "e.g. the host name and pid");
			return this;
		}

		/**
		 * Sets the lease of a claim (default 30 s). Renew well within it (the workers renew every
		 * third of it).
		 * @param leaseTime between 1 s and 1 day
		 * @return this builder
		 */
		public Builder leaseTime(Duration leaseTime) {
			Objects.requireNonNull(leaseTime, "leaseTime must not be null");
			if (leaseTime.compareTo(Duration.ofSeconds(1)) < 0 || leaseTime.compareTo(Duration.ofDays(1)) > 0) {
				throw new IllegalArgumentException("leaseTime must be between 1s and 1d but was " + leaseTime
						+ ": longer than a normal pause of the application (GC, slow database), e.g. 30s");
			}
			this.leaseTime = leaseTime;
			return this;
		}

		/**
		 * Sets the attempts before a message goes dead (default {@value #DEFAULT_MAX_ATTEMPTS});
		 * stored with each message at enqueue.
		 * @param maxAttempts between 1 and 100
		 * @return this builder
		 */
		public Builder maxAttempts(int maxAttempts) {
			if (maxAttempts < 1 || maxAttempts > 100) {
				throw new IllegalArgumentException("maxAttempts must be between 1 and 100 but was " + maxAttempts
						+ ": e.g. 3");
			}
			this.maxAttempts = maxAttempts;
			return this;
		}

		/**
		 * Sets the backoff between attempts.
		 * @param backoff the backoff
		 * @return this builder
		 */
		public Builder backoff(Backoff backoff) {
			this.backoff = Objects.requireNonNull(backoff, "backoff must not be null");
			return this;
		}

		/**
		 * Sets the listener.
		 * @param listener the listener
		 * @return this builder
		 */
		public Builder listener(QueueListener listener) {
			this.listener = Objects.requireNonNull(listener, "listener must not be null");
			return this;
		}

		/**
		 * Whether a completion deletes the message instead of marking it DONE (off by default). The
		 * fence is checked the same way, and a key's next message is released the same way; only the
		 * history goes: no DONE rows to look at, none for the retention purge to delete, and the
		 * database does less per message (a delete adds no index entries, an update to DONE adds
		 * two). For queues whose finished messages nobody reads.
		 * @param deleteWhenDone whether to delete completed messages
		 * @return this builder
		 */
		public Builder deleteWhenDone(boolean deleteWhenDone) {
			this.deleteWhenDone = deleteWhenDone;
			return this;
		}

		/**
		 * Builds the queue, detecting the dialect from one connection if none was set.
		 * @return the queue
		 */
		public WorkQueue build() {
			Dialect resolved = (this.dialect != null) ? this.dialect : Dialect.detect(this.dataSource);
			return new WorkQueue(this, resolved);
		}

	}

}
