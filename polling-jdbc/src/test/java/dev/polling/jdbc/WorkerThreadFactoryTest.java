package dev.polling.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import dev.polling.jdbc.delivery.DeliveryDestination;
import dev.polling.jdbc.delivery.DeliveryDispatcher;
import dev.polling.jdbc.delivery.DeliveryGuard;
import dev.polling.jdbc.jobs.JobDispatcher;
import dev.polling.jdbc.jobs.JobScheduler;
import dev.polling.jdbc.queue.MessageState;
import dev.polling.jdbc.queue.QueueWorkers;
import dev.polling.jdbc.queue.WorkQueue;
import dev.polling.jdbc.test.DatabaseTest;
import dev.polling.jdbc.test.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.awaitility.Awaitility;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The worker runtimes take their threads from the {@link ThreadFactory} their builder was given (as
 * the starter passes one of virtual threads, or one that propagates a context): every thread they
 * start comes from it, the handlers, senders and dispatch rounds run on them with what the factory
 * wrapped around them, the threads keep the names of their parts, and stopping ends them all.
 */
class WorkerThreadFactoryTest extends DatabaseTest {

	private DataSource dataSource;

	WorkerThreadFactoryTest() {
		super(Dialect.H2);
	}

	@Override
	protected void prepare(TestDatabase database) {
		this.dataSource = database.newDataSource();
		Schema.migrate(this.dataSource, database.dialect(), TableNames.defaults());
	}

	@Test
	void queueWorkersRunTheHandlersOnThreadsOfTheGivenFactoryAndStopThemAll() throws Exception {
		RecordingFactory factory = new RecordingFactory("queue-context");
		WorkQueue queue = WorkQueue.builder(this.dataSource).instanceId("threads").build();
		List<String> seen = new CopyOnWriteArrayList<>();
		CountDownLatch running = new CountDownLatch(1);
		CountDownLatch finish = new CountDownLatch(1);
		QueueWorkers workers = QueueWorkers.builder(queue)
			.threads(2)
			.batchCompletions(true)
			.pollInterval(Duration.ofMillis(50))
			.threadFactory(factory)
			.subscribe("factory-queue", (message) -> {
				seen.add(Thread.currentThread().getName() + "|" + RecordingFactory.CONTEXT.get() + "|"
						+ factory.created(Thread.currentThread()));
				if (message.payload().equals("slow")) {
					running.countDown();
					assertThat(finish.await(30, TimeUnit.SECONDS)).isTrue();
				}
			})
			.build();
		workers.start();
		try {
			queue.enqueue("factory-queue", null, "first");
			long slow = queue.enqueue("factory-queue", null, "slow");
			assertThat(running.await(30, TimeUnit.SECONDS)).isTrue();
			// the stop waits for the running handler, which ends only after the stop began
			Thread stopper = new Thread(() -> workers.stop(Duration.ofSeconds(30)));
			stopper.start();
			Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> stopper.getState() != Thread.State.RUNNABLE);
			assertThat(stopper.isAlive()).isTrue();
			finish.countDown();
			stopper.join(TimeUnit.SECONDS.toMillis(30));
			assertThat(stopper.isAlive()).isFalse();
			assertThat(queue.admin().entry(slow).orElseThrow().state()).isEqualTo(MessageState.DONE);
		}
		finally {
			finish.countDown();
			workers.stop(Duration.ofSeconds(10));
		}
		assertThat(seen).hasSize(2)
			.allSatisfy((entry) -> assertThat(entry).matches("polling-queue-worker-[12]\\|queue-context\\|true"));
		assertThat(factory.names()).containsExactlyInAnyOrder("polling-queue-worker-1", "polling-queue-worker-2",
				"polling-queue-completer", "polling-queue-fetcher", "polling-queue-leases");
		factory.awaitAllEnded();
	}

	@Test
	void theDeliveryDispatcherSendsOnThreadsOfTheGivenFactory() throws Exception {
		RecordingFactory factory = new RecordingFactory("delivery-context");
		List<String> seen = new CopyOnWriteArrayList<>();
		DeliveryGuard guard = DeliveryGuard.builder(this.dataSource)
			.instanceId("threads")
			.destination(DeliveryDestination.of("factory-destination",
					(delivery) -> seen.add(Thread.currentThread().getName() + "|" + RecordingFactory.CONTEXT.get() + "|"
							+ factory.created(Thread.currentThread()))))
			.build();
		DeliveryDispatcher dispatcher = DeliveryDispatcher.builder(guard)
			.threads(2)
			.intervals(Duration.ofMillis(50), Duration.ofMillis(100))
			.threadFactory(factory)
			.build();
		guard.store("factory-destination", "key-1", "hello");
		dispatcher.start();
		try {
			Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> !seen.isEmpty());
		}
		finally {
			dispatcher.stop(Duration.ofSeconds(10));
		}
		assertThat(seen).singleElement().asString().matches("polling-delivery-[12]\\|delivery-context\\|true");
		assertThat(factory.names()).containsExactlyInAnyOrder("polling-delivery-1", "polling-delivery-2",
				"polling-delivery-recovery");
		factory.awaitAllEnded();
	}

	@Test
	void theJobDispatcherRunsItsRoundsOnAThreadOfTheGivenFactory() throws Exception {
		RecordingFactory factory = new RecordingFactory("jobs-context");
		JobScheduler scheduler = JobScheduler.create(this.dataSource);
		WorkQueue queue = WorkQueue.builder(this.dataSource).instanceId("threads").build();
		List<String> seen = new CopyOnWriteArrayList<>();
		JobDispatcher dispatcher = JobDispatcher.builder(scheduler, queue)
			.interval(Duration.ofMillis(50))
			.threadFactory(factory)
			.observer((result) -> {
				if (result.dispatched() > 0) {
					seen.add(Thread.currentThread().getName() + "|" + RecordingFactory.CONTEXT.get() + "|"
							+ factory.created(Thread.currentThread()));
				}
			})
			.build();
		scheduler.schedule("factory-jobs", "order-1", Duration.ZERO, "due");
		dispatcher.start();
		try {
			Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> !seen.isEmpty());
		}
		finally {
			dispatcher.stop();
		}
		assertThat(seen).singleElement().asString().isEqualTo("polling-job-dispatcher|jobs-context|true");
		assertThat(factory.names()).containsExactly("polling-job-dispatcher");
		factory.awaitAllEnded();
	}

	@Test
	void aFactoryThatReturnsNoThreadIsNamedInTheError() {
		WorkQueue queue = WorkQueue.builder(this.dataSource).instanceId("threads").build();
		ThreadFactory refusing = (task) -> null;
		QueueWorkers workers = QueueWorkers.builder(queue).threadFactory(refusing).subscribe("refused", (message) -> {
		}).build();
		try {
			assertThatIllegalStateException()
				.isThrownBy(workers::start)
				.withMessageContaining("returned no thread for 'polling-queue-worker-1'");
		}
		finally {
			workers.stop(Duration.ofSeconds(1));
		}
	}

	/**
	 * Creates daemon platform threads named "custom-N" (the runtime renames them), wrapping each task
	 * so that it runs with a context, as a Spring TaskDecorator does.
	 */
	private static final class RecordingFactory implements ThreadFactory {

		static final ThreadLocal<@Nullable String> CONTEXT = new ThreadLocal<>();

		private final String context;

		private final List<Thread> threads = new CopyOnWriteArrayList<>();

		RecordingFactory(String context) {
			this.context = context;
		}

		@Override
		public Thread newThread(Runnable task) {
			Thread thread = new Thread(() -> {
				CONTEXT.set(this.context);
				try {
					task.run();
				}
				finally {
					CONTEXT.remove();
				}
			}, "custom-" + this.threads.size());
			thread.setDaemon(true);
			this.threads.add(thread);
			return thread;
		}

		boolean created(Thread thread) {
			return this.threads.contains(thread);
		}

		List<String> names() {
			return this.threads.stream().map(Thread::getName).toList();
		}

		void awaitAllEnded() {
			Awaitility.await("every thread of the factory ends")
				.atMost(Duration.ofSeconds(30))
				.until(() -> this.threads.stream().noneMatch(Thread::isAlive));
		}

	}

}
