package dev.polling.jdbc.delivery;

import dev.polling.jdbc.ConnectionProvider;
import dev.polling.jdbc.DataAccessFailure;
import dev.polling.jdbc.DatabaseTime;
import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.TableNames;
import dev.polling.jdbc.builder.ClaimBuilder;
import dev.polling.jdbc.builder.ClaimBuilder.Claims;
import dev.polling.jdbc.builder.StoreBuilder.Store;
import dev.polling.jdbc.internal.Arguments;
import dev.polling.jdbc.internal.LeasedRows;
import dev.polling.jdbc.internal.Sql;
import dev.polling.jdbc.internal.UnansweredClaims;
import java.sql.Connection;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Sends outgoing messages without sending one twice (seed 003).
 * <ol>
 * <li>{@link #store} records the message with an idempotency key in the caller's (business)
 * transaction: if the business work rolls back, nothing is sent.</li>
 * <li>The {@link DeliveryDispatcher} claims due messages and marks them SENDING in a transaction that commits
 * <em>before</em> anything is sent (lease in database time, fence bumped), then calls the
 * destination's {@link DeliverySender} with the idempotency key and records the outcome with a
 * fenced post-update: DELIVERED, FAILED (definitely not delivered; retried after a backoff) or
 * DEAD after the last attempt.</li>
 * <li>When the outcome is unknown (the sender threw something other than
 * {@link NotDeliveredException}, the post-update failed, the instance crashed, or the lease
 * expired mid-send), the message becomes IN_DOUBT and is <em>not</em> sent again, unless its
 * destination is declared {@link DeliveryDestination#idempotent idempotent}; then it is sent again
 * with the same key. Its recovery turns SENDING rows whose lease expired into IN_DOUBT
 * (or re-sendable) and is safe on every instance at once.</li>
 * <li>Operators {@link #resolve resolve} IN_DOUBT messages (delivered, or re-send) and
 * {@link #retryDead retry} dead ones.</li>
 * </ol>
 * Thread-safe; one instance per application instance.
 */
public final class DeliveryGuard {

	/** Longest destination name. */
	public static final int MAX_DESTINATION_LENGTH = 100;

	/** Longest idempotency key. */
	public static final int MAX_KEY_LENGTH = 255;

	/** Longest payload, in characters. */
	public static final int MAX_PAYLOAD_LENGTH = 1_000_000;

	/** Default attempts for definite failures before a message goes dead. */
	public static final int DEFAULT_MAX_ATTEMPTS = 3;

	/** Default lease of a claim: longer than the slowest send. */
	public static final Duration DEFAULT_LEASE_TIME = Duration.ofMinutes(2);

	private static final String COLUMNS = "id, destination, idempotency_key, payload, attempts, max_attempts, fence, "
			+ "created_at";

	private final ConnectionProvider connections;

	private final Dialect dialect;

	private final TableNames tables;

	private final String owner;

	private final Duration leaseTime;

	private final int maxAttempts;

	private final Map<String, DeliveryDestination> destinations;

	private final String table;

	private final DeliveryAdmin admin;

	/** The insert of {@link #store}. */
	private final DeliveryStore store;

	/** The claims, sends and outcomes of {@link #deliverDue}. */
	private final DeliveryRounds rounds;

	/** The recovery of {@link #recoverExpired}. */
	private final DeliveryRecovery recovery;

	private DeliveryGuard(Builder builder, Store store, Claims claims) {
		this.connections = store.connections();
		Dialect dialect = store.dialect();
		this.dialect = dialect;
		this.tables = store.tables();
		DatabaseTime time = new DatabaseTime(dialect);
		this.owner = claims.owner();
		this.leaseTime = claims.leaseTime();
		this.maxAttempts = claims.maxAttempts();
		this.destinations = Map.copyOf(builder.destinations);
		this.table = this.tables.delivery();
		LeasedRows rows = new LeasedRows(dialect, this.table, "destination", "PENDING", "FAILED", "SENDING", COLUMNS);
		/*
		 * Claims whose answer this guard never got (the call failed, e.g. the connection was lost after
		 * the server had committed): rows such a claim took were never handed to a sender, and are
		 * released at the next round instead of waiting out their lease and ending IN_DOUBT though never
		 * sent.
		 */
		UnansweredClaims unanswered = new UnansweredClaims(this.owner, "UPDATE " + this.table + " SET state = CASE WHEN attempts > 0 "
				+ "THEN 'FAILED' ELSE 'PENDING' END, owner = NULL, lease_until = NULL, fence = fence + 1 "
				+ "WHERE state = 'SENDING' AND owner = ?");
		DataSource dataSource = store.dataSource();
		DeliveryOutcomes outcomes = new DeliveryOutcomes(dataSource, dialect, this.table, time, this.leaseTime,
				builder.listener, rows, unanswered);
		this.admin = new DeliveryAdmin(dataSource, dialect, this.table, time);
		this.store = new DeliveryStore(dialect, this.table, time);
		this.rounds = new DeliveryRounds(dataSource, dialect, this.table, this.leaseTime, store.backoff(), rows,
				unanswered, outcomes);
		this.recovery = new DeliveryRecovery(dataSource, this.table, time, builder.listener);
	}

	/**
	 * Starts building a guard on a data source. Stores borrow a connection per call unless
	 * {@link Builder#connections} joins them to a transaction manager; claims, post-updates and
	 * recoveries always run in short transactions of their own on this data source.
	 * @param dataSource the data source
	 * @return the builder
	 */
	public static Builder builder(DataSource dataSource) {
		return new Builder(dataSource);
	}

	// ---- store

	/**
	 * Stores an outgoing message in the transaction of the provider's connection (with the starter:
	 * the current Spring transaction). Never aborts that transaction.
	 * @param destination the destination name
	 * @param idempotencyKey the key, unique per destination (e.g. derived from the business event)
	 * @param payload the payload
	 * @return {@code true} if stored, {@code false} if the key was stored before (nothing changed)
	 * @throws IllegalArgumentException if an argument is invalid
	 * @throws DataAccessFailure if the database fails
	 */
	public boolean store(String destination, String idempotencyKey, String payload) {
		Connection connection = obtain();
		try {
			return store(connection, destination, idempotencyKey, payload);
		}
		finally {
			release(connection);
		}
	}

	/**
	 * Stores an outgoing message on the given connection, in its current transaction.
	 * @param connection the connection
	 * @param destination the destination name
	 * @param idempotencyKey the key
	 * @param payload the payload
	 * @return {@code true} if stored, {@code false} if the key was stored before
	 */
	public boolean store(Connection connection, String destination, String idempotencyKey, String payload) {
		validate(destination, idempotencyKey, payload);
		return this.store.store(connection, destination, idempotencyKey, payload, this.maxAttempts);
	}

	static void validate(@Nullable String destination, @Nullable String idempotencyKey, @Nullable String payload) {
		Arguments.key("destination", destination, MAX_DESTINATION_LENGTH,
				"name the destination in at most " + MAX_DESTINATION_LENGTH + " characters, e.g. \"smtp\"");
		Arguments.key("idempotencyKey", idempotencyKey, MAX_KEY_LENGTH,
				"derive a stable key of at most " + MAX_KEY_LENGTH
						+ " characters from the business event, e.g. \"confirmation:\" + orderId, or a SHA-256 of a longer one");
		Arguments.payload("payload", payload, MAX_PAYLOAD_LENGTH);
	}

	// ---- deliver

	/** Batches a round covers at least for a destination with batched claims. */
	static final int BATCHES_PER_ROUND = 10;

	/**
	 * Delivers due messages of every registered destination, up to {@code limit} per destination;
	 * for a destination with batched claims, up to {@value #BATCHES_PER_ROUND} of its batches if that
	 * is more (at most 1000), since only within a round do a batch's outcomes commit together with
	 * the claim of the next batch: a round of one batch costs two commits.
	 * @param limit the most messages per destination, 1 to 1000
	 * @return how many sends were attempted
	 */
	int deliverDue(int limit) {
		return deliverDue(limit, () -> true);
	}

	/**
	 * Like {@link #deliverDue(int)}, ending the round early once {@code keepGoing} says no: after
	 * the send or batch under way is recorded, nothing more is claimed (a dispatcher that stops).
	 * @param limit the most messages per destination, 1 to 1000
	 * @param keepGoing asked before each further claim
	 * @return how many sends were attempted
	 */
	int deliverDue(int limit, BooleanSupplier keepGoing) {
		int attempted = 0;
		for (DeliveryDestination destination : this.destinations.values()) {
			if (!keepGoing.getAsBoolean()) {
				break;
			}
			int round = (destination.claimBatch() > 1)
					? Math.min(1000, Math.max(limit, BATCHES_PER_ROUND * destination.claimBatch())) : limit;
			attempted += deliverDue(destination.name(), round, keepGoing);
		}
		return attempted;
	}

	/**
	 * Delivers due messages of one destination, up to {@code limit}: claims one (SENDING, committed),
	 * sends it and records the outcome, then the next. Claiming one at a time, right before its send,
	 * means that a crash leaves at most the message being sent with an unknown outcome (IN_DOUBT after
	 * its lease); a batch claimed ahead would leave every claimed but not yet sent message IN_DOUBT
	 * as well (seen in the chaos run: 17 of 21 in-doubt confirmations had never been sent). After a
	 * successful send, its DELIVERED and the claim of the next message commit together, so a round
	 * of successful sends costs one commit per message.
	 * @param destination a registered destination
	 * @param limit the most messages, 1 to 1000
	 * @return how many sends were attempted
	 * @throws IllegalArgumentException if the destination is not registered
	 * @throws DataAccessFailure if the first claim fails (a later one ends the round and returns what
	 * was attempted; post-update failures are logged: those messages become IN_DOUBT after their lease)
	 */
	int deliverDue(String destination, int limit) {
		return deliverDue(destination, limit, () -> true);
	}

	private int deliverDue(String destination, int limit, BooleanSupplier keepGoing) {
		DeliveryDestination target = this.destinations.get(destination);
		if (target == null) {
			throw new IllegalArgumentException("Destination '" + destination + "' is not registered; registered: "
					+ this.destinations.keySet() + ". Register it with DeliveryGuard.Builder.destination(...)");
		}
		if (limit < 1 || limit > 1000) {
			throw new IllegalArgumentException("limit must be between 1 and 1000 but was " + limit);
		}
		return this.rounds.deliverDue(target, limit, keepGoing);
	}

	/**
	 * Recovers SENDING messages whose lease expired (the sending instance crashed, froze or could not
	 * record the outcome): IN_DOUBT, or, for destinations this guard knows as idempotent, FAILED and
	 * due at once (an expired lease is not counted as an attempt). Bumps the fence so a late
	 * post-update is rejected.
	 * @return how many were recovered
	 */
	int recoverExpired() {
		return this.recovery.recoverExpired(this.destinations.values());
	}

	// ---- accessors

	/**
	 * The operator's view and actions on this guard's messages (statistics, entries, resolving an
	 * IN_DOUBT message, retrying a DEAD one, purge), kept apart from the delivery path.
	 * @return the admin operations
	 */
	public DeliveryAdmin admin() {
		return this.admin;
	}

	/**
	 * The registered destinations.
	 * @return destinations by name
	 */
	public Map<String, DeliveryDestination> destinations() {
		return this.destinations;
	}

	/**
	 * The owner id of this guard; each claim writes it into its rows followed by {@code #} and the
	 * claim's number.
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

	private Connection obtain() {
		return Sql.obtain(this.connections, this.table);
	}

	private void release(Connection connection) {
		Sql.release(this.connections, connection, this.table);
	}

	/**
	 * Builds a {@link DeliveryGuard}: where stores get their connection ({@link #connections}), the
	 * lease of a claim (default 2 min: longer than the slowest send, since a send that outlives it
	 * ends IN_DOUBT), the attempts for definite failures (default {@value #DEFAULT_MAX_ATTEMPTS}) and
	 * the backoff after them, as every claiming part is built.
	 */
	public static final class Builder extends ClaimBuilder<Builder> {

		private DeliveryListener listener = DeliveryListener.NONE;

		private final Map<String, DeliveryDestination> destinations = new LinkedHashMap<>();

		private Builder(DataSource dataSource) {
			super(dataSource, DEFAULT_LEASE_TIME, DEFAULT_MAX_ATTEMPTS, "longer than the slowest send, e.g. 2m");
		}

		/**
		 * Sets the listener.
		 * @param listener the listener
		 * @return this builder
		 */
		public Builder listener(DeliveryListener listener) {
			this.listener = Objects.requireNonNull(listener, "listener must not be null");
			return this;
		}

		/**
		 * Registers a destination.
		 * @param destination the destination
		 * @return this builder
		 * @throws IllegalStateException if one with the same name is registered
		 */
		public Builder destination(DeliveryDestination destination) {
			Objects.requireNonNull(destination, "destination must not be null");
			if (this.destinations.putIfAbsent(destination.name(), destination) != null) {
				throw new IllegalStateException("Destination '" + destination.name() + "' is registered twice: give "
						+ "each destination a unique name");
			}
			return this;
		}

		/**
		 * Builds the guard, detecting the dialect from one connection if none was set.
		 * @return the guard
		 */
		public DeliveryGuard build() {
			return new DeliveryGuard(this, store(), claims());
		}

	}

}
