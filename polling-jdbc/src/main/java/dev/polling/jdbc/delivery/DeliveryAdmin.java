package dev.polling.jdbc.delivery;

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
import dev.polling.jdbc.internal.Arguments;
import dev.polling.jdbc.internal.DeadRows;
import dev.polling.jdbc.internal.Purge;
import dev.polling.jdbc.internal.Listing;
import dev.polling.jdbc.internal.Listing.Page;
import dev.polling.jdbc.internal.Sql;

/**
 * The operator's side of a {@link DeliveryGuard} ({@link DeliveryGuard#admin()}): what is waiting or
 * stuck per destination (pages of messages by state, destination and idempotency key,
 * {@link DeliveryQuery}), and the actions on it (resolve an IN_DOUBT message after checking the
 * destination, send a DEAD one again, or all DEAD ones of a destination after the operator confirmed
 * their count, purge delivered ones). Nothing here is on the delivery path;
 * an application gives this object to its operations tooling (the starter's {@code pollingdelivery}
 * endpoint, health and meters) and the {@link DeliveryGuard} to its code.
 */
public final class DeliveryAdmin {

	private static final Logger logger = LoggerFactory.getLogger(DeliveryAdmin.class);

	private static final String UNDELIVERED = "'PENDING', 'SENDING', 'FAILED', 'IN_DOUBT', 'DEAD'";

	/** Messages per statement of a bulk retry (bind parameters of an IN list). */

	private static final String COLUMNS = "id, destination, idempotency_key, state, attempts, max_attempts, created_at, "
			+ "last_error";

	private final DataSource dataSource;

	private final Dialect dialect;

	private final String table;

	private final DeadRows dead;

	private final DatabaseTime time;

	private final Listing<DeliveryEntry> listing;

	DeliveryAdmin(DataSource dataSource, Dialect dialect, String table, DatabaseTime time) {
		this.dataSource = dataSource;
		this.dialect = dialect;
		this.table = table;
		this.dead = new DeadRows(dataSource, table, "destination", "dead deliveries to");
		this.time = time;
		this.listing = new Listing<>(dataSource, dialect, table, COLUMNS, "deliveries",
				(result) -> new DeliveryEntry(result.getLong(1), result.getString(2), result.getString(3),
						DeliveryState.valueOf(result.getString(4)), result.getInt(5), result.getInt(6),
						time.read(result, 7), result.getString(8)));
	}

	/**
	 * Counts per destination of undelivered messages.
	 * @return one entry per destination with undelivered messages, by name
	 */
	public List<DeliveryStats> stats() {
		return Sql.inTransaction(this.dataSource, "read the statistics of " + this.table, (connection) -> {
			Instant now = this.time.currentTime(connection);
			Map<String, long[]> counts = new LinkedHashMap<>();
			Map<String, Instant> oldest = new HashMap<>();
			try (PreparedStatement statement = connection.prepareStatement("SELECT destination, state, COUNT(*), "
					+ "MIN(created_at) FROM " + this.table + " WHERE state IN (" + UNDELIVERED + ") GROUP BY "
					+ "destination, state ORDER BY destination");
					ResultSet result = statement.executeQuery()) {
				while (result.next()) {
					DeliveryState state = DeliveryState.valueOf(result.getString(2));
					long[] perState = counts.computeIfAbsent(result.getString(1),
							(d) -> new long[DeliveryState.values().length]);
					perState[state.ordinal()] = result.getLong(3);
					if (state == DeliveryState.PENDING || state == DeliveryState.FAILED) {
						oldest.merge(result.getString(1), this.time.read(result, 4), (a, b) -> a.isBefore(b) ? a : b);
					}
				}
			}
			List<DeliveryStats> stats = new ArrayList<>();
			counts.forEach((destination, perState) -> {
				Instant first = oldest.get(destination);
				Duration age = (first != null) ? Duration.between(first, now) : null;
				stats.add(new DeliveryStats(destination, perState[DeliveryState.PENDING.ordinal()],
						perState[DeliveryState.SENDING.ordinal()], perState[DeliveryState.FAILED.ordinal()],
						perState[DeliveryState.IN_DOUBT.ordinal()], perState[DeliveryState.DEAD.ordinal()],
						(age != null && age.isNegative()) ? Duration.ZERO : age));
			});
			return stats;
		});
	}

	/**
	 * Messages in a state, oldest first: the first page of {@link #entries(DeliveryQuery)} without
	 * filters.
	 * @param state the state
	 * @param limit the most entries, 1 to 1000
	 * @return the entries
	 * @throws NullPointerException if {@code state} is null
	 * @throws IllegalArgumentException if {@code limit} is out of range
	 */
	public List<DeliveryEntry> entries(DeliveryState state, int limit) {
		return entries(new DeliveryQuery(state, null, null, 0, limit));
	}

	/**
	 * One page of outgoing messages: those in the query's state, to its destination and with its
	 * idempotency key if it names them, with an id greater than its {@code afterId}, by id ascending,
	 * at most its limit. One bounded statement per call (no offset); the next page is
	 * {@code entries(query.next(page))}. Messages stored while an operator pages get greater ids and
	 * show up on later pages; a message that enters the state after its id was passed is not listed
	 * again.
	 * @param query the state, filters and page
	 * @return the page, possibly empty
	 * @throws NullPointerException if {@code query} is null
	 * @throws DataAccessFailure if the database fails
	 */
	public List<DeliveryEntry> entries(DeliveryQuery query) {
		Objects.requireNonNull(query, "query must not be null: pass e.g. DeliveryQuery.of(DeliveryState.IN_DOUBT)");
		return this.listing.page(new Page(query.state().name(), "destination", query.destination(), "idempotency_key",
				query.idempotencyKey(), query.afterId(), query.limit()));
	}

	/**
	 * One message.
	 * @param id the id
	 * @return the message, if it exists
	 * @throws DataAccessFailure if the database fails
	 */
	public Optional<DeliveryEntry> entry(long id) {
		return this.listing.entry(id);
	}

	/**
	 * Operator action on an IN_DOUBT message, after checking the destination.
	 * @param id the message id
	 * @param resolution DELIVERED, or RESEND (PENDING with fresh attempts, same idempotency key)
	 * @return {@code false} if there is no IN_DOUBT message with this id
	 */
	public boolean resolve(long id, Resolution resolution) {
		Objects.requireNonNull(resolution, "resolution must not be null");
		String now = this.time.now();
		String set = (resolution == Resolution.DELIVERED) ? "state = 'DELIVERED', finished_at = " + now
				: "state = 'PENDING', attempts = 0, finished_at = NULL, available_at = " + now;
		boolean resolved = update("resolve delivery " + id, "UPDATE " + this.table + " SET " + set
				+ ", fence = fence + 1 WHERE id = ? AND state = 'IN_DOUBT'", id) == 1;
		if (resolved) {
			logger.info("In-doubt delivery {} resolved by an operator: {}", id, resolution);
		}
		return resolved;
	}

	/**
	 * Operator action: sends a DEAD message again with fresh attempts (same idempotency key).
	 * @param id the message id
	 * @return {@code false} if there is no DEAD message with this id
	 */
	public boolean retryDead(long id) {
		return update("retry delivery " + id, "UPDATE " + this.table + " SET state = 'PENDING', attempts = 0, "
				+ "finished_at = NULL, fence = fence + 1, available_at = " + this.time.now()
				+ " WHERE id = ? AND state = 'DEAD'", id) == 1;
	}

	/**
	 * The number of DEAD messages of a destination: what an operator confirms before
	 * {@link #retryAllDead(String, long)}.
	 * @param destination the destination (exact)
	 * @return the count
	 * @throws NullPointerException if {@code destination} is null
	 * @throws IllegalArgumentException if {@code destination} could not be a destination's name
	 * @throws DataAccessFailure if the database fails
	 */
	public long countDead(String destination) {
		checkDestination(destination);
		return this.dead.count(destination);
	}

	/**
	 * Operator action: sends every DEAD message of one destination again as {@link #retryDead(long)}
	 * does (PENDING, fresh attempts, same idempotency keys), in one transaction, only if their number
	 * is the one the operator confirmed ({@link #countDead(String)}). The transaction first locks the
	 * destination's DEAD messages and counts them; if the count differs, nothing is changed and the
	 * result says so, with the new count. Other destinations are never touched; IN_DOUBT messages
	 * are not DEAD and are left to {@link #resolve}.
	 * @param destination the destination (exact)
	 * @param confirmedCount the number of DEAD messages the operator confirmed, 0 or more
	 * @return what was done; {@link BulkRetry#applied()} is {@code false} if the count had changed
	 * @throws NullPointerException if {@code destination} is null
	 * @throws IllegalArgumentException if {@code destination} could not be a destination's name or
	 * {@code confirmedCount} is negative
	 * @throws DataAccessFailure if the database fails (nothing is retried then)
	 */
	public BulkRetry retryAllDead(String destination, long confirmedCount) {
		checkDestination(destination);
		BulkRetry result = this.dead.retryAll(destination, confirmedCount, "countDead(destination)", (connection, chunk) -> {
			try (PreparedStatement statement = connection.prepareStatement("UPDATE " + this.table + " SET state = 'PENDING', "
					+ "attempts = 0, finished_at = NULL, fence = fence + 1, available_at = " + this.time.now() + " WHERE id IN ("
					+ DeadRows.placeholders(chunk.size()) + ") AND state = 'DEAD'")) {
				DeadRows.bind(statement, chunk);
				return statement.executeUpdate();
			}
		});
		if (result.applied()) {
			logger.info("{} dead deliveries to '{}' in {} sent again by an operator", result.retried(), destination,
					this.table);
		}
		return result;
	}

	/**
	 * Deletes DELIVERED messages finished longer ago than the retention, in batches of 1000.
	 * @param retention how long delivered messages are kept
	 * @return how many were deleted
	 */
	public int purge(Duration retention) {
		return purge(retention, Purge.DEFAULT_BATCH_SIZE);
	}

	/**
	 * Deletes DELIVERED messages finished longer ago than the retention, in batches, each in a
	 * transaction of its own. Undelivered messages (pending, failed, in doubt, dead) are kept. Safe
	 * on several instances at once.
	 * @param retention how long delivered messages are kept
	 * @param batchSize rows per batch, 1 to 100,000
	 * @return how many were deleted
	 */
	public int purge(Duration retention, int batchSize) {
		return Purge.run(this.dataSource, this.dialect, this.table, "state = 'DELIVERED' AND finished_at < "
				+ this.time.nowMinusMillis(), retention, batchSize);
	}

	private int update(String what, String sql, long id) {
		return Sql.inTransaction(this.dataSource, what + " in " + this.table, (connection) -> {
			try (PreparedStatement statement = connection.prepareStatement(sql)) {
				statement.setLong(1, id);
				return statement.executeUpdate();
			}
		});
	}

	private static void checkDestination(String destination) {
		Arguments.key("destination", destination, DeliveryGuard.MAX_DESTINATION_LENGTH,
				"pass the name of the destination, at most " + DeliveryGuard.MAX_DESTINATION_LENGTH + " characters");
	}

}
