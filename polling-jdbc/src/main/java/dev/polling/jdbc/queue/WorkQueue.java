package dev.polling.jdbc.queue;

import dev.polling.jdbc.Backoff;
import dev.polling.jdbc.ConnectionProvider;
import dev.polling.jdbc.DataAccessFailure;
import dev.polling.jdbc.DatabaseTime;
import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.FencedWrite;
import dev.polling.jdbc.TableNames;
import dev.polling.jdbc.builder.ClaimBuilder;
import dev.polling.jdbc.internal.Arguments;
import dev.polling.jdbc.builder.ClaimBuilder.Claims;
import dev.polling.jdbc.builder.StoreBuilder.Store;
import dev.polling.jdbc.internal.Sql;
import java.sql.Connection;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * A work queue in a database table, processed by workers on every instance (seed 004): nothing
 * lost, nothing done twice, nothing stuck.
 * <ul>
 * <li>{@link #enqueue} joins the caller's transaction (typically right after the inbox said NEW).</li>
 * <li>{@link QueueWorkers} claim batches of ready messages in short transactions of their own,
 * with {@code FOR UPDATE SKIP LOCKED}, so that instances never wait for or take each other's rows.
 * Each claim sets the owner and a lease in database time, and bumps the row's <em>fence</em>.</li>
 * <li>Completions, failures and releases write only while the row still carries the claim's fence;
 * otherwise they answer {@link FencedWrite#REJECTED} (counted by the {@link QueueListener}, not
 * thrown).</li>
 * <li>The workers renew the leases of everything their instance holds, prefetched messages
 * included, each only under its claim's fence, and recover messages whose lease ran out (their
 * holder stopped) as FAILED and claimable at once, bumping the fence so the old holder cannot
 * complete. An expired lease does not count as an attempt: attempts count handler failures, so
 * instances that crash while holding a message never use them up.</li>
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

	private final ConnectionProvider connections;

	private final Dialect dialect;

	private final TableNames tables;

	private final String owner;

	private final String table;

	private final Duration leaseTime;

	private final int maxAttempts;

	private final boolean joinsCallerTransactions;

	private final boolean deleteWhenDone;

	private final QueueAdmin admin;

	/** The inserts of {@link #enqueue} and {@link #enqueueAll}. */
	private final QueueEnqueues enqueues;

	/** The claims, lease renewals and recoveries. */
	private final QueueLeases leases;

	/** The fenced writes to claimed messages. */
	private final QueueOutcomes outcomes;

	private WorkQueue(Builder builder, Store store, Claims claims) {
		this.connections = store.connections();
		this.joinsCallerTransactions = store.joinsCallerTransactions();
		this.dialect = store.dialect();
		this.tables = store.tables();
		DatabaseTime time = new DatabaseTime(this.dialect);
		this.owner = claims.owner();
		this.leaseTime = claims.leaseTime();
		this.maxAttempts = claims.maxAttempts();
		String table = this.tables.queue();
		this.table = table;
		this.leases = new QueueLeases(store.dataSource(), this.dialect, table, time, this.owner, this.leaseTime,
				builder.listener);
		KeyHeads heads = new KeyHeads(this.dialect, table, this.tables.queueKey());
		this.deleteWhenDone = builder.deleteWhenDone;
		this.outcomes = new QueueOutcomes(store.dataSource(), this.connections, this.tables, time, store.backoff(),
				builder.listener, heads, this.deleteWhenDone);
		this.enqueues = new QueueEnqueues(table, time, this.maxAttempts, builder.listener, heads);
		this.admin = new QueueAdmin(this.outcomes, store.dataSource(), this.dialect, this.tables, time, heads);
	}

	/**
	 * Starts building a queue on a data source. Enqueues and completions borrow a connection per
	 * call unless {@link Builder#connections} joins them to a transaction manager; claims, renewals
	 * and recoveries always run in short transactions of their own on this data source.
	 * @param dataSource the data source
	 * @return the builder
	 */
	public static Builder builder(DataSource dataSource) {
		return new Builder(dataSource);
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
		QueueEnqueues.validate(queue, businessKey, payload);
		return this.enqueues.enqueue(connection, queue, businessKey, payload);
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
			QueueEnqueues.validate(queue, message.businessKey(), message.payload());
		}
		if (messages.isEmpty()) {
			return 0;
		}
		return this.enqueues.enqueueAll(connection, queue, messages);
	}

	// ---- the workers' protocol (QueueWorkers, QueueHandling): package-private, not an API

	/**
	 * Claims up to {@code limit} ready messages of a queue for this instance, oldest first, in a
	 * transaction of its own, with {@code SKIP LOCKED}; per-key order holds (a message is claimable
	 * only when no older message of its key is open).
	 */
	List<QueueMessage> claim(String queue, int limit) {
		Arguments.key("queue", queue, MAX_QUEUE_LENGTH, "pass the queue name used to enqueue");
		if (limit < 1 || limit > 1000) {
			throw new IllegalArgumentException("limit must be between 1 and 1000 but was " + limit
					+ ": e.g. 10 for batches, 1 for single-row claims");
		}
		return this.leases.claim(queue, limit);
	}

	/** Marks a claimed message DONE in the transaction of the provider's connection; fenced. */
	FencedWrite complete(QueueMessage message) {
		Connection connection = obtain();
		try {
			return complete(connection, message);
		}
		finally {
			release(connection);
		}
	}

	/** Marks a claimed message DONE on the given connection (e.g. the handler's transaction); fenced. */
	FencedWrite complete(Connection connection, QueueMessage message) {
		return this.outcomes.complete(connection, message);
	}

	/** Marks claimed messages DONE in one transaction of its own (one JDBC batch), each fenced. */
	List<FencedWrite> completeAll(List<QueueMessage> messages) {
		return this.outcomes.completeAll(messages);
	}

	/** Records a failed attempt: FAILED with a retry after the backoff, or DEAD on the last; fenced. */
	FencedWrite fail(QueueMessage message, Throwable failure) {
		return this.outcomes.fail(message, failure);
	}

	/** Gives a message back after a transient database failure, without counting an attempt; fenced. */
	FencedWrite postpone(QueueMessage message, Throwable failure) {
		return this.outcomes.postpone(message, failure);
	}

	/** Gives a claimed, unprocessed message back, claimable at once, no attempt counted; fenced. */
	FencedWrite release(QueueMessage message) {
		return this.outcomes.release(message);
	}

	/**
	 * Extends the lease of every message this instance holds, under each claim's fence, and answers
	 * those no longer held.
	 */
	List<QueueMessage> renewLeases(Collection<QueueMessage> held) {
		return this.leases.renewLeases(held);
	}

	/**
	 * Recovers messages whose lease expired: FAILED and claimable at once, no attempt counted, the
	 * fence bumped so the old holder's late writes are rejected. Safe on every instance at once.
	 */
	int expireLeases() {
		return this.leases.expireLeases();
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
		return this.leases.claimSql();
	}

	private Connection obtain() {
		return Sql.obtain(this.connections, this.table);
	}

	private void release(Connection connection) {
		Sql.release(this.connections, connection, this.table);
	}

	/**
	 * Builds a {@link WorkQueue}: where enqueues and completions get their connection
	 * ({@link #connections}), the lease of a claim (default 30 s; the workers renew every third of
	 * it), the attempts before a message goes dead (default {@value #DEFAULT_MAX_ATTEMPTS}) and the
	 * backoff between them, as every claiming part is built.
	 */
	public static final class Builder extends ClaimBuilder<Builder> {

		private QueueListener listener = QueueListener.NONE;

		private boolean deleteWhenDone;

		private Builder(DataSource dataSource) {
			super(dataSource, DEFAULT_LEASE_TIME, DEFAULT_MAX_ATTEMPTS,
					"longer than a normal pause of the application (GC, slow database), e.g. 30s");
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
			return new WorkQueue(this, store(), claims());
		}

	}

}
