package dev.polling.jdbc.builder;

import java.util.Objects;
import java.util.concurrent.ThreadFactory;

import org.jspecify.annotations.Nullable;

import dev.polling.jdbc.DatabaseStatus;
import dev.polling.jdbc.internal.Arguments;
import dev.polling.jdbc.internal.WorkerThreads;

/**
 * The settings every worker runtime (queue workers, delivery dispatcher, job dispatcher) is built
 * with: how many rows one round takes, where it reports whether the database answers, and where
 * its threads come from.
 *
 * @param <B> the builder itself, returned by every setter
 */
public abstract class RuntimeBuilder<B extends RuntimeBuilder<B>> {

	private int batchSize;

	private final int defaultBatchSize;

	private final int maxBatchSize;

	private @Nullable DatabaseStatus status;

	private ThreadFactory threadFactory = WorkerThreads.platform();

	/**
	 * For the builders of the runtimes.
	 * @param batchSize the default batch size
	 * @param maxBatchSize the largest batch size
	 */
	protected RuntimeBuilder(int batchSize, int maxBatchSize) {
		this.batchSize = batchSize;
		this.defaultBatchSize = batchSize;
		this.maxBatchSize = maxBatchSize;
	}

	/**
	 * Sets how many rows one round takes at most (the default and the range are the runtime's: see
	 * its builder).
	 * @param batchSize 1 to the runtime's largest batch
	 * @return this builder
	 */
	public B batchSize(int batchSize) {
		this.batchSize = Arguments.between("batchSize", batchSize, 1, this.maxBatchSize, "e.g. " + this.defaultBatchSize);
		return self();
	}

	/**
	 * Sets where the runtime reports whether the database answers (default: a status of its own);
	 * share one among the parts of an instance so that an outage is logged once.
	 * @param status the status
	 * @return this builder
	 */
	public B status(DatabaseStatus status) {
		this.status = Objects.requireNonNull(status, "status must not be null");
		return self();
	}

	/**
	 * Makes the runtime report to a status of its own (the default).
	 * @return this builder
	 */
	protected final B ownStatus() {
		this.status = null;
		return self();
	}

	/**
	 * Sets where the threads come from (default: daemon platform threads), e.g. a factory of virtual
	 * threads on Java 21 or one that propagates a context into the work. The runtime names each
	 * thread after its part ({@code polling-queue-worker-1}, {@code polling-delivery-recovery},
	 * {@code polling-job-dispatcher}, ...) whatever the factory named it.
	 * @param threadFactory the factory
	 * @return this builder
	 */
	public B threadFactory(ThreadFactory threadFactory) {
		this.threadFactory = Objects.requireNonNull(threadFactory, "threadFactory must not be null");
		return self();
	}

	/**
	 * The settings.
	 * @param ownStatus what a status of the runtime's own reports on, e.g. "the queue workers of
	 * host-1/2f0c1a9e"
	 * @return the settings
	 */
	protected final Runtime runtime(String ownStatus) {
		DatabaseStatus reported = (this.status != null) ? this.status : new DatabaseStatus(ownStatus);
		return new Runtime(this.batchSize, reported, WorkerThreads.of(this.threadFactory));
	}

	@SuppressWarnings("unchecked")
	private B self() {
		return (B) this;
	}

	/**
	 * What a runtime was built with.
	 *
	 * @param batchSize how many rows one round takes at most
	 * @param status where it reports whether the database answers
	 * @param threads where its threads come from
	 */
	public record Runtime(int batchSize, DatabaseStatus status, WorkerThreads threads) {
	}

}
