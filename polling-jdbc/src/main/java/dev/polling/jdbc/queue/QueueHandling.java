package dev.polling.jdbc.queue;

import dev.polling.jdbc.DatabaseStatus;
import dev.polling.jdbc.Failures;
import dev.polling.jdbc.FencedWrite;
import dev.polling.jdbc.TransactionRunner;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the {@link QueueWorkers}' threads handle one message: run its handler (in the workers'
 * transaction with its completion, or outside it), then complete, fail or postpone it through the
 * {@link WorkQueue}, retrying a completion that lost a deadlock, and logging a failed write once per
 * outage. Holds no state of its own: the held messages and the completions waiting for the
 * completer are the workers'. Logs under the category of {@link QueueWorkers}.
 */
final class QueueHandling {

	private static final Logger logger = LoggerFactory.getLogger(QueueWorkers.class);

	private final WorkQueue queue;

	private final Map<String, QueueHandler> handlers;

	/** The subscribed queues whose handlers run outside {@link #transactions}. */
	private final Set<String> withoutTransaction;

	private final TransactionRunner transactions;

	private final boolean batchCompletions;

	private final DatabaseStatus status;

	/** The workers' messages held by this instance (a message missing was lost while prefetched). */
	private final Map<Long, QueueMessage> held;

	/** The workers' completions waiting for the completer (with batched completions). */
	private final LinkedBlockingQueue<QueueMessage> completions;

	QueueHandling(WorkQueue queue, Map<String, QueueHandler> handlers, Set<String> withoutTransaction,
			TransactionRunner transactions, boolean batchCompletions, DatabaseStatus status, Map<Long, QueueMessage> held,
			LinkedBlockingQueue<QueueMessage> completions) {
		this.queue = queue;
		this.handlers = handlers;
		this.withoutTransaction = withoutTransaction;
		this.transactions = transactions;
		this.batchCompletions = batchCompletions;
		this.status = status;
		this.held = held;
		this.completions = completions;
	}

	/** Processes a message; answers whether its completion was handed to the completer. */
	boolean process(QueueMessage message) {
		if (this.held.get(message.id()) != message) {
			return false; // lost while prefetched: another instance has it now
		}
		QueueHandler handler = this.handlers.get(message.queue());
		if (handler == null) {
			return false;
		}
		if (this.transactions == TransactionRunner.NONE || this.withoutTransaction.contains(message.queue())) {
			try {
				handler.handle(message);
			}
			catch (Exception | Error ex) {
				failOrPostpone(message, ex);
				return false;
			}
			if (this.batchCompletions) {
				this.completions.add(message);
				return true;
			}
			try {
				retryingTransient(() -> this.queue.complete(message));
			}
			catch (RuntimeException ex) {
				warnUnlessOutage(ex, "Could not record the completion of message {} of queue '{}'; it is processed "
						+ "again after its lease expires: {}", message.id(), message.queue(), ex.getMessage());
			}
			return false;
		}
		try {
			this.transactions.inTransaction(() -> {
				try {
					handler.handle(message);
				}
				catch (Exception ex) {
					throw new HandlerFailure(ex);
				}
				if (this.queue.complete(message) == FencedWrite.REJECTED) {
					throw new Rejected();
				}
			});
		}
		catch (Rejected ex) {
			// counted by the queue's listener; the message belongs to another claim now
		}
		catch (HandlerFailure ex) {
			failOrPostpone(message, ex.getCause());
		}
		catch (RuntimeException | Error ex) {
			// completion or commit failed: a failed attempt, unless the database failed transiently
			failOrPostpone(message, ex);
		}
		return false;
	}

	/**
	 * Runs a fenced completion write again when it lost a deadlock or a lock wait (rolled back, so
	 * the retry is clean; the fence keeps it from writing over another claim): without it, a handler
	 * that ran ran again after the lease (seen on MariaDB with eight workers on one queue). Up to
	 * five attempts; a lost database is not retried here.
	 */
	static void retryingTransient(Runnable write) {
		long pauseMillis = 20;
		for (int attempt = 1;; attempt++) {
			try {
				write.run();
				return;
			}
			catch (RuntimeException ex) {
				if (attempt >= 5 || !Failures.isTransient(ex) || Failures.isUnreachable(ex)) {
					throw ex;
				}
				try {
					Thread.sleep(pauseMillis);
				}
				catch (InterruptedException interrupted) {
					Thread.currentThread().interrupt();
					throw ex;
				}
				pauseMillis *= 2;
			}
		}
	}

	/**
	 * A transient database error (deadlock, serialization failure, lost connection, timeout) is no
	 * failed attempt: the message is tried again after the backoff without using one up.
	 */
	private void failOrPostpone(QueueMessage message, Throwable failure) {
		if (!Failures.isTransient(failure)) {
			fail(message, failure);
			return;
		}
		logger.debug("Message {} of queue '{}' met a transient database error; tried again without counting an "
				+ "attempt", message.id(), message.queue(), failure);
		try {
			this.queue.postpone(message, failure);
		}
		catch (RuntimeException ex) {
			warnUnlessOutage(ex, "Could not put message {} of queue '{}' back after a transient database error; it is "
					+ "retried after its lease expires: {}", message.id(), message.queue(), ex.getMessage());
		}
	}

	private void fail(QueueMessage message, Throwable failure) {
		logger.debug("Message {} of queue '{}' failed (attempt {} of {})", message.id(), message.queue(),
				message.attempt(), message.maxAttempts(), failure);
		try {
			this.queue.fail(message, failure);
		}
		catch (RuntimeException ex) {
			warnUnlessOutage(ex, "Could not record the failure of message {} of queue '{}'; it is retried after its "
					+ "lease expires: {}", message.id(), message.queue(), ex.getMessage());
		}
	}

	/**
	 * Logs a failed write as a warning, or at debug level when it is part of a database outage,
	 * which the status reports once.
	 */
	void warnUnlessOutage(RuntimeException failure, String format, Object... arguments) {
		if (this.status.failed("the queue workers", failure)) {
			logger.debug(format, arguments);
		}
		else {
			logger.warn(format, arguments);
		}
	}

	private static final class HandlerFailure extends RuntimeException {

		private static final long serialVersionUID = 1L;

		HandlerFailure(Exception cause) {
			super(cause);
		}

	}

	private static final class Rejected extends RuntimeException {

		private static final long serialVersionUID = 1L;

		Rejected() {
			super(null, null, false, false);
		}

	}

}
