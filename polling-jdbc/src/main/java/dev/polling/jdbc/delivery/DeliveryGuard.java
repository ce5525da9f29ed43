package dev.polling.jdbc.delivery;

import dev.polling.jdbc.Backoff;
import dev.polling.jdbc.ConnectionProvider;
import dev.polling.jdbc.DataAccessFailure;
import dev.polling.jdbc.DatabaseTime;
import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.FencedWrite;
import dev.polling.jdbc.TableNames;
import dev.polling.jdbc.internal.Arguments;
import dev.polling.jdbc.internal.DialectSql;
import dev.polling.jdbc.Failures;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends outgoing messages without sending one twice (seed 003).
 * <ol>
 * <li>{@link #store} records the message with an idempotency key in the caller's (business)
 * transaction: if the business work rolls back, nothing is sent.</li>
 * <li>{@link #deliverDue} claims due messages and marks them SENDING in a transaction that commits
 * <em>before</em> anything is sent (lease in database time, fence bumped), then calls the
 * destination's {@link DeliverySender} with the idempotency key and records the outcome with a
 * fenced post-update: DELIVERED, FAILED (definitely not delivered; retried after a backoff) or
 * DEAD after the last attempt.</li>
 * <li>When the outcome is unknown (the sender threw something other than
 * {@link NotDeliveredException}, the post-update failed, the instance crashed, or the lease
 * expired mid-send), the message becomes IN_DOUBT and is <em>not</em> sent again, unless its
 * destination is declared {@link DeliveryDestination#idempotent idempotent}; then it is sent again
 * with the same key. {@link #recoverExpired} turns SENDING rows whose lease expired into IN_DOUBT
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

	private static final int MAX_ERROR_LENGTH = 1000;

	private static final Logger logger = LoggerFactory.getLogger(DeliveryGuard.class);

	/**
	 * The condition of every fenced write of an outcome: the row still carries the claim's fence and
	 * is being sent. The state test implies no index's condition (unlike {@code state = 'SENDING'},
	 * which the state index serves), so a generic plan of the prepared statement, which the server
	 * reuses without planning, can only find the row by its primary key.
	 */
	private static final String SENDING = " WHERE id = ? AND fence = ? AND COALESCE(state, '') = 'SENDING'";

	/**
	 * The condition of an outcome written under the row lock of a locked batch: the row is still due
	 * (a locked batch never moves it to SENDING); written like {@link #SENDING} for the same reason.
	 */
	private static final String LOCKED = " WHERE id = ? AND fence = ? AND COALESCE(state, '') IN ('PENDING', 'FAILED')";

	/** How many parameters {@link #bindPost} binds. */
	private static final int POST_PARAMETERS = 5;

	private static final String COLUMNS = "id, destination, idempotency_key, payload, attempts, max_attempts, fence, "
			+ "created_at";

	private final DataSource dataSource;

	private final ConnectionProvider connections;

	private final Dialect dialect;

	private final TableNames tables;

	private final DatabaseTime time;

	private final String owner;

	private final Duration leaseTime;

	private final int maxAttempts;

	private final Backoff backoff;

	private final DeliveryListener listener;

	private final Map<String, DeliveryDestination> destinations;

	private final LeasedRows rows;

	private final String table;

	/** DELIVERED for a batch in one statement (PostgreSQL, see {@link #batchDeliveredSql}). */
	private final String batchDelivered;

	private final DeliveryAdmin admin;

	/**
	 * Claims whose answer this guard never got (the call failed, e.g. the connection was lost after
	 * the server had committed): rows such a claim took were never handed to a sender, and are
	 * released at the next round instead of waiting out their lease and ending IN_DOUBT though never
	 * sent.
	 */
	private final UnansweredClaims unanswered;

	private DeliveryGuard(Builder builder, Dialect dialect) {
		this.dataSource = builder.dataSource;
		this.connections = (builder.connections != null) ? builder.connections
				: ConnectionProvider.of(builder.dataSource);
		this.dialect = dialect;
		this.tables = builder.tables;
		this.time = new DatabaseTime(dialect);
		this.owner = Arguments.cut(builder.instanceId, 160) + "/" + UUID.randomUUID().toString().substring(0, 8);
		this.leaseTime = builder.leaseTime;
		this.maxAttempts = builder.maxAttempts;
		this.backoff = builder.backoff;
		this.listener = builder.listener;
		this.destinations = Map.copyOf(builder.destinations);
		this.table = this.tables.delivery();
		this.rows = new LeasedRows(dialect, this.table, "destination", "PENDING", "FAILED", "SENDING", COLUMNS);
		this.unanswered = new UnansweredClaims(this.owner, "UPDATE " + this.table + " SET state = CASE WHEN attempts > 0 "
				+ "THEN 'FAILED' ELSE 'PENDING' END, owner = NULL, lease_until = NULL, fence = fence + 1 "
				+ "WHERE state = 'SENDING' AND owner = ?");
		this.batchDelivered = batchDeliveredSql();
		this.admin = new DeliveryAdmin(builder.dataSource, dialect, this.table, this.time);
	}

	/**
	 * Starts building a guard on a data source. Stores borrow a connection per call unless
	 * {@link Builder#connections} joins them to a transaction manager; claims, post-updates and
	 * recoveries always run in short transactions of their own on this data source.
	 * @param dataSource the data source
	 * @return the builder
	 */
	public static Builder builder(DataSource dataSource) {
		return new Builder(Objects.requireNonNull(dataSource, "dataSource must not be null"));
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
		String sql = "INSERT INTO " + this.table + " (destination, idempotency_key, payload, state, attempts, "
				+ "max_attempts, fence, available_at, created_at) VALUES (?, ?, ?, 'PENDING', 0, ?, 0, " + this.time.now()
				+ ", " + this.time.now() + ")";
		if (this.dialect == Dialect.POSTGRESQL) {
			sql += " ON CONFLICT (destination, idempotency_key) DO NOTHING";
		}
		try (PreparedStatement statement = connection.prepareStatement(sql)) {
			statement.setString(1, destination);
			statement.setString(2, idempotencyKey);
			statement.setString(3, payload);
			statement.setInt(4, this.maxAttempts);
			return statement.executeUpdate() == 1;
		}
		catch (SQLException ex) {
			if (DialectSql.isDuplicateKeyKeepingTransaction(this.dialect, ex)) {
				return false;
			}
			throw new DataAccessFailure("Could not store an outgoing message for '" + destination + "' (key length "
					+ idempotencyKey.length() + ") in " + this.table, ex);
		}
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
	public int deliverDue(int limit) {
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
	public int deliverDue(String destination, int limit) {
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
		// still SENDING under such a claim, never sent: due again at once in their old place, fence moved on
		this.unanswered.release(this.dataSource, (owner, released) -> logger.info("Released {} delivery(ies) of {} "
				+ "claimed by a claim whose answer was lost ({}): never sent, due again", released, this.table, owner));
		if (target.lockedBatches()) {
			return deliverLocked(target, limit, keepGoing);
		}
		if (target.claimBatch() > 1) {
			return deliverBatched(target, limit, keepGoing);
		}
		int attempted = 0;
		@Nullable Claimed next = null;
		while (attempted < limit) {
			Claimed current = next;
			next = null;
			if (current == null) {
				long claimedAt = System.nanoTime();
				List<Delivery> claimed;
				try {
					claimed = claiming((owner) -> this.rows.claim(this.dataSource, destination, owner,
							this.leaseTime.toMillis(), 1, this::map));
				}
				catch (DataAccessFailure ex) {
					claimFailed(destination, attempted, ex);
					break;
				}
				if (claimed.isEmpty()) {
					break;
				}
				current = new Claimed(claimed.get(0), claimedAt + this.leaseTime.toNanos());
			}
			attempted++;
			boolean more = attempted < limit && keepGoing.getAsBoolean();
			Next after = send(target, current.delivery(), current.leaseEnd(), more);
			if (!more || after.noneDue()) {
				break; // a claim sent with the outcome found nothing due: no second one right after it
			}
			next = after.claimed();
		}
		return attempted;
	}

	/** A claim failed: thrown when nothing was sent yet; otherwise the round ends with what was sent. */
	private static void claimFailed(String destination, int attempted, DataAccessFailure ex) {
		if (attempted == 0) {
			throw ex;
		}
		if (Failures.isUnreachable(ex)) {
			// a lost database is the dispatcher's to report, once, when the next round's first claim fails
			logger.debug("Delivering to '{}': {} sent, then the database was lost", destination, attempted, ex);
		}
		else {
			logger.warn("Delivering to '{}': {} sent, then claiming the next failed; the rest waits for the next "
					+ "round: {}", destination, attempted, ex.getMessage());
		}
	}

	/**
	 * Delivers to an idempotent destination with batched claims: claims up to its batch, sends them
	 * one after the other, and records the successful ones together with the claim of the next batch
	 * in one commit (failures one by one, as in a round of single claims): one commit per batch.
	 */
	private int deliverBatched(DeliveryDestination target, int limit, BooleanSupplier keepGoing) {
		String destination = target.name();
		int attempted = 0;
		@Nullable List<Delivery> claimed = null;
		long leaseEnd = 0;
		while (attempted < limit) {
			int size = Math.min(target.claimBatch(), limit - attempted);
			if (claimed == null) {
				long claimedAt = System.nanoTime();
				try {
					claimed = claiming((owner) -> this.rows.claim(this.dataSource, destination, owner,
							this.leaseTime.toMillis(), size, this::map));
				}
				catch (DataAccessFailure ex) {
					claimFailed(destination, attempted, ex);
					break;
				}
				leaseEnd = claimedAt + this.leaseTime.toNanos();
			}
			List<Delivery> batch = claimed;
			claimed = null;
			List<Delivery> delivered = new ArrayList<>(batch.size());
			for (Delivery delivery : batch) {
				attempted++;
				try {
					target.sender().send(delivery);
					delivered.add(delivery);
				}
				catch (Exception | Error ex) {
					// an idempotent destination: an unknown outcome is retried like a definite failure
					boolean dead = delivery.attempt() >= delivery.maxAttempts();
					long delay = dead ? 0 : this.backoff.delayAfter(delivery.attempt()).toMillis();
					recordSafely(delivery, dead ? "DEAD" : "FAILED", ex, delay, leaseEnd);
				}
			}
			boolean more = batch.size() == size && attempted < limit && keepGoing.getAsBoolean();
			int nextSize = more ? Math.min(target.claimBatch(), limit - attempted) : 0;
			long nextClaimedAt = System.nanoTime();
			List<Delivery> next = recordDelivered(delivered, leaseEnd, nextSize);
			if (!more) {
				break;
			}
			if (next != null) {
				if (next.isEmpty()) {
					break;
				}
				claimed = next;
				leaseEnd = nextClaimedAt + this.leaseTime.toNanos();
			}
		}
		return attempted;
	}

	/** A send of a locked batch and its outcome: DELIVERED, FAILED or DEAD (with the failure). */
	private record LockedOutcome(Delivery delivery, String state, @Nullable Throwable failure) {
	}

	/**
	 * Delivers to an idempotent destination with locked batches: one transaction per batch locks up
	 * to the batch's size of due messages, sends them one after the other and writes their outcomes
	 * (see {@link DeliveryDestination#withLockedBatches}); listeners hear of the outcomes once they
	 * are committed. A transaction that fails after sends leaves its batch due: sent again in a later
	 * round, which the destination's deduplication absorbs.
	 */
	private int deliverLocked(DeliveryDestination target, int limit, BooleanSupplier keepGoing) {
		String destination = target.name();
		int attempted = 0;
		while (attempted < limit && (attempted == 0 || keepGoing.getAsBoolean())) {
			int size = Math.min(target.claimBatch(), limit - attempted);
			int[] sent = new int[1];
			List<LockedOutcome> outcomes;
			try {
				// never run twice: a transaction the database rolled back is not retried with its sends
				outcomes = Sql.inTransactionOnce(this.dataSource, "send a locked batch to '" + destination + "'",
						(connection) -> sendLocked(connection, target, size, sent));
			}
			catch (DataAccessFailure ex) {
				if (sent[0] == 0) {
					claimFailed(destination, attempted, ex);
				}
				else {
					logger.warn("{} deliveries to '{}' were sent but their transaction did not commit; they are due again "
							+ "and are sent again (idempotent destination): {}", sent[0], destination, ex.getMessage());
				}
				attempted += sent[0];
				break;
			}
			attempted += outcomes.size();
			for (LockedOutcome outcome : outcomes) {
				recorded(outcome.delivery(), outcome.state(), outcome.failure());
			}
			if (outcomes.size() < size) {
				break;
			}
		}
		return attempted;
	}

	/** The work of one locked batch's transaction: lock, send, write the outcomes. */
	private List<LockedOutcome> sendLocked(Connection connection, DeliveryDestination target, int size, int[] sent)
			throws SQLException {
		List<Delivery> batch = this.rows.lock(connection, target.name(), size, this::map);
		List<LockedOutcome> outcomes = new ArrayList<>(batch.size());
		List<Delivery> delivered = new ArrayList<>(batch.size());
		for (Delivery delivery : batch) {
			sent[0]++;
			try {
				target.sender().send(delivery);
				delivered.add(delivery);
				outcomes.add(new LockedOutcome(delivery, "DELIVERED", null));
			}
			catch (Exception | Error ex) {
				// an idempotent destination: an unknown outcome is retried like a definite failure
				boolean dead = delivery.attempt() >= delivery.maxAttempts();
				outcomes.add(new LockedOutcome(delivery, dead ? "DEAD" : "FAILED", ex));
			}
		}
		for (LockedOutcome outcome : outcomes) {
			Throwable failure = outcome.failure();
			if (failure != null) {
				Delivery delivery = outcome.delivery();
				long delay = outcome.state().equals("DEAD") ? 0 : this.backoff.delayAfter(delivery.attempt()).toMillis();
				try (PreparedStatement statement = connection.prepareStatement(postSql(outcome.state(), LOCKED))) {
					bindPost(statement, outcome.state(), Arguments.describe(failure, MAX_ERROR_LENGTH), delay, delivery);
					expectOneRow(statement.executeUpdate(), delivery);
				}
			}
		}
		if (!delivered.isEmpty()) {
			writeLockedDelivered(connection, delivered);
		}
		return outcomes;
	}

	/**
	 * DELIVERED for the sent messages of a locked batch, the transaction's last write: on PostgreSQL one
	 * statement for all (with its own driver sent with the {@code COMMIT} in one round trip, see
	 * {@link Sql#commitsWithItsLastStatement}), elsewhere one JDBC batch. The rows are locked by this
	 * transaction, so each must be written.
	 */
	private void writeLockedDelivered(Connection connection, List<Delivery> delivered) throws SQLException {
		String set = "UPDATE " + this.table + " SET state = 'DELIVERED', owner = NULL, lease_until = NULL, available_at = "
				+ this.time.now() + ", finished_at = " + this.time.now();
		if (this.dialect == Dialect.POSTGRESQL) {
			String commit = Sql.commitsWithItsLastStatement(connection) ? "; COMMIT" : "";
			// may run on a reused generic plan: the locking read turned sequential scans off for this
			// transaction, so that plan goes by primary key (LeasedRows.lock)
			try (PreparedStatement statement = connection.prepareStatement(set
					+ " WHERE id = ANY(?) AND COALESCE(state, '') IN ('PENDING', 'FAILED')" + commit)) {
				statement.setArray(1, connection.createArrayOf("bigint", delivered.stream().map(Delivery::id).toArray()));
				statement.execute();
				int updated = statement.getUpdateCount();
				if (updated != delivered.size()) {
					String message = "Recording " + delivered.size() + " locked deliveries to '" + delivered.get(0).destination()
							+ "' as DELIVERED wrote " + updated + " rows: the batch's rows changed under its locks";
					if (commit.isEmpty()) {
						throw new SQLException(message);
					}
					logger.error("{} (committed with it)", message); // cannot happen while the locks hold
				}
			}
			return;
		}
		try (PreparedStatement statement = connection.prepareStatement(postSql("DELIVERED", LOCKED))) {
			for (Delivery delivery : delivered) {
				bindPost(statement, "DELIVERED", null, 0, delivery);
				statement.addBatch();
			}
			int[] counts = statement.executeBatch();
			for (int i = 0; i < counts.length; i++) {
				if (counts[i] != Statement.SUCCESS_NO_INFO) {
					expectOneRow(counts[i], delivered.get(i));
				}
			}
		}
	}

	private static void expectOneRow(int updated, Delivery delivery) throws SQLException {
		if (updated != 1) {
			throw new SQLException("Recording the outcome of locked delivery " + delivery.id() + " wrote " + updated
					+ " rows: its row changed under its lock");
		}
	}

	/**
	 * Records sent messages of one batch as DELIVERED in one transaction, each fenced; with
	 * {@code claimNext} (not on H2, see {@link #send}) that transaction also claims the next batch of
	 * the destination, so that a round of batches commits once per batch. The next batch is claimed
	 * only with this one recorded, so a crash leaves no more unrecorded sends than before. On
	 * PostgreSQL with its driver (see {@link LeasedRows#writeAndClaim}) the batch's outcomes are one
	 * statement, sent with the claim in one round trip and committed with it as one implicit transaction.
	 * @return the next batch, claimed in the same transaction, or {@code null} when none was claimed
	 * with it (none asked for, or the transaction failed: the caller claims by itself)
	 */
	private @Nullable List<Delivery> recordDelivered(List<Delivery> delivered, long leaseEnd, int claimNext) {
		if (delivered.isEmpty()) {
			return null;
		}
		boolean combined = claimNext > 0 && this.dialect != Dialect.H2;
		String destination = delivered.get(0).destination();
		String sql = postSql("DELIVERED");
		record Outcome(int[] updated, @Nullable List<Delivery> next) {
		}
		Outcome outcome;
		String what = "record " + delivered.size() + " deliveries" + (combined ? " and claim the next" : "");
		try {
			outcome = untilLeaseEnd(leaseEnd, delivered.size() + " deliveries", () -> claiming((owner) -> {
				// PostgreSQL's driver: one statement for the batch, sent with the next claim in one round trip
				@Nullable Outcome both = Sql.inOneStatement(this.dataSource, what, (connection) -> {
					LeasedRows.WriteAndClaim<Delivery> done = this.rows.writeAndClaim(connection,
							this.batchDelivered, 3, (statement) -> bindDelivered(statement, delivered),
							destination, owner, this.leaseTime.toMillis(), combined ? claimNext : 0, this::map);
					if (done == null) {
						return null;
					}
					int[] counts = new int[delivered.size()];
					for (int i = 0; i < counts.length; i++) {
						counts[i] = done.returned().contains(delivered.get(i).id()) ? 1 : 0;
					}
					return new Outcome(counts, combined ? done.claimed() : null);
				});
				if (both != null) {
					return both;
				}
				// elsewhere: a transaction of the library's own, the outcomes as one JDBC batch (each with its count)
				return Sql.inTransaction(this.dataSource, what, false, (connection) -> {
					int[] counts;
					try (PreparedStatement statement = connection.prepareStatement(sql)) {
						for (Delivery delivery : delivered) {
							bindPost(statement, "DELIVERED", null, 0, delivery);
							statement.addBatch();
						}
						counts = statement.executeBatch();
					}
					List<Delivery> next = combined ? this.rows.claim(connection, destination, owner,
							this.leaseTime.toMillis(), claimNext, this::map) : null;
					return new Outcome(counts, next);
				});
			}));
		}
		catch (DataAccessFailure ex) {
			logger.warn("{} deliveries to '{}' were sent but recording them failed until their lease ran out; they are "
					+ "sent again (idempotent destination) when the lease expires: {}", delivered.size(), destination,
					ex.getMessage());
			return null;
		}
		for (int i = 0; i < outcome.updated().length; i++) {
			Delivery delivery = delivered.get(i);
			if (outcome.updated()[i] == 1) {
				notify(() -> this.listener.onDelivered(delivery.destination()));
			}
			else {
				rejected(delivery, "DELIVERED");
			}
		}
		return outcome.next();
	}

	/** A claimed message and when its lease ends, by this JVM's clock (measured from before the claim). */
	private record Claimed(Delivery delivery, long leaseEnd) {
	}

	/**
	 * What follows a send: the next message, claimed with the send's outcome; or nothing claimed with
	 * it (the next is claimed alone); or nothing due, as that claim found (the round ends).
	 */
	private record Next(@Nullable Claimed claimed, boolean noneDue) {

		static final Next CLAIM_ALONE = new Next(null, false);

		static final Next NONE_DUE = new Next(null, true);

	}

	/**
	 * Sends one claimed message and records its outcome. After a successful send, when
	 * {@code claimNext} is set, the outcome and the claim of the next message commit together:
	 * one commit per message instead of two, and still at most the message being sent is left with
	 * an unknown outcome by a crash (the next one is claimed only once this one is recorded).
	 * @return what follows: the next message claimed with this one's outcome, nothing due, or a claim alone
	 */
	private Next send(DeliveryDestination target, Delivery delivery, long leaseEnd, boolean claimNext) {
		String destination = delivery.destination();
		Throwable failure;
		try {
			target.sender().send(delivery);
			// not on H2 (embedded, for tests and development): there the combined transaction let claims of
			// several dispatcher threads wait on each other past their leases
			if (claimNext && this.dialect != Dialect.H2) {
				long claimedAt = System.nanoTime();
				RecordedAndClaimed done = recordDeliveredAndClaimNext(delivery);
				if (done != null) {
					if (done.write() == FencedWrite.APPLIED) {
						notify(() -> this.listener.onDelivered(destination));
					}
					else {
						rejected(delivery, "DELIVERED");
					}
					return (done.next() != null) ? new Next(new Claimed(done.next(), claimedAt + this.leaseTime.toNanos()), false)
							: Next.NONE_DUE;
				}
			}
			if (post(delivery, "DELIVERED", null, 0, leaseEnd) == FencedWrite.APPLIED) {
				notify(() -> this.listener.onDelivered(destination));
			}
			return Next.CLAIM_ALONE;
		}
		catch (NotDeliveredException ex) {
			failure = ex;
		}
		catch (DataAccessFailure ex) {
			logger.warn("Delivery {} to '{}' was sent but recording it failed until its lease ran out; it becomes "
					+ "IN_DOUBT when the lease expires: {}", delivery.id(), destination, ex.getMessage());
			return Next.CLAIM_ALONE;
		}
		catch (Exception | Error ex) {
			if (!target.idempotent()) {
				logger.warn("Delivery {} to '{}' has an unknown outcome and is IN_DOUBT (not sent again): {}",
						delivery.id(), destination, Arguments.describe(ex, 300));
				recordSafely(delivery, "IN_DOUBT", ex, 0, leaseEnd);
				return Next.CLAIM_ALONE;
			}
			failure = ex;
		}
		boolean dead = delivery.attempt() >= delivery.maxAttempts();
		long delay = dead ? 0 : this.backoff.delayAfter(delivery.attempt()).toMillis();
		recordSafely(delivery, dead ? "DEAD" : "FAILED", failure, delay, leaseEnd);
		return Next.CLAIM_ALONE;
	}

	private record RecordedAndClaimed(FencedWrite write, @Nullable Delivery next) {
	}

	/**
	 * Records a send as DELIVERED and claims the next message of its destination in one transaction
	 * (on PostgreSQL with its driver: both statements in one round trip, see
	 * {@link LeasedRows#writeAndClaim}).
	 * @return the outcome, or {@code null} when the transaction failed (rolled back: the caller records
	 * the outcome alone, with its retries, and claims the next one by itself)
	 */
	private @Nullable RecordedAndClaimed recordDeliveredAndClaimNext(Delivery delivery) {
		String sql = postSql("DELIVERED");
		String what = "record delivery " + delivery.id() + " and claim the next";
		try {
			return claiming((owner) -> recordDeliveredAndClaimNext(delivery, sql, what, owner));
		}
		catch (DataAccessFailure ex) {
			logger.debug("Recording delivery {} together with the next claim failed; recording it alone", delivery.id(), ex);
			return null;
		}
	}

	private RecordedAndClaimed recordDeliveredAndClaimNext(Delivery delivery, String sql, String what, String owner) {
		// PostgreSQL's driver: both in one round trip, one implicit transaction
		@Nullable RecordedAndClaimed both = Sql.inOneStatement(this.dataSource, what, (connection) -> {
			LeasedRows.WriteAndClaim<Delivery> done = this.rows.writeAndClaim(connection, sql, POST_PARAMETERS,
					(statement) -> bindPost(statement, "DELIVERED", null, 0, delivery), delivery.destination(), owner,
					this.leaseTime.toMillis(), 1, this::map);
			return (done != null) ? new RecordedAndClaimed((done.updated() == 1) ? FencedWrite.APPLIED : FencedWrite.REJECTED,
					done.claimed().isEmpty() ? null : done.claimed().get(0)) : null;
		});
		if (both != null) {
			return both;
		}
		// elsewhere: a transaction of the library's own
		return Sql.inTransaction(this.dataSource, what, false, (connection) -> {
			int updated;
			try (PreparedStatement statement = connection.prepareStatement(sql)) {
				bindPost(statement, "DELIVERED", null, 0, delivery);
				updated = statement.executeUpdate();
			}
			List<Delivery> next = this.rows.claim(connection, delivery.destination(), owner, this.leaseTime.toMillis(), 1,
					this::map);
			return new RecordedAndClaimed((updated == 1) ? FencedWrite.APPLIED : FencedWrite.REJECTED,
					next.isEmpty() ? null : next.get(0));
		});
	}

	private <T> T claiming(java.util.function.Function<String, T> call) {
		return this.unanswered.claiming(call);
	}

	private void recordSafely(Delivery delivery, String state, Throwable failure, long delay, long leaseEnd) {
		try {
			if (post(delivery, state, Arguments.describe(failure, MAX_ERROR_LENGTH), delay, leaseEnd) == FencedWrite.APPLIED) {
				recorded(delivery, state, failure);
			}
		}
		catch (DataAccessFailure ex) {
			logger.warn("Could not record the outcome of delivery {} to '{}'; it becomes IN_DOUBT when its lease "
					+ "expires: {}", delivery.id(), delivery.destination(), ex.getMessage());
		}
	}

	/** Logs and tells the listener of an outcome written and committed. */
	private void recorded(Delivery delivery, String state, @Nullable Throwable failure) {
		String destination = delivery.destination();
		switch (state) {
			case "DELIVERED" -> notify(() -> this.listener.onDelivered(destination));
			case "DEAD" -> {
				logger.warn("Delivery {} to '{}' is dead after {} attempts: {}", delivery.id(), destination,
						delivery.attempt(), Arguments.describe(Objects.requireNonNull(failure), 300));
				notify(() -> this.listener.onDead(destination));
			}
			case "IN_DOUBT" -> notify(() -> this.listener.onInDoubt(destination, 1));
			default -> notify(() -> this.listener.onRetryScheduled(destination));
		}
	}

	/**
	 * Records the outcome of a send; while the database fails transiently (it restarts, the
	 * connection dropped) tried again until the claim's lease runs out (measured from before the
	 * claim, so never later than the database's own lease): once a send happened, only its recorded
	 * outcome keeps it from becoming IN_DOUBT, or from being sent again to an idempotent destination.
	 */
	private FencedWrite post(Delivery delivery, String state, @Nullable String error, long delayMillis, long leaseEnd) {
		return untilLeaseEnd(leaseEnd, "the outcome of delivery " + delivery.id(), () -> post(delivery, state, error, delayMillis));
	}

	/** Runs a write of outcomes again while the database fails transiently, until the lease runs out. */
	private <T> T untilLeaseEnd(long leaseEnd, String what, java.util.function.Supplier<T> write) {
		long pauseMillis = 50;
		while (true) {
			try {
				return write.get();
			}
			catch (DataAccessFailure ex) {
				if (!Failures.isTransient(ex) || System.nanoTime() + pauseMillis * 1_000_000L >= leaseEnd) {
					throw ex;
				}
				logger.debug("Recording {} failed transiently; trying again in {} ms", what, pauseMillis, ex);
				try {
					Thread.sleep(pauseMillis);
				}
				catch (InterruptedException interrupted) {
					Thread.currentThread().interrupt();
					throw ex;
				}
				pauseMillis = Math.min(pauseMillis * 2, 1000);
			}
		}
	}

	/**
	 * DELIVERED for several sent messages in one statement, each fenced, answering the ids written
	 * (PostgreSQL): the rows found by primary key; each row's fence compared with the one at its id's
	 * position in the fence array. Arrays, not lists of pairs: the same text for any batch size, and
	 * planned in about 30 µs instead of 75-95 for an {@code (id, fence) IN ((?, ?), ...)} of ten.
	 */
	private String batchDeliveredSql() {
		return "UPDATE " + this.table + " SET state = 'DELIVERED', owner = NULL, lease_until = NULL, available_at = "
				+ this.time.now() + ", finished_at = " + this.time.now() + " WHERE id = ANY(?) AND fence = (CAST(? AS BIGINT[]))"
				+ "[array_position(CAST(? AS BIGINT[]), id)] AND COALESCE(state, '') = 'SENDING' RETURNING id";
	}

	private static void bindDelivered(PreparedStatement statement, List<Delivery> delivered) throws SQLException {
		Long[] ids = new Long[delivered.size()];
		Long[] fences = new Long[delivered.size()];
		for (int i = 0; i < ids.length; i++) {
			ids[i] = delivered.get(i).id();
			fences[i] = delivered.get(i).fence();
		}
		Connection connection = statement.getConnection();
		statement.setArray(1, connection.createArrayOf("bigint", ids));
		statement.setArray(2, connection.createArrayOf("bigint", fences));
		statement.setArray(3, connection.createArrayOf("bigint", ids));
	}

	private String postSql(String state) {
		return postSql(state, SENDING);
	}

	/** The outcome write, under the given condition ({@link #SENDING} or {@link #LOCKED}). */
	private String postSql(String state, String condition) {
		boolean finished = !state.equals("FAILED");
		// an attempt counts when it failed (definitely, or with an unknown outcome), not when it was claimed
		String counted = state.equals("DELIVERED") ? "" : "attempts = attempts + 1, ";
		return "UPDATE " + this.table + " SET state = ?, " + counted + "owner = NULL, lease_until = NULL, last_error = COALESCE(?, "
				+ "last_error), available_at = " + this.time.nowPlusMillis() + ", finished_at = "
				+ (finished ? this.time.now() : "NULL") + condition;
	}

	private static void bindPost(PreparedStatement statement, String state, @Nullable String error, long delayMillis,
			Delivery delivery) throws SQLException {
		statement.setString(1, state);
		statement.setString(2, error);
		statement.setLong(3, delayMillis);
		statement.setLong(4, delivery.id());
		statement.setLong(5, delivery.fence());
	}

	private FencedWrite post(Delivery delivery, String state, @Nullable String error, long delayMillis) {
		String sql = postSql(state);
		int updated = Sql.inOneStatement(this.dataSource, "record the outcome of delivery " + delivery.id(),
				(connection) -> {
					try (PreparedStatement statement = connection.prepareStatement(sql)) {
						bindPost(statement, state, error, delayMillis, delivery);
						return statement.executeUpdate();
					}
				});
		if (updated == 1) {
			return FencedWrite.APPLIED;
		}
		return rejected(delivery, state);
	}

	private FencedWrite rejected(Delivery delivery, String state) {
		logger.info("Delivery {} to '{}' finished ({}) after its lease expired; the fence rejected the update, its "
				+ "recorded state stands", delivery.id(), delivery.destination(), state);
		notify(() -> this.listener.onFenceRejected(delivery.destination()));
		return FencedWrite.REJECTED;
	}

	private Delivery map(ResultSet result) throws SQLException {
		return new Delivery(result.getLong("id"), result.getString("destination"), result.getString("idempotency_key"),
				result.getString("payload"), result.getInt("attempts") + 1, result.getInt("max_attempts"),
				result.getLong("fence"), this.time.read(result, result.findColumn("created_at")));
	}

	/**
	 * Recovers SENDING messages whose lease expired (the sending instance crashed, froze or could not
	 * record the outcome): IN_DOUBT, or, for destinations this guard knows as idempotent, FAILED and
	 * due at once (an expired lease is not counted as an attempt). Bumps the fence so a late
	 * post-update is rejected.
	 * @return how many were recovered
	 */
	public int recoverExpired() {
		String now = this.time.now();
		List<String> idempotent = this.destinations.values()
			.stream()
			.filter(DeliveryDestination::idempotent)
			.map(DeliveryDestination::name)
			.sorted()
			.toList();
		String expired = "state = 'SENDING' AND lease_until < " + now;
		String in = idempotent.isEmpty() ? "" : "destination IN (" + Sql.placeholders(idempotent.size()) + ")";
		int[] counts = Sql.inTransaction(this.dataSource, "recover expired deliveries in " + this.table,
				(connection) -> {
					int resend = 0;
					if (!idempotent.isEmpty()) {
						// not counted as an attempt: the sending instance crashed or froze, the send did not fail
						try (PreparedStatement statement = connection.prepareStatement("UPDATE " + this.table
								+ " SET state = 'FAILED', finished_at = NULL, last_error = CONCAT('lease of ', owner, "
								+ "' expired during the send; sent again with the same key (idempotent destination)'), "
								+ "fence = fence + 1, owner = NULL, lease_until = NULL, available_at = " + now + " WHERE "
								+ expired + " AND " + in)) {
							bind(statement, idempotent);
							resend = statement.executeUpdate();
						}
					}
					int doubt;
					try (PreparedStatement statement = connection.prepareStatement("UPDATE " + this.table
							+ " SET state = 'IN_DOUBT', finished_at = " + now + ", last_error = CONCAT('lease of ', owner, "
							+ "' expired during the send: outcome unknown, not sent again'), fence = fence + 1, "
							+ "owner = NULL, lease_until = NULL WHERE " + expired
							+ (idempotent.isEmpty() ? "" : " AND NOT " + in))) {
						bind(statement, idempotent);
						doubt = statement.executeUpdate();
					}
					return new int[] { resend, doubt };
				});
		int total = counts[0] + counts[1];
		if (total > 0) {
			logger.warn("Recovered {} delivery(ies) of {} whose lease expired during the send: {} IN_DOUBT (not sent "
					+ "again, resolve them), {} to be sent again (idempotent destinations)", total, this.table, counts[1],
					counts[0]);
			notify(() -> this.listener.onLeasesExpired(total));
			if (counts[1] > 0) {
				notify(() -> this.listener.onInDoubt("*", counts[1]));
			}
		}
		return total;
	}

	private static void bind(PreparedStatement statement, List<String> values) throws SQLException {
		int index = 1;
		for (String value : values) {
			statement.setString(index++, value);
		}
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

	private void notify(Runnable callback) {
		try {
			callback.run();
		}
		catch (RuntimeException ex) {
			logger.warn("Delivery listener {} failed", this.listener, ex);
		}
	}

	/**
	 * Builds a {@link DeliveryGuard}.
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

		private DeliveryListener listener = DeliveryListener.NONE;

		private final Map<String, DeliveryDestination> destinations = new LinkedHashMap<>();

		private Builder(DataSource dataSource) {
			this.dataSource = dataSource;
		}

		/**
		 * Sets where stores get their connection, e.g. one bound to the current transaction.
		 * @param connections the provider
		 * @return this builder
		 */
		public Builder connections(ConnectionProvider connections) {
			this.connections = Objects.requireNonNull(connections, "connections must not be null");
			return this;
		}

		/**
		 * Sets the dialect instead of detecting it.
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
		 * Sets the instance id written (with a random suffix) as owner of claimed rows.
		 * @param instanceId the instance id
		 * @return this builder
		 */
		public Builder instanceId(String instanceId) {
			this.instanceId = Arguments.key("instanceId", instanceId, 160, "e.g. the host name and pid");
			return this;
		}

		/**
		 * Sets the lease of a claim (default 2 min): longer than the slowest send, since a send that
		 * outlives it ends IN_DOUBT.
		 * @param leaseTime between 1 s and 1 day
		 * @return this builder
		 */
		public Builder leaseTime(Duration leaseTime) {
			Objects.requireNonNull(leaseTime, "leaseTime must not be null");
			if (leaseTime.compareTo(Duration.ofSeconds(1)) < 0 || leaseTime.compareTo(Duration.ofDays(1)) > 0) {
				throw new IllegalArgumentException("leaseTime must be between 1s and 1d but was " + leaseTime
						+ ": longer than the slowest send, e.g. 2m");
			}
			this.leaseTime = leaseTime;
			return this;
		}

		/**
		 * Sets the attempts for definite failures (default {@value #DEFAULT_MAX_ATTEMPTS}).
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
		 * Sets the backoff after definite failures.
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
			Dialect resolved = (this.dialect != null) ? this.dialect : Dialect.detect(this.dataSource);
			return new DeliveryGuard(this, resolved);
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

}
