package dev.polling.jdbc.delivery;

import dev.polling.jdbc.Backoff;
import dev.polling.jdbc.DataAccessFailure;
import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.Failures;
import dev.polling.jdbc.FencedWrite;
import dev.polling.jdbc.internal.Arguments;
import dev.polling.jdbc.internal.LeasedRows;
import dev.polling.jdbc.internal.Sql;
import dev.polling.jdbc.internal.UnansweredClaims;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rounds of a {@link DeliveryGuard} for one destination: the claims of due deliveries (one at
 * a time, in batches, or as locked batches), the sends, and which outcome each send gets; the
 * outcomes' SQL is {@link DeliveryOutcomes}'. Logs under the category of {@link DeliveryGuard}.
 */
final class DeliveryRounds {

	private static final Logger logger = LoggerFactory.getLogger(DeliveryGuard.class);

	private final DataSource dataSource;

	private final Dialect dialect;

	private final String table;

	private final Duration leaseTime;

	private final Backoff backoff;

	private final LeasedRows rows;

	private final UnansweredClaims unanswered;

	private final DeliveryOutcomes outcomes;

	DeliveryRounds(DataSource dataSource, Dialect dialect, String table, Duration leaseTime, Backoff backoff,
			LeasedRows rows, UnansweredClaims unanswered, DeliveryOutcomes outcomes) {
		this.dataSource = dataSource;
		this.dialect = dialect;
		this.table = table;
		this.leaseTime = leaseTime;
		this.backoff = backoff;
		this.rows = rows;
		this.unanswered = unanswered;
		this.outcomes = outcomes;
	}

	/**
	 * One round for a registered destination (see {@link DeliveryGuard#deliverDue(String, int)}),
	 * arguments checked by the caller.
	 */
	int deliverDue(DeliveryDestination target, int limit, BooleanSupplier keepGoing) {
		String destination = target.name();
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
					claimed = this.outcomes.claiming((owner) -> this.rows.claim(this.dataSource, destination, owner,
							this.leaseTime.toMillis(), 1, this.outcomes::map));
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
					claimed = this.outcomes.claiming((owner) -> this.rows.claim(this.dataSource, destination, owner,
							this.leaseTime.toMillis(), size, this.outcomes::map));
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
					this.outcomes.recordSafely(delivery, dead ? "DEAD" : "FAILED", ex, delay, leaseEnd);
				}
			}
			boolean more = batch.size() == size && attempted < limit && keepGoing.getAsBoolean();
			int nextSize = more ? Math.min(target.claimBatch(), limit - attempted) : 0;
			long nextClaimedAt = System.nanoTime();
			List<Delivery> next = this.outcomes.recordDelivered(delivered, leaseEnd, nextSize);
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
				this.outcomes.recorded(outcome.delivery(), outcome.state(), outcome.failure());
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
		List<Delivery> batch = this.rows.lock(connection, target.name(), size, this.outcomes::map);
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
				this.outcomes.writeLockedFailure(connection, delivery, outcome.state(), failure, delay);
			}
		}
		if (!delivered.isEmpty()) {
			this.outcomes.writeLockedDelivered(connection, delivered);
		}
		return outcomes;
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
				DeliveryOutcomes.RecordedAndClaimed done = this.outcomes.recordDeliveredAndClaimNext(delivery);
				if (done != null) {
					if (done.write() == FencedWrite.APPLIED) {
						this.outcomes.recorded(delivery, "DELIVERED", null);
					}
					else {
						this.outcomes.rejected(delivery, "DELIVERED");
					}
					return (done.next() != null) ? new Next(new Claimed(done.next(), claimedAt + this.leaseTime.toNanos()), false)
							: Next.NONE_DUE;
				}
			}
			if (this.outcomes.post(delivery, "DELIVERED", null, 0, leaseEnd) == FencedWrite.APPLIED) {
				this.outcomes.recorded(delivery, "DELIVERED", null);
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
				this.outcomes.recordSafely(delivery, "IN_DOUBT", ex, 0, leaseEnd);
				return Next.CLAIM_ALONE;
			}
			failure = ex;
		}
		boolean dead = delivery.attempt() >= delivery.maxAttempts();
		long delay = dead ? 0 : this.backoff.delayAfter(delivery.attempt()).toMillis();
		this.outcomes.recordSafely(delivery, dead ? "DEAD" : "FAILED", failure, delay, leaseEnd);
		return Next.CLAIM_ALONE;
	}

}
