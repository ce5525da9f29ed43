package dev.polling.jdbc.queue;

import dev.polling.jdbc.DatabaseStatus;
import dev.polling.jdbc.TransactionRunner;
import dev.polling.jdbc.builder.RuntimeBuilder;
import dev.polling.jdbc.builder.RuntimeBuilder.Runtime;
import dev.polling.jdbc.internal.Arguments;
import dev.polling.jdbc.internal.WorkerThreads;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker threads of one instance: a fetcher claims batches of messages for the subscribed
 * queues into a small prefetch buffer, {@code threads} workers run the {@link QueueHandler}s and
 * complete or fail each message, and a maintenance thread renews the leases of everything this
 * instance holds (prefetched messages too) every third of the lease time and recovers expired
 * leases of any instance.
 * <p>
 * A handler that returns completes its message: with {@link Builder#transactions} in the same
 * transaction as the handler's own work (unless its subscription is
 * {@linkplain QueueSubscription#withoutTransaction() without transaction}); without, in a transaction
 * of its own right after the handler returned, before the worker takes the next message (one commit per message, so a crash
 * re-runs at most the handlers that were running). {@link Builder#batchCompletions} trades that for
 * fewer commits, for idempotent handlers only. One that throws fails it (retry with backoff, dead on
 * the last attempt); a transient database error (deadlock, serialization failure, lost connection,
 * timeout), in the handler or in the completion, puts the message back after the backoff without
 * counting an attempt. A completion rejected by the fence (this instance lost the claim while the handler
 * ran) is counted by the queue's listener and logged at debug level, never thrown. When the fetcher
 * or a write fails because the database is unavailable, it logs once per outage and tries again;
 * messages whose completion could not be written are recovered after their lease expires.
 * <pre>{@code
 * QueueWorkers workers = QueueWorkers.builder(queue)
 *     .subscribe("mails", (message) -> process(message.payload()))
 *     .threads(4)
 *     .build();
 * workers.start();
 * }</pre>
 */
public final class QueueWorkers implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(QueueWorkers.class);

	private final WorkQueue queue;

	private final Map<String, QueueHandler> handlers;

	/** The subscribed queues whose handlers run outside {@link #transactions}. */
	private final Set<String> withoutTransaction;

	private final int threads;

	private final int batchSize;

	private final Duration pollInterval;

	private final Duration renewInterval;

	private final TransactionRunner transactions;

	private final boolean batchCompletions;

	private final DatabaseStatus status;

	private final WorkerThreads threadSource;

	/** Runs the handlers and writes the outcomes. */
	private final QueueHandling handling;

	/** Claims ahead of the workers and keeps the leases of what this instance holds. */
	private final QueueFetcher fetcher;

	private final LinkedBlockingQueue<QueueMessage> completions = new LinkedBlockingQueue<>();

	private @Nullable Thread completer;

	private final List<Thread> workerThreads = new ArrayList<>();

	private @Nullable Thread fetcherThread;

	private @Nullable ScheduledExecutorService maintenance;

	private QueueWorkers(Builder builder, Runtime runtime) {
		this.queue = builder.queue;
		this.handlers = new LinkedHashMap<>(builder.handlers);
		this.withoutTransaction = Set.copyOf(builder.withoutTransaction);
		this.threads = builder.threads;
		this.batchSize = runtime.batchSize();
		this.pollInterval = builder.pollInterval;
		this.renewInterval = (builder.renewInterval != null) ? builder.renewInterval
				: this.queue.leaseTime().dividedBy(3);
		this.transactions = builder.transactions;
		this.batchCompletions = builder.batchCompletions;
		this.status = runtime.status();
		this.threadSource = runtime.threads();
		Map<Long, QueueMessage> held = new ConcurrentHashMap<>();
		this.handling = new QueueHandling(this.queue, this.handlers, this.withoutTransaction, this.transactions,
				this.batchCompletions, this.status, held, this.completions);
		this.fetcher = new QueueFetcher(this.queue, new ArrayList<>(this.handlers.keySet()), this.threads,
				this.batchSize, this.pollInterval, this.status, this.handling, held);
	}

	/**
	 * Starts building the workers of a queue.
	 * @param queue the queue
	 * @return the builder
	 */
	public static Builder builder(WorkQueue queue) {
		return new Builder(Objects.requireNonNull(queue, "queue must not be null"));
	}

	/**
	 * Starts the threads. Does nothing when no queue is subscribed or when already running.
	 */
	public synchronized void start() {
		if (this.fetcher.running || this.handlers.isEmpty()) {
			return;
		}
		this.fetcher.running = true;
		for (int i = 1; i <= this.threads; i++) {
			this.workerThreads.add(this.threadSource.start("polling-queue-worker-" + i, this::work));
		}
		if (this.batchCompletions) {
			this.completer = this.threadSource.start("polling-queue-completer", this::completeInBatches);
		}
		this.fetcherThread = this.threadSource.start("polling-queue-fetcher", this.fetcher::run);
		ScheduledExecutorService executor = this.threadSource.timer("polling-queue-leases");
		long millis = Math.max(1, this.renewInterval.toMillis());
		executor.scheduleWithFixedDelay(this.fetcher::maintain, millis, millis, TimeUnit.MILLISECONDS);
		this.maintenance = executor;
		logger.info("Queue workers started for {} with {} thread(s), batches of {}, owner {}", this.handlers.keySet(),
				this.threads, this.batchSize, this.queue.owner());
	}

	/**
	 * Stops claiming, lets running handlers finish (up to the given time), and releases prefetched
	 * messages so that other instances take them at once.
	 * @param timeout how long to wait for running handlers
	 */
	public synchronized void stop(Duration timeout) {
		if (!this.fetcher.running) {
			return;
		}
		this.fetcher.running = false;
		if (this.fetcherThread != null) {
			this.fetcherThread.interrupt();
			join(this.fetcherThread, Duration.ofSeconds(5));
		}
		this.fetcher.releaseBuffered();
		long deadline = System.nanoTime() + timeout.toNanos();
		for (Thread worker : this.workerThreads) {
			join(worker, Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
		}
		this.fetcher.releaseBuffered();
		if (this.completer != null) {
			join(this.completer, Duration.ofSeconds(10));
			this.completer = null;
		}
		if (this.maintenance != null) {
			this.maintenance.shutdownNow();
			// a renewal or recovery under way finishes before stop returns (and the pool is closed)
			try {
				this.maintenance.awaitTermination(10, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		this.workerThreads.clear();
		this.fetcherThread = null;
		this.maintenance = null;
	}

	@Override
	public void close() {
		stop(Duration.ofSeconds(30));
	}

	/**
	 * Whether the threads run.
	 * @return {@code true} between start and stop
	 */
	public boolean isRunning() {
		return this.fetcher.running;
	}

	/**
	 * The subscribed queues.
	 * @return the queue names
	 */
	public List<String> queues() {
		return List.copyOf(this.handlers.keySet());
	}

	/**
	 * Suspends or resumes claiming, lease renewal and recovery on this instance, simulating an
	 * instance that froze (long GC pause, network partition). For tests.
	 * @param frozen whether to suspend
	 */
	void freeze(boolean frozen) {
		this.fetcher.frozen = frozen;
	}

	private void work() {
		while (this.fetcher.running || !this.fetcher.buffer.isEmpty()) {
			QueueMessage message;
			try {
				message = this.fetcher.buffer.poll(this.pollInterval.toMillis(), TimeUnit.MILLISECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
			if (message == null) {
				if (!this.fetcher.running) {
					return;
				}
				continue;
			}
			boolean deferred = false;
			try {
				deferred = this.handling.process(message);
			}
			finally {
				if (!deferred) {
					this.fetcher.finished(message);
				}
			}
		}
	}

	/**
	 * With {@link Builder#batchCompletions}, completions of all workers are written in batches, so
	 * that many share one commit; the messages stay held (and their leases renewed) until written.
	 */
	private void completeInBatches() {
		List<QueueMessage> batch = new ArrayList<>();
		while (this.fetcher.running || !this.completions.isEmpty() || this.fetcher.inFlight.get() > this.fetcher.buffer.size()) {
			try {
				QueueMessage first = this.completions.poll(this.pollInterval.toMillis(), TimeUnit.MILLISECONDS);
				if (first == null) {
					if (!this.fetcher.running && this.workerThreads.stream().noneMatch(Thread::isAlive)) {
						return;
					}
					continue;
				}
				batch.add(first);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
			this.completions.drainTo(batch, 99);
			try {
				QueueHandling.retryingTransient(() -> this.queue.completeAll(batch));
			}
			catch (RuntimeException ex) {
				this.handling.warnUnlessOutage(ex, "Could not record the completion of {} message(s); they are processed "
						+ "again after their leases expire: {}", batch.size(), ex.getMessage());
			}
			finally {
				batch.forEach(this.fetcher::finished);
				batch.clear();
			}
		}
	}

	private static void join(Thread thread, Duration timeout) {
		try {
			thread.join(Math.max(1, timeout.toMillis()));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Builds {@link QueueWorkers}: how many messages one claim takes ({@link #batchSize}: 1 to 1000,
	 * default 10; 1 claims single rows), where the workers report whether the database answers and
	 * where their threads come from ({@code polling-queue-worker-1}, {@code polling-queue-fetcher},
	 * {@code polling-queue-completer}, {@code polling-queue-leases}), as every runtime is built.
	 */
	public static final class Builder extends RuntimeBuilder<Builder> {

		private final WorkQueue queue;

		private final Map<String, QueueHandler> handlers = new LinkedHashMap<>();

		private final Set<String> withoutTransaction = new HashSet<>();

		private int threads = 4;

		private Duration pollInterval = Duration.ofMillis(500);

		private @Nullable Duration renewInterval;

		private TransactionRunner transactions = TransactionRunner.NONE;

		private boolean batchCompletions;

		private Builder(WorkQueue queue) {
			super(10, 1000);
			this.queue = queue;
		}

		/**
		 * Subscribes a handler to a queue.
		 * @param queueName the queue name
		 * @param handler the handler
		 * @return this builder
		 * @throws IllegalStateException if the queue has a handler already
		 */
		public Builder subscribe(String queueName, QueueHandler handler) {
			QueueEnqueues.validate(queueName, null, "");
			Objects.requireNonNull(handler, "handler must not be null");
			if (this.handlers.putIfAbsent(queueName, handler) != null) {
				throw new IllegalStateException("Queue '" + queueName + "' has a handler already: subscribe one "
						+ "handler per queue and dispatch inside it");
			}
			return this;
		}

		/**
		 * Subscribes a handler to its queue; one {@linkplain QueueSubscription#withoutTransaction() without
		 * transaction} runs outside the {@link #transactions} runner, if there is one.
		 * @param subscription the subscription
		 * @return this builder
		 * @throws IllegalStateException if the queue has a handler already
		 */
		public Builder subscribe(QueueSubscription subscription) {
			Objects.requireNonNull(subscription, "subscription must not be null");
			subscribe(subscription.queue(), subscription.handler());
			if (!subscription.transactional()) {
				this.withoutTransaction.add(subscription.queue());
			}
			return this;
		}

		/**
		 * Sets the number of worker threads of this instance (default 4).
		 * @param threads between 1 and 256
		 * @return this builder
		 */
		public Builder threads(int threads) {
			this.threads = Arguments.between("threads", threads, 1, 256, "e.g. 4");
			return this;
		}

		/**
		 * Sets how long the fetcher waits when no message was ready (default 500 ms); a completed
		 * message wakes it earlier, since it may unblock the next message of its key.
		 * @param pollInterval positive
		 * @return this builder
		 */
		public Builder pollInterval(Duration pollInterval) {
			this.pollInterval = Arguments.positive("pollInterval", pollInterval, "e.g. 500ms");
			return this;
		}

		/**
		 * Sets how often leases are renewed and expired leases recovered (default: a third of the
		 * lease time).
		 * @param renewInterval positive and shorter than the lease time
		 * @return this builder
		 */
		public Builder renewInterval(Duration renewInterval) {
			Objects.requireNonNull(renewInterval, "renewInterval must not be null");
			if (renewInterval.isNegative() || renewInterval.isZero()
					|| renewInterval.compareTo(this.queue.leaseTime()) >= 0) {
				throw new IllegalArgumentException("renewInterval must be positive and shorter than the lease time "
						+ this.queue.leaseTime() + " but was " + renewInterval + ": e.g. a third of the lease time");
			}
			this.renewInterval = renewInterval;
			return this;
		}

		/**
		 * Runs each handler and its message's completion in one transaction (except the handlers of
		 * subscriptions {@linkplain QueueSubscription#withoutTransaction() without transaction}). The queue must have been
		 * built with {@link WorkQueue.Builder#connections} bound to the same transactions (e.g.
		 * {@link dev.polling.jdbc.JdbcTransactions}), so that the completion joins the runner's
		 * transaction.
		 * @param transactions the transaction runner
		 * @return this builder
		 */
		public Builder transactions(TransactionRunner transactions) {
			this.transactions = Objects.requireNonNull(transactions, "transactions must not be null");
			return this;
		}

		/**
		 * For idempotent handlers only: without a transaction runner, writes the completions of all
		 * workers in batches of up to 100 per transaction instead of one commit per message. Fewer
		 * commits, but a crash re-runs every handler whose completion was still waiting for its batch
		 * (up to 100 finished handlers), not only the ones that were running. Off by default.
		 * @param batchCompletions whether to batch completions
		 * @return this builder
		 */
		public Builder batchCompletions(boolean batchCompletions) {
			this.batchCompletions = batchCompletions;
			return this;
		}

		/**
		 * Builds the workers (not started).
		 * @return the workers
		 * @throws IllegalStateException if a transaction runner is set but the queue borrows its own
		 * connections, or completions are batched inside a transaction runner
		 */
		public QueueWorkers build() {
			if (this.transactions != TransactionRunner.NONE && !this.queue.joinsCallerTransactions()) {
				throw new IllegalStateException("QueueWorkers.transactions(...) is set but the queue borrows its own "
						+ "connections, so DONE would commit outside the runner's transaction: build the queue with "
						+ "WorkQueue.Builder.connections(...) bound to the same transactions (e.g. "
						+ "JdbcTransactions.of(dataSource) as both), or leave transactions unset");
			}
			if (this.transactions != TransactionRunner.NONE && this.batchCompletions) {
				throw new IllegalStateException("QueueWorkers.batchCompletions(true) and transactions(...) exclude each "
						+ "other: with a transaction runner each completion commits with its handler's work; remove "
						+ "one of them");
			}
			return new QueueWorkers(this, runtime("the queue workers of " + this.queue.owner()));
		}

	}

}
