package dev.polling.jdbc.delivery;

import dev.polling.jdbc.DataAccessFailure;
import dev.polling.jdbc.DatabaseTime;
import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.Failures;
import dev.polling.jdbc.FencedWrite;
import dev.polling.jdbc.internal.Arguments;
import dev.polling.jdbc.internal.LeasedRows;
import dev.polling.jdbc.internal.Listeners;
import dev.polling.jdbc.internal.Sql;
import dev.polling.jdbc.internal.UnansweredClaims;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The outcome writes of a {@link DeliveryGuard} and their SQL: DELIVERED, FAILED, DEAD and
 * IN_DOUBT, each fenced (after a claim) or under the row lock of a locked batch; DELIVERED of a
 * batch in one statement; the outcome written together with the claim of the next message(s);
 * the retries of an outcome write until the claim's lease ends; and what the listener hears of
 * each outcome. Also the mapping of a claimed row and the bookkeeping of claims whose answer was
 * lost, which the claims written with an outcome share with the claims of {@link DeliveryRounds}.
 * Logs under the category of {@link DeliveryGuard}.
 */
final class DeliveryOutcomes {

	static final int MAX_ERROR_LENGTH = 1000;

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

	private final DataSource dataSource;

	private final Dialect dialect;

	private final String table;

	private final DatabaseTime time;

	private final Duration leaseTime;

	private final DeliveryListener listener;

	private final LeasedRows rows;

	private final UnansweredClaims unanswered;

	/** DELIVERED for a batch in one statement (PostgreSQL, see {@link #batchDeliveredSql}). */
	private final String batchDelivered;

	DeliveryOutcomes(DataSource dataSource, Dialect dialect, String table, DatabaseTime time, Duration leaseTime,
			DeliveryListener listener, LeasedRows rows, UnansweredClaims unanswered) {
		this.dataSource = dataSource;
		this.dialect = dialect;
		this.table = table;
		this.time = time;
		this.leaseTime = leaseTime;
		this.listener = listener;
		this.rows = rows;
		this.unanswered = unanswered;
		this.batchDelivered = batchDeliveredSql();
	}

	/** The outcome writes of one locked batch, in its transaction (see {@link DeliveryRounds}). */
	void writeLockedFailure(Connection connection, Delivery delivery, String state, Throwable failure, long delay)
			throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement(postSql(state, LOCKED))) {
			bindPost(statement, state, Arguments.describe(failure, MAX_ERROR_LENGTH), delay, delivery);
			expectOneRow(statement.executeUpdate(), delivery);
		}
	}

	/**
	 * DELIVERED for the sent messages of a locked batch, the transaction's last write: on PostgreSQL one
	 * statement for all (with its own driver sent with the {@code COMMIT} in one round trip, see
	 * {@link Sql#commitsWithItsLastStatement}), elsewhere one JDBC batch. The rows are locked by this
	 * transaction, so each must be written.
	 */
	void writeLockedDelivered(Connection connection, List<Delivery> delivered) throws SQLException {
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
	 * {@code claimNext} (not on H2, see {@link DeliveryRounds}) that transaction also claims the next batch of
	 * the destination, so that a round of batches commits once per batch. The next batch is claimed
	 * only with this one recorded, so a crash leaves no more unrecorded sends than before. On
	 * PostgreSQL with its driver (see {@link LeasedRows#writeAndClaim}) the batch's outcomes are one
	 * statement, sent with the claim in one round trip and committed with it as one implicit transaction.
	 * @return the next batch, claimed in the same transaction, or {@code null} when none was claimed
	 * with it (none asked for, or the transaction failed: the caller claims by itself)
	 */
	@Nullable List<Delivery> recordDelivered(List<Delivery> delivered, long leaseEnd, int claimNext) {
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

	/** A send recorded as DELIVERED together with the claim of the next message, if one was due. */
	record RecordedAndClaimed(FencedWrite write, @Nullable Delivery next) {
	}

	/**
	 * Records a send as DELIVERED and claims the next message of its destination in one transaction
	 * (on PostgreSQL with its driver: both statements in one round trip, see
	 * {@link LeasedRows#writeAndClaim}).
	 * @return the outcome, or {@code null} when the transaction failed (rolled back: the caller records
	 * the outcome alone, with its retries, and claims the next one by itself)
	 */
	@Nullable RecordedAndClaimed recordDeliveredAndClaimNext(Delivery delivery) {
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

	/** Runs a claim under an owner of its own, remembered until its answer arrives. */
	<T> T claiming(Function<String, T> call) {
		return this.unanswered.claiming(call);
	}

	void recordSafely(Delivery delivery, String state, Throwable failure, long delay, long leaseEnd) {
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
	void recorded(Delivery delivery, String state, @Nullable Throwable failure) {
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
	FencedWrite post(Delivery delivery, String state, @Nullable String error, long delayMillis, long leaseEnd) {
		return untilLeaseEnd(leaseEnd, "the outcome of delivery " + delivery.id(), () -> post(delivery, state, error, delayMillis));
	}

	/** Runs a write of outcomes again while the database fails transiently, until the lease runs out. */
	private <T> T untilLeaseEnd(long leaseEnd, String what, Supplier<T> write) {
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

	FencedWrite rejected(Delivery delivery, String state) {
		logger.info("Delivery {} to '{}' finished ({}) after its lease expired; the fence rejected the update, its "
				+ "recorded state stands", delivery.id(), delivery.destination(), state);
		notify(() -> this.listener.onFenceRejected(delivery.destination()));
		return FencedWrite.REJECTED;
	}

	Delivery map(ResultSet result) throws SQLException {
		return new Delivery(result.getLong("id"), result.getString("destination"), result.getString("idempotency_key"),
				result.getString("payload"), result.getInt("attempts") + 1, result.getInt("max_attempts"),
				result.getLong("fence"), this.time.read(result, result.findColumn("created_at")));
	}

	/** Tells the listener of something, logging (not throwing) what the listener throws. */
	void notify(Runnable callback) {
		notify(this.listener, callback);
	}

	static void notify(DeliveryListener listener, Runnable callback) {
		Listeners.notify(logger, "Delivery listener", listener, callback);
	}

}
