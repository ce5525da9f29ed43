package dev.polling.jdbc;

import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
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

	/** The part name the queue workers' claim rounds report under. */
	public static final String QUEUE_WORKERS = "queue workers";

	/** The part name the delivery dispatcher's rounds report under. */
	public static final String DELIVERY_DISPATCHER = "delivery dispatcher";

	/** The part name the job dispatcher's dispatch rounds report under (on the instance that dispatches). */
	public static final String JOB_DISPATCHER = "job dispatcher";

	/**
	 * The part name a database coordinator's decisions for a cluster report under.
	 * @param clusterId the cluster (or role) id
	 * @return {@code "coordination of cluster '<id>'"}
	 */
	public static String coordinationOf(String clusterId) {
		return "coordination of cluster '" + clusterId + "'";
	}

	private final String name;

	private final Object lock = new Object();

	private volatile @Nullable Instant unavailableSince;

	/** {@link System#nanoTime()} when the current outage began; meaningful only during one. */
	private volatile long outageStartedNanos;

	private volatile @Nullable String lastError;

	private final AtomicLong outages = new AtomicLong();

	/** The latest outage, kept after it ended: when it began and ended, and when each part resumed. */
	private volatile @Nullable OutageRecord lastOutage;

	/**
	 * Creates the status of one instance, available until a connection failure is reported.
	 * @param name what the log calls it, e.g. the instance id
	 */
	public DatabaseStatus(String name) {
		Objects.requireNonNull(name, "name must not be null: e.g. the instance id");
		if (name.isBlank() || name.length() > 200) {
			throw new IllegalArgumentException("name must be 1 to 200 characters and not blank but was '" + name
					+ "': e.g. the instance id");
		}
		this.name = name;
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
		String message = failure.getMessage();
		String text = failure.getClass().getName() + ((message != null) ? ": " + message : "");
		String error = (text.length() <= MAX_ERROR_LENGTH) ? text : text.substring(0, MAX_ERROR_LENGTH - 3) + "...";
		this.lastError = error;
		if (this.unavailableSince == null) {
			synchronized (this.lock) {
				if (this.unavailableSince == null) {
					this.outageStartedNanos = System.nanoTime();
					this.unavailableSince = Instant.now();
					this.lastOutage = new OutageRecord(this.outageStartedNanos, this.unavailableSince);
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
		endOutage(startedNanos);
	}

	/**
	 * Reports a round of a named part that reached the database: as {@link #succeeded(long)}, and
	 * the part's first success after an outage is kept in {@link #lastOutage()}, so that an operator
	 * (and a test) sees when each part resumed.
	 * @param part the part, e.g. {@code "queue workers"}; a handful of fixed names per instance
	 * @param startedNanos {@link #roundStarted()} taken before the round's first statement
	 */
	public void succeeded(String part, long startedNanos) {
		Objects.requireNonNull(part, "part must not be null");
		OutageRecord outage = this.lastOutage;
		if (outage != null && startedNanos - outage.startedNanos >= 0 && !outage.resumed.containsKey(part)) {
			outage.resumed.putIfAbsent(part, Instant.now());
		}
		endOutage(startedNanos);
	}

	private void endOutage(long startedNanos) {
		if (this.unavailableSince == null) {
			return;
		}
		synchronized (this.lock) {
			Instant since = this.unavailableSince;
			if (since != null && startedNanos - this.outageStartedNanos >= 0) {
				this.unavailableSince = null;
				this.lastError = null;
				OutageRecord outage = this.lastOutage;
				if (outage != null) {
					outage.ended = Instant.now();
				}
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
	 * The latest outage, also after it ended: when it began, when it ended (the first round of any
	 * part that began after it and reached the database) and when each part that reports its name
	 * ({@link #succeeded(String, long)}) first reached the database again. A part missing from
	 * {@link Outage#resumed()} has not completed a round since the outage began.
	 * @return the latest outage, empty if there was none
	 */
	public Optional<Outage> lastOutage() {
		OutageRecord outage = this.lastOutage;
		if (outage == null) {
			return Optional.empty();
		}
		return Optional.of(new Outage(outage.began, outage.ended, Collections.unmodifiableMap(new TreeMap<>(outage.resumed))));
	}

	/**
	 * How many outages began since this status was created.
	 * @return the count
	 */
	public long outages() {
		return this.outages.get();
	}

	/**
	 * An outage as {@link #lastOutage()} reports it.
	 * @param began its first connection failure
	 * @param ended the first round that reached the database after it began, {@code null} while it lasts
	 * @param resumed per part, the end of its first round that began after the outage began and
	 * reached the database, sorted by part
	 */
	public record Outage(Instant began, @Nullable Instant ended, Map<String, Instant> resumed) {

		/**
		 * How long after the outage ended a part resumed.
		 * @param part the part
		 * @return the time from the outage's end to the part's first success, empty if either has not happened
		 */
		public Optional<Duration> resumedAfterEnd(String part) {
			Instant at = this.resumed.get(part);
			return (at != null && this.ended != null) ? Optional.of(Duration.between(this.ended, at)) : Optional.empty();
		}

	}

	private static final class OutageRecord {

		final long startedNanos;

		final Instant began;

		volatile @Nullable Instant ended;

		final Map<String, Instant> resumed = new ConcurrentHashMap<>();

		OutageRecord(long startedNanos, Instant began) {
			this.startedNanos = startedNanos;
			this.began = began;
		}

	}

	@Override
	public String toString() {
		return "DatabaseStatus(" + this.name + (isAvailable() ? ", available" : ", unavailable since "
				+ this.unavailableSince) + ")";
	}

}
