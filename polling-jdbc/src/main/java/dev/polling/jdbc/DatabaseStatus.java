package dev.polling.jdbc;

import dev.polling.jdbc.internal.Arguments;
import dev.polling.jdbc.internal.Failures;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the database answers, as the background parts of one application instance see it: the
 * queue workers, the delivery dispatcher and the job dispatcher report every failed and every
 * successful round here. The first failure that shows the database unreachable (connection refused
 * or lost, server shutting down or starting up; not a pool that only ran out of free connections)
 * starts an outage, the next success of a round that began after it ends it; each is logged once, not per part,
 * thread or retry, and the parts log the failures of an outage at debug level only. Health checks
 * read {@link #isAvailable()}, {@link #unavailableSince()} and {@link #lastError()} without
 * touching the database.
 * <p>
 * Share one status among the parts of an instance ({@code QueueWorkers.Builder.status},
 * {@code JobDispatcher.Builder.status}, the {@code DeliveryDispatcher} constructor); a part built
 * without one keeps a status of its own. Thread-safe.
 */
public final class DatabaseStatus {

	private static final Logger logger = LoggerFactory.getLogger(DatabaseStatus.class);

	private static final int MAX_ERROR_LENGTH = 300;

	private final String name;

	private final Object lock = new Object();

	private volatile @Nullable Instant unavailableSince;

	/** {@link System#nanoTime()} when the current outage began; meaningful only during one. */
	private volatile long outageStartedNanos;

	private volatile @Nullable String lastError;

	private final AtomicLong outages = new AtomicLong();

	/**
	 * Creates the status of one instance, available until a connection failure is reported.
	 * @param name what the log calls it, e.g. the instance id
	 */
	public DatabaseStatus(String name) {
		this.name = Arguments.key("name", name, 200, "e.g. the instance id");
	}

	/**
	 * Reports a failed round. A failure that shows the database unreachable starts an outage (logged
	 * once); other failures are the caller's to log.
	 * @param part which part failed, for the log, e.g. {@code "queue workers"}
	 * @param failure what failed
	 * @return {@code true} if the database is unreachable, reported here: the caller logs it at debug
	 * level only
	 */
	public boolean failed(String part, Throwable failure) {
		Objects.requireNonNull(failure, "failure must not be null");
		if (!Failures.isUnreachable(failure)) {
			// during an outage, a pool that times out waiting for a connection is one of its symptoms
			return this.unavailableSince != null && Failures.isConnectionFailure(failure);
		}
		String error = Arguments.describe(failure, MAX_ERROR_LENGTH);
		this.lastError = error;
		if (this.unavailableSince == null) {
			synchronized (this.lock) {
				if (this.unavailableSince == null) {
					this.outageStartedNanos = System.nanoTime();
					this.unavailableSince = Instant.now();
					this.outages.incrementAndGet();
					logger.warn("The database of {} is unavailable ({} failed: {}); the database parts keep trying by "
							+ "themselves", this.name, part, error);
				}
			}
		}
		return true;
	}

	/**
	 * The start of a round, to hand to {@link #succeeded(long)} when it ends.
	 * @return a reading of {@link System#nanoTime()}
	 */
	public long roundStarted() {
		return System.nanoTime();
	}

	/**
	 * Reports a round that reached the database. It ends an outage (logged once) only if it began
	 * after the outage began: a statement that was answered just before the server went down, but
	 * reported after another part's connection failure, says nothing about the database now and
	 * must not end the outage that failure began.
	 * @param startedNanos {@link #roundStarted()} taken before the round's first statement
	 */
	public void succeeded(long startedNanos) {
		if (this.unavailableSince == null) {
			return;
		}
		synchronized (this.lock) {
			Instant since = this.unavailableSince;
			if (since != null && startedNanos - this.outageStartedNanos >= 0) {
				this.unavailableSince = null;
				this.lastError = null;
				logger.info("The database of {} is available again after {} ms", this.name,
						Math.max(0, Duration.between(since, Instant.now()).toMillis()));
			}
		}
	}

	/**
	 * Whether the database answered the last round.
	 * @return {@code false} during an outage
	 */
	public boolean isAvailable() {
		return this.unavailableSince == null;
	}

	/**
	 * When the current outage began.
	 * @return the time of its first connection failure, empty while available
	 */
	public Optional<Instant> unavailableSince() {
		return Optional.ofNullable(this.unavailableSince);
	}

	/**
	 * The latest connection failure of the current outage.
	 * @return its description, empty while available
	 */
	public Optional<String> lastError() {
		return Optional.ofNullable(this.lastError);
	}

	/**
	 * How many outages began since this status was created.
	 * @return the count
	 */
	public long outages() {
		return this.outages.get();
	}

	@Override
	public String toString() {
		return "DatabaseStatus(" + this.name + (isAvailable() ? ", available" : ", unavailable since "
				+ this.unavailableSince) + ")";
	}

}
