package dev.polling.jdbc.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;

import dev.polling.jdbc.Backoff;
import dev.polling.jdbc.ConnectionProvider;
import dev.polling.jdbc.FencedWrite;
import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.Schema;
import dev.polling.jdbc.TableNames;
import dev.polling.jdbc.coordination.JdbcCoordinator;
import dev.polling.jdbc.coordination.LostHoldException;
import dev.polling.jdbc.jobs.JobScheduler.DispatchResult;
import dev.polling.jdbc.queue.QueueMessage;
import dev.polling.jdbc.queue.QueueProtocol;
import dev.polling.jdbc.queue.WorkQueue;
import dev.polling.jdbc.test.DatabaseTest;
import dev.polling.jdbc.test.Faults;
import dev.polling.jdbc.test.QueryPlans;
import dev.polling.jdbc.test.StatementLog;
import org.awaitility.Awaitility;
import dev.polling.jdbc.test.TestDatabase;

/** Scheduled jobs on a real database; "instances" are separate connection pools. */
abstract class JobSchedulerContractTest extends DatabaseTest {

	private static final Backoff FAST = new Backoff(Duration.ofMillis(100), 2.0, Duration.ofMillis(400));


	JobSchedulerContractTest(Dialect dialect) {
		super(dialect);
	}

	@Override
	protected void prepare(TestDatabase database) {
		Schema.migrate(database.newDataSource(), database.dialect(), TableNames.defaults());
	}


	private DataSource pool() {
		return newPool(4);
	}

	private long count(String where) {
		return database().queryForLong("SELECT COUNT(*) FROM polling_job WHERE " + where);
	}

	@Test
	void schedulesNothingWhenTheTransactionRollsBack() throws Exception {
		DataSource pool = pool();
		try (Connection connection = pool.getConnection()) {
			connection.setAutoCommit(false);
			JobScheduler scheduler = JobScheduler.create(pool, ConnectionProvider.of(connection), database().dialect(), TableNames.defaults());
			scheduler.schedule("rollback", "order-1", Duration.ZERO, "check");
			try (var statement = connection.createStatement();
					var rows = statement.executeQuery("SELECT COUNT(*) FROM polling_job WHERE queue = 'rollback'")) {
				rows.next();
				assertThat(rows.getLong(1)).as("visible inside the transaction").isEqualTo(1);
			}
			connection.rollback();
		}
		assertThat(count("queue = 'rollback'")).isZero();
	}

	@Test
	void runsDueJobsExactlyOnceAcrossThreeInstancesThatAllDispatchAndWork() throws Exception {
		int jobs = 600;
		JobScheduler producer = JobScheduler.create(pool());
		for (int i = 0; i < jobs; i++) {
			producer.schedule("once", "order-" + (i % 50), Duration.ofMillis(i % 1500), "job-" + i);
		}
		Map<String, AtomicInteger> executions = new ConcurrentHashMap<>();
		ExecutorService pool = Executors.newFixedThreadPool(3);
		List<Future<Integer>> instances = new ArrayList<>();
		for (int n = 0; n < 3; n++) {
			DataSource dataSource = pool();
			String owner = "instance-" + n;
			instances.add(pool.submit(() -> {
				JobScheduler scheduler = JobScheduler.create(dataSource);
				WorkQueue queue = WorkQueue.builder(dataSource).instanceId(owner).build();
				long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
				int done = 0;
				while (System.nanoTime() < deadline && executions.values().stream().mapToInt(AtomicInteger::get).sum() < jobs) {
					scheduler.dispatchDue(queue, 200);
					List<QueueMessage> claimed = QueueProtocol.claim(queue, "once", 50);
					for (QueueMessage message : claimed) {
						executions.computeIfAbsent(message.payload(), (k) -> new AtomicInteger()).incrementAndGet();
						QueueProtocol.complete(queue, message);
						done++;
					}
					if (claimed.isEmpty()) {
						Thread.sleep(20);
					}
				}
				return done;
			}));
		}
		int total = 0;
		for (Future<Integer> instance : instances) {
			total += instance.get();
		}
		pool.shutdown();
		assertThat(executions).hasSize(jobs);
		assertThat(executions.values()).allMatch((c) -> c.get() == 1);
		assertThat(total).isEqualTo(jobs);
		assertThat(count("queue = 'once' AND state = 'DISPATCHED'")).isEqualTo(jobs);
	}

	@Test
	void doesNotLetAPoisonedJobHoldBackTheOthersInItsBatchAndTriesItAgainLater() {
		JobScheduler scheduler = JobScheduler.builder(pool()).backoff(FAST).build();
		WorkQueue queue = WorkQueue.builder(pool()).instanceId("dispatcher").build();
		for (int i = 0; i < 5; i++) {
			scheduler.schedule("poison", "order-" + i, Duration.ZERO, (i == 2) ? "poison" : "fine-" + i);
		}
		// a permanent database error for exactly one job: the queue table refuses its payload
		database().execute("ALTER TABLE polling_queue ADD CONSTRAINT polling_test_no_poison CHECK (payload <> 'poison')");
		try {
			DispatchResult result = scheduler.dispatchDue(queue, 100);
			assertThat(result.dispatched()).isEqualTo(4);
			assertThat(result.postponed()).isEqualTo(1);
			assertThat(count("queue = 'poison' AND state = 'DISPATCHED'")).isEqualTo(4);
			assertThat(count("queue = 'poison' AND state = 'SCHEDULED' AND payload = 'poison' AND attempts = 1 "
					+ "AND LOWER(last_error) LIKE '%polling_test_no_poison%'")).isEqualTo(1);
			assertThat(database().queryForLong("SELECT COUNT(*) FROM polling_queue WHERE queue = 'poison'")).isEqualTo(4);
			// tried again after its backoff, failing again: still scheduled, one more attempt counted
			Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> {
				scheduler.dispatchDue(queue, 100);
				return count("queue = 'poison' AND state = 'SCHEDULED' AND attempts >= 2") == 1;
			});
		}
		finally {
			database().execute("ALTER TABLE polling_queue DROP CONSTRAINT polling_test_no_poison");
		}
		Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> {
			scheduler.dispatchDue(queue, 100);
			return count("queue = 'poison' AND state = 'DISPATCHED'") == 5;
		});
		assertThat(count("state = 'FAILED'")).isZero();
	}

	@Test
	void aJobEndsFailedOnlyWhenItsHandlerFailsForGoodAndAnOperatorCanRequeueIt() {
		JobScheduler scheduler = JobScheduler.create(pool());
		WorkQueue queue = WorkQueue.builder(pool()).instanceId("worker").maxAttempts(1).build();
		long job = scheduler.schedule("handled", "order-1", Duration.ZERO, "fails once");
		scheduler.dispatchDue(queue, 100);
		assertThat(count("id = " + job + " AND state = 'DISPATCHED'")).isOne();
		QueueMessage message = QueueProtocol.claim(queue, "handled", 1).get(0);
		assertThat(QueueProtocol.fail(queue, message, new IllegalStateException("handler gave up"))).isEqualTo(FencedWrite.APPLIED);
		assertThat(count("id = " + job + " AND state = 'FAILED' AND last_error LIKE '%handler gave up%'")).isOne();

		assertThat(scheduler.requeue(queue, job + 1000)).isFalse();
		assertThat(scheduler.requeue(queue, job)).isTrue();
		assertThat(count("id = " + job + " AND state = 'DISPATCHED'")).isOne();
		assertThat(scheduler.requeue(queue, job)).as("only FAILED jobs").isFalse();
		QueueMessage again = QueueProtocol.claim(queue, "handled", 1).get(0);
		assertThat(again.id()).isEqualTo(message.id());
		assertThat(QueueProtocol.complete(queue, again)).isEqualTo(FencedWrite.APPLIED);

		// a failed job whose message an operator discarded is scheduled again
		long other = scheduler.schedule("handled", "order-2", Duration.ZERO, "fails, discarded");
		scheduler.dispatchDue(queue, 100);
		QueueMessage doomed = QueueProtocol.claim(queue, "handled", 1).get(0);
		QueueProtocol.fail(queue, doomed, new IllegalStateException("no"));
		assertThat(queue.admin().discard(doomed.id())).isTrue();
		assertThat(scheduler.requeue(queue, other)).isTrue();
		assertThat(count("id = " + other + " AND state = 'SCHEDULED' AND message_id IS NULL")).isOne();
		scheduler.dispatchDue(queue, 100);
		assertThat(QueueProtocol.claim(queue, "handled", 1)).extracting(QueueMessage::payload).containsExactly("fails, discarded");
	}

	/**
	 * Issue 16, defect 3: the batch fails, and in the per-job fallback one job meets a transient
	 * error (a serialization failure, as a deadlock victim gets). It must be tried again later, not
	 * end FAILED.
	 */
	@Test
	void aTransientErrorInThePerJobFallbackPostponesTheJobInsteadOfFailingIt() {
		JobScheduler scheduler = JobScheduler.create(pool());
		WorkQueue queue = WorkQueue.builder(pool()).instanceId("dispatcher").build();
		for (int i = 0; i < 3; i++) {
			scheduler.schedule("transient", "order-" + i, Duration.ZERO, "transient-" + i);
		}
		Faults.install(database(), "polling_queue");
		Faults.fail(database(), "transient-1", Faults.SERIALIZATION_FAILURE);
		try {
			scheduler.dispatchDue(queue, 100);
		}
		finally {
			Faults.clear(database());
		}
		assertThat(count("queue = 'transient' AND state = 'FAILED'")).as("jobs FAILED after a transient error").isZero();
		assertThat(count("queue = 'transient' AND state = 'SCHEDULED' AND payload = 'transient-1'")).isOne();
		assertThat(count("queue = 'transient' AND state = 'DISPATCHED'")).isEqualTo(2);
		// the database works again: the job goes out after its backoff
		Awaitility.await("the postponed job is dispatched").atMost(Duration.ofSeconds(30)).until(() -> {
			scheduler.dispatchDue(queue, 100);
			return count("queue = 'transient' AND state = 'DISPATCHED'") == 3;
		});
	}

	/**
	 * Issue 16, defect 4: while one dispatcher is moving the older job of a business id (its
	 * transaction still open), a second dispatcher must not move the younger one ahead of it.
	 */
	@Test
	void aSecondDispatcherNeverMovesAYoungerJobOfABusinessIdAheadOfTheOlderOne() throws Exception {
		drainDueJobs();
		JobScheduler first = JobScheduler.create(pool());
		JobScheduler second = JobScheduler.create(pool());
		WorkQueue queue = WorkQueue.builder(pool()).instanceId("worker").build();
		first.schedule("ordered", "order-9", Duration.ZERO, "older");
		first.schedule("ordered", "order-9", Duration.ZERO, "younger");
		Faults.install(database(), "polling_queue");
		Faults.delay(database(), "older", 3000);
		Thread slow = new Thread(() -> first.dispatchDue(WorkQueue.builder(pool()).instanceId("a").build(), 1));
		try {
			slow.start();
			Awaitility.await("the first dispatcher holds the older job")
				.atMost(Duration.ofSeconds(10))
				.until(() -> isLocked("payload = 'older'"));
			second.dispatchDue(WorkQueue.builder(pool()).instanceId("b").build(), 10);
			// the older job's message is not committed yet
			assertThat(QueueProtocol.claim(queue, "ordered", 10)).extracting(QueueMessage::payload)
				.as("claimable while the older job is being dispatched")
				.doesNotContain("younger");
		}
		finally {
			slow.join();
			Faults.clear(database());
		}
		Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> {
			first.dispatchDue(queue, 10);
			return count("queue = 'ordered' AND state = 'DISPATCHED'") == 2;
		});
		List<String> order = new ArrayList<>();
		Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> {
			for (QueueMessage message : QueueProtocol.claim(queue, "ordered", 10)) {
				order.add(message.payload());
				QueueProtocol.complete(queue, message);
			}
			return order.size() == 2;
		});
		assertThat(order).containsExactly("older", "younger");
	}

	/**
	 * Issue 16, defect 4: a job waiting for another attempt after a failed dispatch holds back the
	 * younger jobs of its business id.
	 */
	@Test
	void aJobWaitingForAnotherDispatchAttemptHoldsBackTheYoungerJobsOfItsBusinessId() {
		drainDueJobs();
		JobScheduler scheduler = JobScheduler.create(pool());
		WorkQueue queue = WorkQueue.builder(pool()).instanceId("dispatcher").build();
		scheduler.schedule("held", "order-5", Duration.ZERO, "held-older");
		scheduler.schedule("held", "order-5", Duration.ZERO, "held-younger");
		scheduler.schedule("held", "order-6", Duration.ZERO, "held-other-key");
		Faults.install(database(), "polling_queue");
		Faults.fail(database(), "held-older", Faults.SERIALIZATION_FAILURE);
		try {
			scheduler.dispatchDue(queue, 100);
		}
		finally {
			Faults.clear(database());
		}
		assertThat(database().queryForLong("SELECT COUNT(*) FROM polling_queue WHERE queue = 'held' AND payload = "
				+ "'held-younger'")).as("younger job of the key moved ahead of the older one").isZero();
		assertThat(count("queue = 'held' AND payload = 'held-other-key' AND state = 'DISPATCHED'")).isOne();
		Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> {
			scheduler.dispatchDue(queue, 100);
			return count("queue = 'held' AND state = 'DISPATCHED'") == 3;
		});
		assertThat(database().queryForLong("SELECT COUNT(*) FROM polling_queue o JOIN polling_queue y ON "
				+ "o.payload = 'held-older' AND y.payload = 'held-younger' AND o.id < y.id")).isOne();
	}

	@Test
	void oneOfTwoDispatchersDispatchesAndTheOtherTakesOverWhenItStops() {
		drainDueJobs();
		JobScheduler scheduler = JobScheduler.create(pool());
		Map<String, AtomicInteger> dispatchedBy = new ConcurrentHashMap<>();
		JobDispatcher a = dispatcher(scheduler, "a", dispatchedBy);
		JobDispatcher b = dispatcher(scheduler, "b", dispatchedBy);
		try {
			a.start();
			b.start();
			for (int i = 0; i < 10; i++) {
				scheduler.schedule("roles", "order-" + i, Duration.ofMillis(50L * i), "job " + i);
			}
			Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> count("queue = 'roles' AND state = 'DISPATCHED'") == 10);
			assertThat(dispatchedBy).as("dispatchers that moved jobs").hasSize(1);
			String first = dispatchedBy.keySet().iterator().next();
			(first.equals("a") ? a : b).stop();
			for (int i = 10; i < 15; i++) {
				scheduler.schedule("roles", "order-" + i, Duration.ZERO, "job " + i);
			}
			Awaitility.await("the other dispatcher takes over at once after the release")
				.atMost(Duration.ofSeconds(5))
				.until(() -> count("queue = 'roles' AND state = 'DISPATCHED'") == 15);
			assertThat(dispatchedBy).hasSize(2);
			assertThat(dispatchedBy.get(first)).hasValue(10);
		}
		finally {
			a.stop();
			b.stop();
		}
	}

	/**
	 * Issue 16, defect 7: a dispatcher whose role another instance has taken over (its epoch moved
	 * on) must not move any more jobs: each dispatch transaction checks the hold. (Failing first on
	 * eb2ad53 with the takeover during the dispatcher's first transaction: its next transaction still
	 * moved a job.)
	 */
	@Test
	void aDispatcherThatLostItsRoleMovesNoMoreJobs() {
		drainDueJobs();
		JobScheduler scheduler = JobScheduler.create(pool());
		WorkQueue queue = WorkQueue.builder(pool()).instanceId("a").build();
		String role = "fenced-" + database().dialect().id();
		JdbcCoordinator coordinator = new JdbcCoordinator(pool(), database().dialect(), TableNames.defaults(),
				Duration.ofSeconds(10));
		DispatchHold hold = DispatchHold.database(coordinator, role, "a", Duration.ofSeconds(10));
		scheduler.schedule("fenced", "order-1", Duration.ZERO, "fenced job");
		AtomicInteger rounds = new AtomicInteger();
		hold.runIfHeld((check) -> {
			rounds.incrementAndGet();
			// granted; before its dispatch transaction, another instance takes the role over
			database().execute("UPDATE polling_coordination SET holder = 'b', epoch = epoch + 1, last_run = " + now()
					+ " WHERE cluster_id = '" + role + "'");
			org.assertj.core.api.Assertions.assertThatThrownBy(() -> scheduler.dispatchDue(queue, 10, check))
				.isInstanceOf(LostHoldException.class)
				.hasMessageContaining(role)
				.hasMessageContaining("holder b");
		});
		assertThat(rounds).hasValue(1);
		assertThat(database().queryForLong("SELECT COUNT(*) FROM polling_queue WHERE queue = 'fenced'"))
			.as("jobs moved by a after b took the role over").isZero();
		assertThat(count("queue = 'fenced' AND state = 'SCHEDULED'")).isOne();
		// a's next tick finds b's fresh hold and runs no round
		JobDispatcher.builder(scheduler, queue).hold(hold).build().tick();
		assertThat(count("queue = 'fenced' AND state = 'SCHEDULED'")).isOne();
	}

	// ---- the operator's view (issue 30)

	@Test
	void theAdminListsPagesOfJobsByStateQueueAndBusinessIdAndShowsOne() {
		JobScheduler scheduler = JobScheduler.create(pool());
		JobAdmin admin = scheduler.admin();
		List<Long> expected = new ArrayList<>();
		for (int i = 0; i < 7; i++) {
			expected.add(scheduler.schedule("admin-list", "b-" + i, Duration.ofHours(1), "job " + i));
		}
		long elsewhere = scheduler.schedule("admin-list-other", "b-3", Duration.ofHours(1), "other queue");
		JobQuery query = JobQuery.of(JobState.SCHEDULED).withQueue("admin-list").withLimit(3);
		List<Long> seen = new ArrayList<>();
		List<JobEntry> page;
		int pages = 0;
		do {
			page = admin.entries(query);
			assertThat(page).allSatisfy((entry) -> {
				assertThat(entry.queue()).isEqualTo("admin-list");
				assertThat(entry.state()).isEqualTo(JobState.SCHEDULED);
			});
			page.forEach((entry) -> seen.add(entry.id()));
			query = query.next(page);
			if (++pages == 1) {
				expected.add(scheduler.schedule("admin-list", "b-added", Duration.ofHours(1), "added while paging"));
			}
		}
		while (!page.isEmpty());
		assertThat(seen).as("no repeats, no gaps, by id").containsExactlyElementsOf(expected).isSorted();
		assertThat(pages).as("8 jobs in pages of 3, then an empty one").isEqualTo(4);
		assertThat(admin.entries(JobQuery.of(JobState.SCHEDULED).withBusinessId("b-3").withLimit(1000)))
			.filteredOn((entry) -> entry.queue().startsWith("admin-list"))
			.extracting(JobEntry::id)
			.containsExactly(expected.get(3), elsewhere);
		assertThat(admin.entries(JobQuery.of(JobState.SCHEDULED).withQueue("admin-list").withBusinessId("b-3")))
			.extracting(JobEntry::id).containsExactly(expected.get(3));
		assertThat(admin.entry(expected.get(3))).hasValueSatisfying((job) -> {
			assertThat(job.businessId()).isEqualTo("b-3");
			assertThat(job.state()).isEqualTo(JobState.SCHEDULED);
			assertThat(Duration.between(job.createdAt(), job.dueAt())).isBetween(Duration.ofMinutes(59), Duration.ofMinutes(61));
			assertThat(job.attempts()).isZero();
			assertThat(job.messageId()).isNull();
			assertThat(job.dispatchedAt()).isNull();
			assertThat(job.nextAttemptAt()).isNull();
			assertThat(job.lastError()).isNull();
		});
		assertThat(admin.entry(-1)).isEmpty();
		assertThat(scheduler.cancel("admin-list", "b-0")).isOne();
		assertThat(admin.entries(JobQuery.of(JobState.CANCELLED).withQueue("admin-list")))
			.extracting(JobEntry::id).containsExactly(expected.get(0));
		assertThat(admin.entries(JobQuery.of(JobState.SCHEDULED).withQueue("admin-list"))).hasSize(7);

		JobQuery valid = JobQuery.of(JobState.FAILED);
		assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> valid.withLimit(0))
			.withMessageContaining("limit must be between 1 and 1000 but was 0");
		assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> valid.withAfterId(-1))
			.withMessageContaining("afterId").withMessageContaining("-1");
		assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> valid.withQueue("q".repeat(101)))
			.withMessageContaining("queue is 101 characters long");
		assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> valid.withBusinessId(""))
			.withMessageStartingWith("businessId must not be blank");
		assertThatExceptionOfType(NullPointerException.class).isThrownBy(() -> JobQuery.of(null))
			.withMessageContaining("state must not be null");
		for (int i = 0; i < 7; i++) {
			scheduler.cancel("admin-list", "b-" + i);
		}
		scheduler.cancel("admin-list", "b-added");
		scheduler.cancel("admin-list-other", "b-3");
	}

	/**
	 * Overdue: a SCHEDULED job due longer ago than the grace (the dispatcher is not running or not
	 * keeping up); dispatching it ends that. Its handler failing for good makes it FAILED, listed
	 * for the operator, who requeues it through the admin.
	 */
	@Test
	void theAdminCountsOverdueJobsWithTheOldestDueTimeAndRequeuesAFailedOne() {
		drainDueJobs();
		JobScheduler scheduler = JobScheduler.create(pool());
		JobAdmin admin = scheduler.admin();
		WorkQueue queue = WorkQueue.builder(pool()).instanceId("worker").maxAttempts(1).build();
		Duration grace = Duration.ofHours(1);
		JobOverview before = admin.stats(grace);
		long beforeLongGrace = admin.stats(Duration.ofDays(4)).overdue();
		java.time.Instant threeDaysAgo = java.time.Instant.now().minus(Duration.ofDays(3));
		long old = scheduler.schedule("admin-overdue", "old", threeDaysAgo, "late");
		long recent = scheduler.schedule("admin-overdue", "recent", java.time.Instant.now().minus(Duration.ofMinutes(10)), "due");
		long future = scheduler.schedule("admin-overdue", "future", Duration.ofHours(1), "not yet");

		JobOverview after = admin.stats(grace);
		assertThat(after.grace()).isEqualTo(grace);
		assertThat(after.overdue() - before.overdue()).as("only the job due 3 days ago").isOne();
		assertThat(after.oldestOverdueDueAt()).isCloseTo(threeDaysAgo, org.assertj.core.api.Assertions.within(1,
				java.time.temporal.ChronoUnit.MILLIS));
		assertThat(after.oldestOverdueAge()).isBetween(Duration.ofDays(3).minusMinutes(5), Duration.ofDays(3).plusMinutes(5));
		assertThat(after.counts().scheduled() - before.counts().scheduled()).isEqualTo(3);
		assertThat(after.counts().dueBacklog() - before.counts().dueBacklog()).isEqualTo(2);
		assertThat(admin.stats(Duration.ZERO).overdue() - before.overdue()).as("without grace, every due job")
			.isGreaterThanOrEqualTo(2);
		assertThat(admin.stats(Duration.ofDays(4)).overdue()).as("due less than 4 days ago").isEqualTo(beforeLongGrace);
		assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> admin.stats(Duration.ofSeconds(-1)))
			.withMessageContaining("grace must be zero or more but was PT-1S");
		assertThatExceptionOfType(NullPointerException.class).isThrownBy(() -> admin.stats(null))
			.withMessageContaining("grace must not be null");

		assertThat(scheduler.dispatchDue(queue, 100).dispatched()).isEqualTo(2);
		assertThat(admin.stats(grace).overdue()).as("dispatched, no longer overdue").isEqualTo(before.overdue());
		assertThat(admin.stats(grace).oldestOverdueDueAt()).isEqualTo(before.oldestOverdueDueAt());
		JobEntry dispatched = admin.entry(old).orElseThrow();
		assertThat(dispatched.state()).isEqualTo(JobState.DISPATCHED);
		assertThat(dispatched.messageId()).isNotNull();
		assertThat(dispatched.dispatchedAt()).isNotNull();
		for (QueueMessage message : QueueProtocol.claim(queue, "admin-overdue", 10)) {
			if (message.id() == dispatched.messageId()) {
				QueueProtocol.fail(queue, message, new IllegalStateException("the handler gave up"));
			}
			else {
				QueueProtocol.complete(queue, message);
			}
		}
		assertThat(admin.entries(JobQuery.of(JobState.FAILED).withQueue("admin-overdue"))).singleElement()
			.satisfies((job) -> {
				assertThat(job.id()).isEqualTo(old);
				assertThat(job.lastError()).contains("the handler gave up");
			});
		assertThat(admin.stats(grace).counts().failed() - before.counts().failed()).isOne();
		assertThat(admin.requeue(queue, recent)).as("not FAILED").isFalse();
		assertThat(admin.requeue(queue, old)).isTrue();
		assertThat(admin.requeue(queue, old)).isFalse();
		assertThat(admin.entry(old).orElseThrow().state()).isEqualTo(JobState.DISPATCHED);
		assertThat(admin.entries(JobQuery.of(JobState.FAILED).withQueue("admin-overdue"))).isEmpty();
		assertThat(QueueProtocol.claim(queue, "admin-overdue", 10)).extracting(QueueMessage::id).containsExactly(dispatched.messageId());
		assertThat(scheduler.cancel("admin-overdue", "future")).isOne();
		assertThat(admin.entry(future).orElseThrow().state()).isEqualTo(JobState.CANCELLED);
	}

	private String now() {
		return (database().dialect() == Dialect.MARIADB) ? "UTC_TIMESTAMP(6)" : "CURRENT_TIMESTAMP";
	}

	private JobDispatcher dispatcher(JobScheduler scheduler, String instance, Map<String, AtomicInteger> dispatchedBy) {
		WorkQueue queue = WorkQueue.builder(pool()).instanceId(instance).build();
		return JobDispatcher.builder(scheduler, queue)
			.interval(Duration.ofMillis(50))
			.observer((result) -> {
				if (result.dispatched() > 0) {
					dispatchedBy.computeIfAbsent(instance, (k) -> new AtomicInteger()).addAndGet(result.dispatched());
				}
			})
			.build();
	}

	/**
	 * Issue 16, defect 9: scheduleOnce keeps one job per queue and business id while it waits; once
	 * dispatched, the same id may be scheduled again.
	 */
	@Test
	void scheduleOnceAcceptsTheSameBusinessIdAgainAfterTheJobWasDispatched() {
		drainDueJobs();
		JobScheduler scheduler = JobScheduler.create(pool());
		WorkQueue queue = WorkQueue.builder(pool()).instanceId("dispatcher").build();
		assertThat(scheduler.scheduleOnce("again", "order-1", Duration.ZERO, "first")).isPresent();
		assertThat(scheduler.scheduleOnce("again", "order-1", Duration.ZERO, "while waiting")).isEmpty();
		scheduler.dispatchDue(queue, 100);
		assertThat(count("queue = 'again' AND state = 'DISPATCHED'")).isOne();
		assertThat(scheduler.scheduleOnce("again", "order-1", Duration.ZERO, "second")).as("after the dispatch").isPresent();
		assertThat(scheduler.scheduleOnce("again", "order-1", Duration.ZERO, "third")).isEmpty();
	}

	/**
	 * Issue 16, defect 9: the statistics read the open jobs only, not every job ever dispatched.
	 */
	@Test
	void statisticsReadTheOpenJobsOnlyNotTheDispatchedHistory() throws Exception {
		drainDueJobs();
		try (Connection connection = database().connect()) {
			connection.setAutoCommit(false);
			try (var insert = connection.prepareStatement("INSERT INTO polling_job (queue, business_id, payload, state, "
					+ "due_at, created_at, dispatched_at) VALUES ('history', ?, 'old', 'DISPATCHED', " + now() + ", "
					+ now() + ", " + now() + ")")) {
				for (int i = 0; i < 5000; i++) {
					insert.setString(1, "order-" + i);
					insert.addBatch();
				}
				insert.executeBatch();
			}
			connection.commit();
		}
		JobScheduler plain = JobScheduler.create(pool());
		for (int i = 0; i < 10; i++) {
			plain.schedule("history", "open-" + i, Duration.ofHours(1), "open");
		}
		database().execute(switch (database().dialect()) {
			case POSTGRESQL -> "ANALYZE polling_job";
			case MARIADB -> "ANALYZE TABLE polling_job";
			case H2 -> "ANALYZE";
		});
		StatementLog log = new StatementLog(pool());
		JobScheduler scheduler = JobScheduler.create(log.dataSource());
		log.clear();
		assertThat(scheduler.stats().scheduled()).isGreaterThanOrEqualTo(10);
		long rows = log.statements().stream()
			.filter((sql) -> sql.startsWith("SELECT") && sql.contains("polling_job"))
			.mapToLong((sql) -> QueryPlans.rowsRead(database(), sql))
			.sum();
		assertThat(rows).as("rows the statistics read with 5,000 dispatched and 10 scheduled jobs").isLessThan(500);
	}

	@Test
	void purgesDispatchedAndCancelledJobsOlderThanTheRetentionInBatchesAndKeepsTheOpenOnes() {
		drainDueJobs();
		JobScheduler scheduler = JobScheduler.create(pool());
		WorkQueue queue = WorkQueue.builder(pool()).instanceId("dispatcher").build();
		for (int i = 0; i < 23; i++) {
			scheduler.schedule("purged", "order-" + i, Duration.ZERO, "due");
		}
		scheduler.schedule("purged", "cancel-me", Duration.ofHours(1), "cancelled");
		scheduler.schedule("purged", "keep-me", Duration.ofHours(1), "kept");
		assertThat(scheduler.cancel("purged", "cancel-me")).isOne();
		scheduler.dispatchDue(queue, 100);
		assertThat(scheduler.purge(Duration.ofHours(1), 5)).as("nothing older than an hour").isZero();
		Awaitility.await().pollDelay(Duration.ofMillis(20)).atMost(Duration.ofSeconds(10)).until(() -> true);
		assertThat(scheduler.purge(Duration.ofMillis(10), 5)).isGreaterThanOrEqualTo(24);
		assertThat(count("queue = 'purged'")).isOne();
		assertThat(count("queue = 'purged' AND payload = 'kept' AND state = 'SCHEDULED'")).isOne();
	}

	private void drainDueJobs() {
		JobScheduler scheduler = JobScheduler.create(pool());
		WorkQueue queue = WorkQueue.builder(pool()).instanceId("drain").build();
		while (scheduler.dispatchDue(queue, 10_000).dispatched() > 0) {
			// until nothing is due
		}
	}

	private boolean isLocked(String where) {
		try (Connection connection = database().connect()) {
			connection.setAutoCommit(false);
			try (var statement = connection.createStatement()) {
				statement.executeQuery("SELECT id FROM polling_job WHERE " + where + " FOR UPDATE NOWAIT").close();
				return false;
			}
			catch (java.sql.SQLException ex) {
				return true;
			}
			finally {
				connection.rollback();
			}
		}
		catch (java.sql.SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	@Test
	void keepsJobsAcrossARestartOfEveryInstance() {
		HikariDataSource before = (HikariDataSource) pool();
		JobScheduler.create(before).schedule("restart", "order-1", Duration.ofMillis(200), "after-restart");
		before.close();
		// a new instance with a new pool: the job is still there and becomes due
		DataSource after = pool();
		JobScheduler scheduler = JobScheduler.create(after);
		WorkQueue queue = WorkQueue.builder(after).instanceId("restarted").build();
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		List<QueueMessage> claimed = List.of();
		while (claimed.isEmpty() && System.nanoTime() < deadline) {
			scheduler.dispatchDue(queue, 10);
			claimed = QueueProtocol.claim(queue, "restart", 10);
		}
		assertThat(claimed).extracting(QueueMessage::payload).containsExactly("after-restart");
	}

	@Test
	void schedulesOncePerBusinessIdCancelsAndReschedules() {
		JobScheduler scheduler = JobScheduler.create(pool());
		assertThat(scheduler.scheduleOnce("unique", "order-1", Duration.ofHours(1), "first")).isPresent();
		assertThat(scheduler.scheduleOnce("unique", "order-1", Duration.ofHours(1), "second")).isEmpty();
		assertThat(count("queue = 'unique'")).isEqualTo(1);
		assertThat(scheduler.reschedule("unique", "order-1", Duration.ZERO)).isEqualTo(1);
		String now = (database().dialect() == Dialect.MARIADB) ? "UTC_TIMESTAMP(6)" : "CURRENT_TIMESTAMP";
		assertThat(count("queue = 'unique' AND state = 'SCHEDULED' AND due_at <= " + now)).isEqualTo(1);
		assertThat(scheduler.cancel("unique", "order-1")).isEqualTo(1);
		assertThat(count("queue = 'unique' AND state = 'CANCELLED'")).isEqualTo(1);
		// cancelled: a new one may be scheduled
		assertThat(scheduler.scheduleOnce("unique", "order-1", Duration.ofHours(1), "third")).isPresent();
	}

}
