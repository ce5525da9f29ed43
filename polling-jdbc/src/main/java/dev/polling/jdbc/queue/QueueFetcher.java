package dev.polling.jdbc.queue;

import dev.polling.jdbc.DatabaseStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The claiming side of {@link QueueWorkers}: the fetcher's loop that claims batches of the
 * subscribed queues into the prefetch buffer, the messages this instance holds (running and
 * prefetched), the renewal of their leases with the recovery of expired ones, and the release of
 * prefetched messages at stop. Logs under the category of {@link QueueWorkers}.
 */
final class QueueFetcher {

	private static final Logger logger = LoggerFactory.getLogger(QueueWorkers.class);

	private final WorkQueue queue;

	private final List<String> names;

	private final int threads;

	private final int batchSize;

	private final Duration pollInterval;

	private final DatabaseStatus status;

	/** The prefetched messages the workers take. */
	final LinkedBlockingQueue<QueueMessage> buffer = new LinkedBlockingQueue<>();

	/** The messages this instance holds, running and prefetched (a message missing was lost). */
	final Map<Long, QueueMessage> held;

	/** Held messages not yet finished. */
	final AtomicInteger inFlight = new AtomicInteger();

	/** Whether the workers run: the fetcher claims while set; an interrupt of the fetcher clears it. */
	volatile boolean running;

	/** Suspends claiming, renewal and recovery (a frozen instance, for tests). */
	volatile boolean frozen;

	private final Object signal = new Object();

	private boolean signalled;

	private boolean fetchFailing;

	private boolean fetchFailureLogged;

	/** Where failed renewals and recoveries are reported (once per outage). */
	private final QueueHandling handling;

	QueueFetcher(WorkQueue queue, List<String> names, int threads, int batchSize, Duration pollInterval,
			DatabaseStatus status, QueueHandling handling, Map<Long, QueueMessage> held) {
		this.queue = queue;
		this.names = List.copyOf(names);
		this.threads = threads;
		this.batchSize = batchSize;
		this.pollInterval = pollInterval;
		this.status = status;
		this.handling = handling;
		this.held = held;
	}

	/**
	 * Claims batches ahead of the workers: up to two batches wait in the buffer besides the running
	 * messages, and the next batch is claimed as soon as it fits, i.e. while a batch is still waiting.
	 * With room for one batch only, the next claim began when the buffer ran dry, and every worker
	 * that finished meanwhile waited a claim's round trip and commit for work.
	 */
	void run() {
		int capacity = capacity();
		List<String> names = this.names;
		int next = 0;
		while (this.running) {
			int room = capacity - this.inFlight.get();
			if (this.frozen) {
				awaitSignal();
				continue;
			}
			if (room < this.batchSize && !(this.buffer.isEmpty() && room > 0)) {
				awaitSignal();
				continue;
			}
			boolean claimedAny = false;
			try {
				long started = this.status.roundStarted();
				for (int i = 0; i < names.size() && room > 0 && this.running; i++) {
					String name = names.get((next + i) % names.size());
					List<QueueMessage> claimed = this.queue.claim(name, Math.min(this.batchSize, room));
					for (QueueMessage message : claimed) {
						this.held.put(message.id(), message);
						this.inFlight.incrementAndGet();
						this.buffer.add(message);
					}
					room -= claimed.size();
					claimedAny |= !claimed.isEmpty();
				}
				next = (next + 1) % names.size();
				this.status.succeeded(DatabaseStatus.QUEUE_WORKERS, started);
				if (this.fetchFailing) {
					this.fetchFailing = false;
					if (this.fetchFailureLogged) {
						logger.info("Claiming messages of {} works again", names);
					}
				}
			}
			catch (RuntimeException ex) {
				// a lost database is logged once by the status; other failures once per streak here
				boolean outage = this.status.failed("claiming messages", ex);
				if (!this.fetchFailing) {
					this.fetchFailing = true;
					this.fetchFailureLogged = !outage;
					if (!outage) {
						logger.warn("Claiming messages of {} failed; trying again every {}: {}", names, this.pollInterval,
								ex.getMessage());
					}
				}
				sleep(this.pollInterval);
				continue;
			}
			if (!claimedAny) {
				awaitSignal();
			}
		}
	}

	private void awaitSignal() {
		synchronized (this.signal) {
			if (!this.signalled) {
				try {
					this.signal.wait(Math.max(1, this.pollInterval.toMillis()));
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					this.running = this.running && !Thread.currentThread().isInterrupted();
				}
			}
			this.signalled = false;
		}
	}

	private void wake() {
		synchronized (this.signal) {
			this.signalled = true;
			this.signal.notifyAll();
		}
	}

	void finished(QueueMessage message) {
		this.held.remove(message.id(), message);
		int inFlight = this.inFlight.decrementAndGet();
		// only when the fetcher would claim now (see fetch): waking it for every message cost a context
		// switch per message on a machine whose cores the database shares
		if (capacity() - inFlight >= this.batchSize || this.buffer.isEmpty()) {
			wake();
		}
	}

	/** The most messages held at once: the running ones and two batches waiting. */
	private int capacity() {
		return this.threads + 2 * this.batchSize;
	}

	void maintain() {
		if (this.frozen) {
			return;
		}
		try {
			List<QueueMessage> lost = this.queue.renewLeases(new ArrayList<>(this.held.values()));
			for (QueueMessage message : lost) {
				this.held.remove(message.id(), message);
				if (this.buffer.remove(message)) {
					this.inFlight.decrementAndGet();
				}
			}
		}
		catch (RuntimeException ex) {
			this.handling.warnUnlessOutage(ex, "Renewing the leases of {} held message(s) failed: {}", this.held.size(),
					ex.getMessage());
		}
		try {
			this.queue.expireLeases();
		}
		catch (RuntimeException ex) {
			this.handling.warnUnlessOutage(ex, "Recovering expired leases failed: {}", ex.getMessage());
		}
	}

	void releaseBuffered() {
		QueueMessage message;
		while ((message = this.buffer.poll()) != null) {
			this.held.remove(message.id(), message);
			this.inFlight.decrementAndGet();
			try {
				this.queue.release(message);
			}
			catch (RuntimeException ex) {
				logger.debug("Could not release message {}; it is recovered after its lease expires", message.id(), ex);
			}
		}
	}

	private static void sleep(Duration duration) {
		try {
			Thread.sleep(Math.max(1, duration.toMillis()));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
