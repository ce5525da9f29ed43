package dev.polling.jdbc.queue;

import dev.polling.jdbc.TransactionRunner;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.polling.jdbc.Backoff;
import dev.polling.jdbc.BulkRetry;
import dev.polling.jdbc.DataAccessFailure;
import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.FencedWrite;
import dev.polling.jdbc.Schema;
import dev.polling.jdbc.TableNames;
import dev.polling.jdbc.internal.Sql;
import dev.polling.jdbc.test.DatabaseTest;
import dev.polling.jdbc.test.Intercepted;
import dev.polling.jdbc.test.PlainDataSource;
import dev.polling.jdbc.test.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * The work queue's behaviour, written once and run on every database by
 * {@link PostgresWorkQueueTest}, {@link MariaDbWorkQueueTest} and {@link H2WorkQueueTest}. Two
 * {@link WorkQueue} objects on two data sources stand for two application instances.
 */
abstract class WorkQueueContractTest extends DatabaseTest {

	private static final Backoff FAST = new Backoff(Duration.ofMillis(50), 2.0, Duration.ofMillis(200));

	private DataSource dataSource;

	private String queueName;

	WorkQueueContractTest(Dialect dialect) {
		super(dialect);
	}

	@Override
	protected void prepare(TestDatabase database) {
		this.dataSource = database.newDataSource();
		Schema.migrate(this.dataSource, database.dialect(), TableNames.defaults());
		// idempotent: a second run finds everything in place
		Schema.migrate(this.dataSource, database.dialect(), TableNames.defaults());
	}

	@BeforeEach
	void useOneQueuePerTest(TestInfo test) {
		this.queueName = test.getTestMethod().orElseThrow().getName();
	}



	/** A pooled data source of its own, as an application instance has. */
	private DataSource pool() {
		return newPool(8);
	}

	private WorkQueue.Builder queue(String instance) {
		return WorkQueue.builder(pool()).instanceId(instance).backoff(FAST);
	}

	/**
	 * The server commits a claim and the connection is lost before its answer arrives: the rows are
	 * IN_PROGRESS under a claim the queue never saw. The next claim of the same queue releases them
	 * (no attempt counted) and they are handled once, instead of waiting out their lease (an hour
	 * here). Fails without the release: the second claim finds nothing.
	 */
	@Test
	void aClaimWhoseAnswerWasLostIsReleasedByTheNextClaimWithoutWaitingForTheLease() {
		WorkQueue producer = queue("producer").build();
		long first = producer.enqueue(this.queueName, null, "order-1");
		long second = producer.enqueue(this.queueName, "customer-7", "order-2");
		WorkQueue queue = WorkQueue.builder(Intercepted.losingClaimAnswers(pool(), new AtomicInteger(0),
				"SET state = 'IN_PROGRESS'"))
			.instanceId("a")
			.backoff(FAST)
			.leaseTime(Duration.ofHours(1))
			.build();
		assertThatExceptionOfType(DataAccessFailure.class).isThrownBy(() -> queue.claim(this.queueName, 10));
		// (read by id: the other tests of the class leave messages in progress in the same table)
		assertThat(List.of(first, second)).as("claimed, committed, unknown to the queue")
			.allSatisfy((id) -> assertThat(producer.admin().entry(id).orElseThrow().state()).isEqualTo(MessageState.IN_PROGRESS));
		// another instance cannot take them: they are claimed
		assertThat(queue("b").build().claim(this.queueName, 10)).isEmpty();

		List<QueueMessage> again = queue.claim(this.queueName, 10);
		assertThat(again).extracting(QueueMessage::id).containsExactly(first, second);
		assertThat(again).extracting(QueueMessage::attempt).as("the lost claim counted no attempt").containsOnly(1);
		for (QueueMessage message : again) {
			assertThat(queue.complete(message)).isEqualTo(FencedWrite.APPLIED);
		}
		assertThat(producer.admin().entry(first).orElseThrow().state()).isEqualTo(MessageState.DONE);
		assertThat(producer.admin().entry(second).orElseThrow().state()).isEqualTo(MessageState.DONE);
	}

	/**
	 * PostgreSQL may otherwise reuse a generic plan made while the table was nearly empty; the
	 * queue's own statements are never prepared on the server (pgjdbc's prepare threshold 0 while the
	 * library creates them), so each execution is planned for its parameters, without a round trip
	 * and without changing anything for the caller's transaction (its threshold is back, the plan
	 * cache mode untouched). Elsewhere the same calls work and change nothing.
	 */
	@Test
	void ownStatementsArePlannedForTheirParametersOnPostgresWithoutTouchingTheCallersTransaction() throws Exception {
		boolean postgres = database().dialect() == Dialect.POSTGRESQL;
		DataSource pool = pool();
		int[] thresholds = Sql.inTransaction(pool, "probe", (connection) -> {
			try (java.sql.PreparedStatement statement = connection.prepareStatement("SELECT 1")) {
				int inside = postgres ? statement.unwrap(org.postgresql.PGStatement.class).getPrepareThreshold() : -1;
				for (int i = 0; i < 10; i++) {
					statement.executeQuery().close();
				}
				boolean serverPrepared = postgres && statement.unwrap(org.postgresql.PGStatement.class).isUseServerPrepare();
				return new int[] { inside, serverPrepared ? 1 : 0 };
			}
		});
		WorkQueue queue = WorkQueue.builder(pool).instanceId("plans").build();
		queue.enqueue(this.queueName, null, "one");
		QueueMessage claimed = queue.claim(this.queueName, 1).get(0);
		String inCallersTransaction;
		int thresholdAfter;
		try (java.sql.Connection connection = pool.getConnection()) {
			connection.setAutoCommit(false);
			assertThat(queue.complete(connection, claimed)).isEqualTo(FencedWrite.APPLIED);
			inCallersTransaction = planCacheMode(connection, postgres);
			thresholdAfter = postgres ? connection.unwrap(org.postgresql.PGConnection.class).getPrepareThreshold() : -1;
			connection.commit();
			connection.setAutoCommit(true);
		}

		if (postgres) {
			assertThat(thresholds[0]).as("prepare threshold of a statement created in the library's transaction").isZero();
			assertThat(thresholds[1]).as("server-prepared after 10 executions").isZero();
			assertThat(inCallersTransaction).as("the caller's transaction keeps its plan cache mode").isEqualTo("auto");
			assertThat(thresholdAfter).as("the connection's prepare threshold, restored (pgjdbc's default)").isEqualTo(5);
		}
		else {
			assertThat(inCallersTransaction).isEqualTo("n/a");
		}
		assertThat(database().queryForLong("SELECT COUNT(*) FROM polling_queue WHERE queue = '" + this.queueName
				+ "' AND state = 'DONE'")).isEqualTo(1);
	}

	private static String planCacheMode(java.sql.Connection connection, boolean postgres) throws java.sql.SQLException {
		if (!postgres) {
			return "n/a";
		}
		try (java.sql.Statement statement = connection.createStatement();
				java.sql.ResultSet result = statement.executeQuery("SHOW plan_cache_mode")) {
			result.next();
			return result.getString(1);
		}
	}

	@Test
	void claimsInInsertionOrderAndCompletesOnlyWithTheCurrentFence() {
		WorkQueue queue = queue("a").build();
		long first = queue.enqueue(this.queueName, null, "one");
		long second = queue.enqueue(this.queueName, null, "two");
		List<QueueMessage> claimed = queue.claim(this.queueName, 10);
		assertThat(claimed).extracting(QueueMessage::id).containsExactly(first, second);
		assertThat(claimed).extracting(QueueMessage::payload).containsExactly("one", "two");
		assertThat(claimed).allSatisfy((message) -> {
			assertThat(message.attempt()).isEqualTo(1);
			assertThat(message.fence()).isEqualTo(1);
			assertThat(message.maxAttempts()).isEqualTo(3);
		});
		assertThat(queue.claim(this.queueName, 10)).isEmpty();
		QueueMessage one = claimed.get(0);
		QueueMessage stale = new QueueMessage(one.id(), one.queue(), null, one.payload(), 1, 3, one.fence() - 1,
				one.enqueuedAt());
		assertThat(queue.complete(stale)).isEqualTo(FencedWrite.REJECTED);
		assertThat(queue.complete(one)).isEqualTo(FencedWrite.APPLIED);
		assertThat(queue.complete(one)).isEqualTo(FencedWrite.REJECTED);
		assertThat(queue.admin().entry(one.id()).orElseThrow().state()).isEqualTo(MessageState.DONE);
		assertThat(queue.admin().entry(second).orElseThrow().state()).isEqualTo(MessageState.IN_PROGRESS);
		assertThat(queue.admin().entry(second).orElseThrow().owner()).startsWith(queue.owner() + "#");
	}

	@Test
	void aQueueThatDeletesWhenDoneFencesLikeTheOtherAndReleasesTheKeysNextMessage() {
		WorkQueue queue = queue("a").deleteWhenDone(true).build();
		assertThat(queue.deletesWhenDone()).isTrue();
		long head = queue.enqueue(this.queueName, "customer-1", "first");
		long next = queue.enqueue(this.queueName, "customer-1", "second");
		long unkeyed = queue.enqueue(this.queueName, null, "third");
		List<QueueMessage> claimed = queue.claim(this.queueName, 10);
		assertThat(claimed).extracting(QueueMessage::id).containsExactly(head, unkeyed);
		QueueMessage first = claimed.get(0);
		QueueMessage stale = new QueueMessage(first.id(), first.queue(), first.businessKey(), first.payload(), 1, 3,
				first.fence() - 1, first.enqueuedAt());
		assertThat(queue.complete(stale)).isEqualTo(FencedWrite.REJECTED);
		assertThat(queue.admin().entry(head)).isPresent();
		assertThat(queue.complete(first)).isEqualTo(FencedWrite.APPLIED);
		assertThat(queue.complete(first)).as("a second completion finds nothing").isEqualTo(FencedWrite.REJECTED);
		assertThat(queue.admin().entry(head)).as("deleted, not DONE").isEmpty();
		// the key's next message became claimable, exactly once
		assertThat(queue.claim(this.queueName, 10)).extracting(QueueMessage::id).containsExactly(next);
		// a batch of completions deletes too
		assertThat(queue.completeAll(List.of(claimed.get(1)))).containsExactly(FencedWrite.APPLIED);
		assertThat(queue.admin().entry(unkeyed)).isEmpty();
		assertThat(queue.admin().entries(MessageState.DONE, 1000)).extracting(QueueEntry::id).doesNotContain(head, unkeyed);
	}

	@Test
	void twoInstancesWithFourThreadsEachProcessTwentyThousandMessagesExactlyOnceAndInKeyOrder() {
		int total = 20_000;
		int keys = 400;
		WorkQueue producer = queue("producer").build();
		List<NewMessage> batch = new ArrayList<>();
		for (int i = 0; i < total; i++) {
			// every fifth message unordered, the others spread over 400 keys in insertion order
			batch.add(new NewMessage((i % 5 == 0) ? null : "customer-" + (i % keys), "message " + i));
			if (batch.size() == 1000) {
				producer.enqueueAll(this.queueName, batch);
				batch.clear();
			}
		}
		Map<Long, AtomicInteger> handled = new ConcurrentHashMap<>();
		Map<String, List<Long>> orderPerKey = new ConcurrentHashMap<>();
		Map<String, AtomicInteger> runningPerKey = new ConcurrentHashMap<>();
		AtomicInteger overlaps = new AtomicInteger();
		CountingListener listenerA = new CountingListener();
		CountingListener listenerB = new CountingListener();
		QueueHandler handler = (message) -> {
			handled.computeIfAbsent(message.id(), (id) -> new AtomicInteger()).incrementAndGet();
			String key = message.businessKey();
			if (key != null) {
				AtomicInteger running = runningPerKey.computeIfAbsent(key, (k) -> new AtomicInteger());
				if (running.incrementAndGet() > 1) {
					overlaps.incrementAndGet();
				}
				orderPerKey.computeIfAbsent(key, (k) -> new ArrayList<>()).add(message.id());
				Thread.onSpinWait();
				running.decrementAndGet();
			}
		};
		try (QueueWorkers a = workers(queue("a").listener(listenerA).build(), handler, 4);
				QueueWorkers b = workers(queue("b").listener(listenerB).build(), handler, 4)) {
			a.start();
			b.start();
			Awaitility.await("all " + total + " messages done")
				.atMost(Duration.ofMinutes(5))
				.pollInterval(Duration.ofMillis(200))
				.until(() -> count(MessageState.DONE) == total);
		}
		assertThat(handled).hasSize(total);
		assertThat(handled.values()).allSatisfy((count) -> assertThat(count.get()).isOne());
		assertThat(listenerA.completed.sum() + listenerB.completed.sum()).isEqualTo(total);
		assertThat(listenerA.completed.sum()).isPositive();
		assertThat(listenerB.completed.sum()).isPositive();
		assertThat(listenerA.rejected.sum() + listenerB.rejected.sum()).isZero();
		assertThat(overlaps).hasValue(0);
		// every fifth message is unordered, so the keys that are multiples of five never occur
		assertThat(orderPerKey).hasSize(keys - keys / 5);
		for (List<Long> ids : orderPerKey.values()) {
			assertThat(ids).isSorted().doesNotHaveDuplicates();
		}
		assertThat(count(MessageState.NEW) + count(MessageState.IN_PROGRESS) + count(MessageState.FAILED)).isZero();
	}

	@Test
	void aFrozenInstanceLosesItsLeaseAndItsLateCompletionIsRejectedByTheFence() throws Exception {
		WorkQueue producer = queue("producer").build();
		long id = producer.enqueue(this.queueName, "order-7", "slow one");
		long next = producer.enqueue(this.queueName, "order-7", "after it");
		CountDownLatch frozenStarted = new CountDownLatch(1);
		CountDownLatch unfreeze = new CountDownLatch(1);
		Map<String, LongAdder> handledBy = new ConcurrentHashMap<>();
		CountingListener listenerA = new CountingListener();
		WorkQueue queueA = queue("a").leaseTime(Duration.ofSeconds(1)).listener(listenerA).build();
		QueueWorkers a = QueueWorkers.builder(queueA).threads(1).pollInterval(Duration.ofMillis(50))
			.subscribe(this.queueName, (message) -> {
				handledBy.computeIfAbsent("a:" + message.id(), (k) -> new LongAdder()).increment();
				frozenStarted.countDown();
				assertThat(unfreeze.await(60, TimeUnit.SECONDS)).isTrue();
			})
			.build();
		a.start();
		assertThat(frozenStarted.await(30, TimeUnit.SECONDS)).isTrue();
		// instance a freezes: no lease renewal, no recovery, its worker blocked in the handler
		a.freeze(true);
		CountingListener listenerB = new CountingListener();
		WorkQueue queueB = queue("b").leaseTime(Duration.ofSeconds(1)).listener(listenerB).build();
		try (QueueWorkers b = QueueWorkers.builder(queueB).threads(2).pollInterval(Duration.ofMillis(50))
			.renewInterval(Duration.ofMillis(200))
			.subscribe(this.queueName,
					(message) -> handledBy.computeIfAbsent("b:" + message.id(), (k) -> new LongAdder()).increment())
			.build()) {
			b.start();
			Awaitility.await("b recovers the expired lease and completes both messages")
				.atMost(Duration.ofSeconds(60))
				.until(() -> producer.admin().entry(next).orElseThrow().state() == MessageState.DONE);
			assertThat(listenerB.expired.sum()).isPositive();
			assertThat(producer.admin().entry(id).orElseThrow().state()).isEqualTo(MessageState.DONE);
			// a's expired lease is no failed attempt, and b's attempt succeeded
			assertThat(producer.admin().entry(id).orElseThrow().attempts()).isZero();
			// a wakes up and completes late: the fence rejects it, counted, no exception
			unfreeze.countDown();
			Awaitility.await("a's late completion is rejected")
				.atMost(Duration.ofSeconds(30))
				.until(() -> listenerA.rejected.sum() == 1);
		}
		finally {
			unfreeze.countDown();
			a.stop(Duration.ofSeconds(10));
		}
		assertThat(listenerA.completed.sum()).isZero();
		assertThat(listenerB.completed.sum()).isEqualTo(2);
		assertThat(handledBy).containsOnlyKeys("a:" + id, "b:" + id, "b:" + next);
		assertThat(producer.admin().entry(id).orElseThrow().state()).isEqualTo(MessageState.DONE);
	}

	@Test
	void renewedLeasesSurviveRecoveryAndLostClaimsAreReported() throws Exception {
		WorkQueue queueA = queue("a").leaseTime(Duration.ofSeconds(1)).build();
		WorkQueue queueB = queue("b").leaseTime(Duration.ofSeconds(1)).build();
		queueA.enqueue(this.queueName, null, "kept");
		queueA.enqueue(this.queueName, null, "lost");
		List<QueueMessage> claimed = queueA.claim(this.queueName, 2);
		assertThat(claimed).hasSize(2);
		QueueMessage kept = claimed.get(0);
		QueueMessage lost = claimed.get(1);
		// the recovery is table-wide: another test's expired row may be what a round recovers, so wait for
		// this message's own recovery, not for a count
		Awaitility.await("the second lease expires and b recovers it")
			.atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(100))
			.until(() -> {
				assertThat(queueA.renewLeases(List.of(kept))).isEmpty();
				queueB.expireLeases();
				return queueA.admin().entry(lost.id()).orElseThrow().state() == MessageState.FAILED;
			});
		assertThat(queueA.renewLeases(List.of(kept, lost))).containsExactly(lost);
		assertThat(queueA.complete(lost)).isEqualTo(FencedWrite.REJECTED);
		assertThat(queueA.complete(kept)).isEqualTo(FencedWrite.APPLIED);
		QueueEntry recovered = queueA.admin().entry(lost.id()).orElseThrow();
		assertThat(recovered.state()).isEqualTo(MessageState.FAILED);
		assertThat(recovered.lastError()).contains("lease of a/").contains("expired");
		assertThat(queueB.claim(this.queueName, 5)).extracting(QueueMessage::id).containsExactly(lost.id());
	}

	@Test
	void retriesWithBackoffThenGoesDeadWithTheLastErrorAndBlocksItsKeyUntilAnOperatorActs() {
		CountingListener listener = new CountingListener();
		WorkQueue queue = queue("a").listener(listener).build();
		long poison = queue.enqueue(this.queueName, "invoice-1", "bad");
		long behind = queue.enqueue(this.queueName, "invoice-1", "good");
		long other = queue.enqueue(this.queueName, "invoice-2", "other key");
		AtomicInteger attempts = new AtomicInteger();
		try (QueueWorkers workers = QueueWorkers.builder(queue).threads(2).pollInterval(Duration.ofMillis(20))
			.subscribe(this.queueName, (message) -> {
				if (message.id() == poison) {
					throw new IllegalStateException("attempt " + attempts.incrementAndGet() + " failed for " + message.payload());
				}
			})
			.build()) {
			workers.start();
			Awaitility.await("the poison message goes dead")
				.atMost(Duration.ofSeconds(60))
				.until(() -> queue.admin().entry(poison).orElseThrow().state() == MessageState.DEAD);
			Awaitility.await("the other key is processed").atMost(Duration.ofSeconds(30))
				.until(() -> queue.admin().entry(other).orElseThrow().state() == MessageState.DONE);
		}
		QueueEntry dead = queue.admin().entry(poison).orElseThrow();
		assertThat(dead.attempts()).isEqualTo(3);
		assertThat(dead.lastError()).isEqualTo("java.lang.IllegalStateException: attempt 3 failed for bad");
		assertThat(attempts).hasValue(3);
		assertThat(listener.retries.sum()).isEqualTo(2);
		assertThat(listener.dead.sum()).isOne();
		assertThat(queue.admin().entry(behind).orElseThrow().state()).isEqualTo(MessageState.BLOCKED);
		assertThat(queue.admin().entries(MessageState.DEAD, 100)).extracting(QueueEntry::id).contains(poison);
		List<BlockedKey> blocked = queue.admin().blockedKeys(1000) // oldest first over every queue of the shared test database
			.stream()
			.filter((key) -> key.queue().equals(this.queueName))
			.toList();
		assertThat(blocked).singleElement().satisfies((key) -> {
			assertThat(key.businessKey()).isEqualTo("invoice-1");
			assertThat(key.headId()).isEqualTo(poison);
			assertThat(key.headState()).isEqualTo(MessageState.DEAD);
			assertThat(key.waiting()).isOne();
			assertThat(key.lastError()).contains("attempt 3 failed");
		});
		assertThat(queue.admin().stats()).filteredOn((stats) -> stats.queue().equals(this.queueName))
			.singleElement()
			.satisfies((stats) -> {
				assertThat(stats.dead()).isOne();
				assertThat(stats.ready()).isZero();
				assertThat(stats.blocked()).isOne();
				assertThat(stats.backlog()).isOne();
				assertThat(stats.oldestWaiting()).isNotNull();
			});
		// operator: retry gives a fresh set of attempts; the key stays in order
		assertThat(queue.admin().retry(behind)).isFalse();
		assertThat(queue.admin().retry(poison)).isTrue();
		List<QueueMessage> again = queue.claim(this.queueName, 10);
		assertThat(again).extracting(QueueMessage::id).containsExactly(poison);
		assertThat(again.get(0).attempt()).isOne();
		assertThat(queue.fail(again.get(0), new IllegalArgumentException("still bad"))).isEqualTo(FencedWrite.APPLIED);
		// operator: discard the dead head, the message behind it becomes claimable
		Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> {
			queue.claim(this.queueName, 1).forEach((m) -> queue.fail(m, new IllegalStateException("x")));
			return queue.admin().entry(poison).orElseThrow().state() == MessageState.DEAD;
		});
		assertThat(queue.admin().discard(poison)).isTrue();
		assertThat(queue.admin().entry(poison)).isEmpty();
		assertThat(queue.claim(this.queueName, 10)).extracting(QueueMessage::id).containsExactly(behind);
	}

	@Test
	void retriesWaitingForTheirBackoffNeverCrowdOutNewMessages() {
		WorkQueue queue = queue("a").backoff(new Backoff(Duration.ofMinutes(10), 1, Duration.ofMinutes(10))).build();
		for (int i = 0; i < 40; i++) {
			queue.enqueue(this.queueName, null, "fails " + i);
		}
		List<QueueMessage> failing = queue.claim(this.queueName, 40);
		assertThat(failing).hasSize(40);
		failing.forEach((message) -> assertThat(queue.fail(message, new IllegalStateException("later")))
			.isEqualTo(FencedWrite.APPLIED));
		long fresh = queue.enqueue(this.queueName, null, "new");
		assertThat(queue.claim(this.queueName, 10)).extracting(QueueMessage::id).containsExactly(fresh);
		assertThat(count(MessageState.FAILED)).isEqualTo(40);
	}

	@Test
	void concurrentClaimsNeverTakeTheSameMessageOrTwoOfOneKey() throws Exception {
		WorkQueue queueA = queue("a").build();
		WorkQueue queueB = queue("b").build();
		for (int i = 0; i < 200; i++) {
			queueA.enqueue(this.queueName, "key-" + (i % 20), "m" + i);
		}
		List<QueueMessage> fromA = new ArrayList<>();
		Thread other = new Thread(() -> fromA.addAll(queueA.claim(this.queueName, 50)));
		other.start();
		List<QueueMessage> fromB = queueB.claim(this.queueName, 50);
		other.join();
		List<QueueMessage> all = new ArrayList<>(fromA);
		all.addAll(fromB);
		assertThat(all).extracting(QueueMessage::id).doesNotHaveDuplicates();
		assertThat(all).extracting(QueueMessage::businessKey).doesNotHaveDuplicates();
		assertThat(all).hasSizeLessThanOrEqualTo(20).isNotEmpty();
		fromA.forEach(queueA::release);
		fromB.forEach(queueB::release);
	}

	@Test
	void stoppingReleasesPrefetchedMessagesWithoutCountingAnAttempt() throws Exception {
		WorkQueue queue = queue("a").build();
		for (int i = 0; i < 20; i++) {
			queue.enqueue(this.queueName, null, "m" + i);
		}
		CountDownLatch started = new CountDownLatch(1);
		CountDownLatch finish = new CountDownLatch(1);
		QueueWorkers workers = QueueWorkers.builder(queue).threads(1).batchSize(10)
			.subscribe(this.queueName, (message) -> {
				started.countDown();
				finish.await(30, TimeUnit.SECONDS);
			})
			.build();
		workers.start();
		assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
		Thread stopper = new Thread(() -> workers.stop(Duration.ofSeconds(30)));
		stopper.start();
		Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> count(MessageState.IN_PROGRESS, this.queueName) <= 1);
		finish.countDown();
		stopper.join();
		assertThat(count(MessageState.IN_PROGRESS, this.queueName)).isZero();
		assertThat(count(MessageState.DONE, this.queueName)).isOne();
		assertThat(queue.claim(this.queueName, 100)).hasSize(19).allSatisfy((m) -> assertThat(m.attempt()).isOne());
	}

	/**
	 * Issue 16, defect 8: without a transaction runner, a handler that returned has its message DONE
	 * (committed) before the worker takes the next one, so a crash re-runs at most the handlers in
	 * flight, not up to a hundred finished ones waiting for a batched commit.
	 */
	@Test
	void withoutATransactionRunnerAMessageIsDoneBeforeTheWorkerTakesTheNext() {
		WorkQueue queue = queue("a").build();
		int total = 30;
		for (int i = 0; i < total; i++) {
			queue.enqueue(this.queueName, null, "m" + i);
		}
		List<Long> handled = new java.util.concurrent.CopyOnWriteArrayList<>();
		List<Long> notYetDone = new java.util.concurrent.CopyOnWriteArrayList<>();
		try (QueueWorkers workers = QueueWorkers.builder(queue).threads(1).batchSize(10)
			.pollInterval(Duration.ofMillis(50))
			.subscribe(this.queueName, (message) -> {
				for (long earlier : handled) {
					if (queue.admin().entry(earlier).orElseThrow().state() != MessageState.DONE) {
						notYetDone.add(earlier);
					}
				}
				handled.add(message.id());
			})
			.build()) {
			workers.start();
			Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> count(MessageState.DONE) == total);
		}
		assertThat(notYetDone).as("messages whose handler had returned but which were not DONE yet").isEmpty();
	}

	/**
	 * Issue 16, defect 8: a transaction runner is only safe when the queue's completions join its
	 * transaction; a queue that borrows its own connections would commit DONE outside of it.
	 */
	@Test
	void aTransactionRunnerWithoutConnectionsThatJoinItIsRefused() {
		WorkQueue queue = queue("a").build();
		org.assertj.core.api.Assertions.assertThatThrownBy(() -> QueueWorkers.builder(queue)
			.transactions((work) -> work.run())
			.subscribe(this.queueName, (message) -> {
			})
			.build())
			.isInstanceOf(IllegalStateException.class)
			.hasMessageContaining("transactions")
			.hasMessageContaining("WorkQueue.Builder.connections");
	}

	@Test
	void withJdbcTransactionsAHandlersWorkCommitsWithItsCompletionAndRollsBackWithItsFailure() throws Exception {
		String table = "polling_test_work_" + this.queueName.length();
		database().execute("CREATE TABLE " + table + " (message_id BIGINT NOT NULL, attempt INTEGER NOT NULL)");
		DataSource pool = pool();
		dev.polling.jdbc.JdbcTransactions transactions = dev.polling.jdbc.JdbcTransactions.of(pool);
		WorkQueue queue = WorkQueue.builder(pool).connections(transactions).instanceId("tx").backoff(FAST).build();
		long fails = queue.enqueue(this.queueName, null, "fails once");
		long works = queue.enqueue(this.queueName, null, "works");
		try (QueueWorkers workers = QueueWorkers.builder(queue).threads(1).pollInterval(Duration.ofMillis(20))
			.transactions(transactions)
			.subscribe(this.queueName, (message) -> {
				try (java.sql.PreparedStatement insert = transactions.connection()
					.prepareStatement("INSERT INTO " + table + " (message_id, attempt) VALUES (?, ?)")) {
					insert.setLong(1, message.id());
					insert.setInt(2, message.attempt());
					insert.executeUpdate();
				}
				if (message.id() == fails && message.attempt() == 1) {
					throw new IllegalStateException("first attempt fails after its insert");
				}
			})
			.build()) {
			workers.start();
			Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> count(MessageState.DONE) == 2);
		}
		assertThat(database().queryForLong("SELECT COUNT(*) FROM " + table + " WHERE message_id = " + works)).isOne();
		assertThat(database().queryForLong("SELECT COUNT(*) FROM " + table + " WHERE message_id = " + fails))
			.as("the failed attempt's insert rolled back").isOne();
		assertThat(database().queryForLong("SELECT attempt FROM " + table + " WHERE message_id = " + fails)).isEqualTo(2);
	}

	/**
	 * A subscription without transaction runs its handler outside the workers' transactions (a
	 * handler calling a web service holds no pooled connection while it waits), and its message is
	 * completed right after it returns; a failure still counts an attempt and is retried. The other
	 * queue of the same workers keeps its handler in a transaction.
	 */
	@Test
	void aSubscriptionWithoutTransactionRunsItsHandlerOutsideTheWorkersTransactions() throws Exception {
		DataSource pool = pool();
		dev.polling.jdbc.JdbcTransactions transactions = dev.polling.jdbc.JdbcTransactions.of(pool);
		WorkQueue queue = WorkQueue.builder(pool).connections(transactions).instanceId("out").backoff(FAST).build();
		String outside = this.queueName + "-out";
		long inside = queue.enqueue(this.queueName, null, "in a transaction");
		long failsOnce = queue.enqueue(outside, null, "fails once, outside");
		long keyed = queue.enqueue(outside, "customer-1", "keyed, outside");
		long next = queue.enqueue(outside, "customer-1", "next of the key, outside");
		Map<Long, Boolean> inTransaction = new ConcurrentHashMap<>();
		java.util.function.BooleanSupplier hasTransaction = () -> {
			try {
				transactions.connection();
				return true;
			}
			catch (IllegalStateException ex) {
				return false;
			}
		};
		AtomicInteger attempts = new AtomicInteger();
		try (QueueWorkers workers = QueueWorkers.builder(queue).threads(2).pollInterval(Duration.ofMillis(20))
			.transactions(transactions)
			.subscribe(QueueSubscription.of(this.queueName, (message) -> inTransaction.put(message.id(), hasTransaction.getAsBoolean())))
			.subscribe(QueueSubscription.of(outside, (message) -> {
				inTransaction.put(message.id(), hasTransaction.getAsBoolean());
				if (message.id() == failsOnce && attempts.incrementAndGet() == 1) {
					throw new IllegalStateException("first attempt fails");
				}
			}).withoutTransaction())
			.build()) {
			workers.start();
			Awaitility.await().atMost(Duration.ofSeconds(30))
				.until(() -> count(MessageState.DONE) == 1 && count(MessageState.DONE, outside) == 3);
		}
		assertThat(inTransaction).containsEntry(inside, true)
			.containsEntry(failsOnce, false)
			.containsEntry(keyed, false)
			.containsEntry(next, false);
		assertThat(attempts).hasValue(2);
		assertThat(queue.admin().entry(failsOnce).orElseThrow().lastError()).contains("first attempt fails");
		assertThat(database().queryForLong("SELECT COUNT(*) FROM polling_queue_key WHERE queue = '" + outside + "'"))
			.as("the key's count left with its last message").isZero();
	}

	/**
	 * Issue 16, defect 10: a NUL character in a payload is refused up front with one clear message
	 * (PostgreSQL cannot store it in text and would abort the caller's transaction), by the queue,
	 * the delivery guard and the jobs alike; the caller's transaction goes on.
	 */
	@Test
	void aNulCharacterInAPayloadIsRefusedUpFrontAndTheCallersTransactionGoesOn() throws Exception {
		DataSource pool = pool();
		WorkQueue queue = WorkQueue.builder(pool).instanceId("nul").build();
		dev.polling.jdbc.delivery.DeliveryGuard guard = dev.polling.jdbc.delivery.DeliveryGuard.builder(pool).build();
		dev.polling.jdbc.jobs.JobScheduler jobs = dev.polling.jdbc.jobs.JobScheduler.create(pool);
		String payload = "before\u0000after";
		try (java.sql.Connection connection = pool.getConnection()) {
			connection.setAutoCommit(false);
			assertNulRefused(() -> queue.enqueue(connection, this.queueName, null, payload));
			assertNulRefused(() -> guard.store(connection, this.queueName, "nul-key", payload));
			assertNulRefused(() -> dev.polling.jdbc.jobs.JobScheduler.builder(pool)
				.connections(dev.polling.jdbc.ConnectionProvider.of(connection)).build()
				.schedule(this.queueName, "order-1", Duration.ofHours(1), payload));
			queue.enqueue(connection, this.queueName, null, "fine");
			connection.commit();
		}
		assertThat(database().queryForLong("SELECT COUNT(*) FROM polling_queue WHERE queue = '" + this.queueName + "'"))
			.isOne();
		assertThat(jobs).isNotNull();
	}

	private static void assertNulRefused(org.assertj.core.api.ThrowableAssert.ThrowingCallable call) {
		org.assertj.core.api.Assertions.assertThatThrownBy(call)
			.isInstanceOf(IllegalArgumentException.class)
			.hasMessageContaining("payload")
			.hasMessageContaining("U+0000")
			.hasMessageContaining("index 6");
	}

	/**
	 * Issue 16, defect 10: an instance that crashes while it holds a message (its lease expires) does
	 * not use up the message's attempts: only a handler's failure counts.
	 */
	@Test
	void leasesThatExpireBecauseTheirInstanceCrashedDoNotUseUpTheAttempts() {
		WorkQueue queue = queue("a").leaseTime(Duration.ofSeconds(1)).maxAttempts(2).build();
		long id = queue.enqueue(this.queueName, null, "its instance crashes");
		for (int crash = 1; crash <= 3; crash++) {
			List<QueueMessage> claimed = queue.claim(this.queueName, 1);
			assertThat(claimed).as("claimable after %d crashes", crash - 1).hasSize(1);
			assertThat(claimed.get(0).attempt()).as("attempt after %d crashes", crash - 1).isOne();
			// the instance crashes: no completion, no renewal; the lease runs out and is recovered
			Awaitility.await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100)).until(() -> {
				queue.expireLeases();
				return queue.admin().entry(id).orElseThrow().state() == MessageState.FAILED;
			});
		}
		QueueMessage last = queue.claim(this.queueName, 1).get(0);
		assertThat(queue.fail(last, new IllegalStateException("handler fails"))).isEqualTo(FencedWrite.APPLIED);
		assertThat(queue.admin().entry(id).orElseThrow().state()).isEqualTo(MessageState.FAILED);
		assertThat(queue.admin().entry(id).orElseThrow().attempts()).isOne();
	}

	/**
	 * Issue 16, defect 10: lease renewal is fenced: a claim that was lost and re-taken by the same
	 * instance (same owner, new fence) is not renewed under its old fence, but reported lost.
	 */
	@Test
	void renewingALostClaimIsRejectedByTheFenceEvenWhenTheSameInstanceClaimedTheMessageAgain() {
		WorkQueue queue = queue("a").leaseTime(Duration.ofSeconds(1)).build();
		long id = queue.enqueue(this.queueName, null, "claimed twice");
		QueueMessage first = queue.claim(this.queueName, 1).get(0);
		Awaitility.await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100)).until(() -> {
			queue.expireLeases();
			return queue.admin().entry(id).orElseThrow().state() == MessageState.FAILED;
		});
		QueueMessage again = queue.claim(this.queueName, 1).get(0);
		assertThat(again.fence()).isGreaterThan(first.fence());
		assertThat(queue.renewLeases(List.of(first))).as("the stale claim").containsExactly(first);
		assertThat(queue.renewLeases(List.of(again))).isEmpty();
		assertThat(queue.complete(again)).isEqualTo(FencedWrite.APPLIED);
	}

	/**
	 * Issue 16, defect 1: thousands of messages queued behind one stuck (DEAD) business key must not
	 * hide the claimable messages enqueued after them.
	 */
	@Test
	void messagesQueuedBehindAStuckKeyDoNotHideTheClaimableMessagesAfterThem() {
		WorkQueue queue = queue("a").maxAttempts(1).build();
		queue.enqueue(this.queueName, "stuck", "head");
		List<NewMessage> behind = new ArrayList<>();
		for (int i = 0; i < 6000; i++) {
			behind.add(new NewMessage("stuck", "behind " + i));
		}
		queue.enqueueAll(this.queueName, behind);
		queue.enqueueAll(this.queueName, List.of(new NewMessage("free-1", "free 1"), new NewMessage(null, "free 2"),
				new NewMessage("free-3", "free 3")));
		QueueMessage head = queue.claim(this.queueName, 1).get(0);
		assertThat(head.payload()).isEqualTo("head");
		assertThat(queue.fail(head, new IllegalStateException("poison"))).isEqualTo(FencedWrite.APPLIED);
		assertThat(queue.admin().entry(head.id()).orElseThrow().state()).isEqualTo(MessageState.DEAD);
		assertThat(queue.claim(this.queueName, 10)).extracting(QueueMessage::payload)
			.as("claimable behind 6,000 messages of a dead key")
			.containsExactlyInAnyOrder("free 1", "free 2", "free 3");
	}

	/**
	 * Issue 16, defect 2: the rows a claim reads do not grow with the messages blocked behind their
	 * keys (measured by the database's EXPLAIN ANALYZE on PostgreSQL, by the session's handler read
	 * counters on MariaDB; H2 has no such count and is covered by the test above).
	 */
	@Test
	void theRowsAClaimReadsDoNotGrowWithTheMessagesBlockedBehindTheirKeys() throws Exception {
		org.junit.jupiter.api.Assumptions.assumeTrue(database().dialect() != Dialect.H2, "no read counters on H2");
		WorkQueue queue = queue("a").build();
		List<NewMessage> messages = new ArrayList<>();
		for (int key = 0; key < 100; key++) {
			messages.add(new NewMessage("key-" + key, "head " + key));
		}
		queue.enqueueAll(this.queueName, messages);
		// every head in progress: nothing else of these keys may be claimed
		assertThat(queue.claim(this.queueName, 100)).hasSize(100);
		for (int i = 0; i < 10; i++) {
			queue.enqueue(this.queueName, null, "claimable " + i);
		}
		long before = rowsReadByAClaim(queue);
		queue.claim(this.queueName, 10).forEach(queue::complete);
		messages.clear();
		for (int i = 0; i < 20_000; i++) {
			messages.add(new NewMessage("key-" + (i % 100), "blocked " + i));
			if (messages.size() == 1000) {
				queue.enqueueAll(this.queueName, messages);
				messages.clear();
			}
		}
		// claimable messages enqueued after the blocked ones
		for (int i = 0; i < 10; i++) {
			queue.enqueue(this.queueName, null, "claimable later " + i);
		}
		long after = rowsReadByAClaim(queue);
		assertThat(after).as("rows read by a claim of 10 with 20,000 blocked messages (%d without)", before)
			.isLessThan(Math.max(2 * before, 200));
	}

	/**
	 * Messages enqueued while the heads of their keys complete (the race of the key heads): none is
	 * left BLOCKED without a head, none runs beside another of its key, all run in enqueue order.
	 */
	@Test
	void enqueuesRacingWithCompletionsOfTheSameKeysLeaveNoMessageBehind() throws Exception {
		int perProducer = 1000;
		int keys = 20;
		Map<String, List<Long>> orderPerKey = new ConcurrentHashMap<>();
		Map<String, AtomicInteger> runningPerKey = new ConcurrentHashMap<>();
		AtomicInteger overlaps = new AtomicInteger();
		QueueHandler handler = (message) -> {
			AtomicInteger running = runningPerKey.computeIfAbsent(message.businessKey(), (k) -> new AtomicInteger());
			if (running.incrementAndGet() > 1) {
				overlaps.incrementAndGet();
			}
			orderPerKey.computeIfAbsent(message.businessKey(), (k) -> new java.util.concurrent.CopyOnWriteArrayList<>())
				.add(message.id());
			running.decrementAndGet();
		};
		try (QueueWorkers a = workers(queue("a").build(), handler, 3);
				QueueWorkers b = workers(queue("b").build(), handler, 3)) {
			a.start();
			b.start();
			List<Thread> producers = new ArrayList<>();
			for (int p = 0; p < 2; p++) {
				int producer = p;
				WorkQueue queue = queue("producer-" + p).build();
				producers.add(new Thread(() -> {
					for (int i = 0; i < perProducer; i++) {
						// each key has one producer, which enqueues its messages in order
						queue.enqueue(this.queueName, "key-" + (2 * (i % (keys / 2)) + producer), "m" + i);
					}
				}));
			}
			producers.forEach(Thread::start);
			for (Thread producer : producers) {
				producer.join();
			}
			Awaitility.await("all " + 2 * perProducer + " messages done")
				.atMost(Duration.ofMinutes(2))
				.pollInterval(Duration.ofMillis(200))
				.until(() -> count(MessageState.DONE) == 2L * perProducer);
		}
		assertThat(overlaps).hasValue(0);
		assertThat(orderPerKey).hasSize(keys);
		for (List<Long> ids : orderPerKey.values()) {
			assertThat(ids).isSorted().doesNotHaveDuplicates();
		}
		assertThat(database().queryForLong("SELECT COUNT(*) FROM polling_queue_key WHERE queue = '" + this.queueName + "'"))
			.as("key rows left").isZero();
	}

	private long rowsReadByAClaim(WorkQueue queue) throws Exception {
		analyze();
		if (database().dialect() == Dialect.POSTGRESQL) {
			return dev.polling.jdbc.test.QueryPlans.rowsRead(database(), queue.claimSql(), "probe", 30_000L,
					this.queueName, 10);
		}
		// MariaDB: the claim on one connection, its reads counted by the session's handler counters
		try (java.sql.Connection connection = database().connect()) {
			WorkQueue probe = WorkQueue.builder(new SingleConnection(connection)).instanceId("probe").build();
			long start = handlerReads(connection);
			List<QueueMessage> claimed = probe.claim(this.queueName, 10);
			long reads = handlerReads(connection) - start;
			claimed.forEach(probe::release);
			return reads;
		}
	}

	private void analyze() {
		database().execute((database().dialect() == Dialect.POSTGRESQL) ? "ANALYZE polling_queue"
				: "ANALYZE TABLE polling_queue");
	}

	private static long handlerReads(java.sql.Connection connection) throws java.sql.SQLException {
		try (java.sql.Statement statement = connection.createStatement();
				java.sql.ResultSet result = statement.executeQuery("SHOW SESSION STATUS LIKE 'Handler_read%'")) {
			long reads = 0;
			while (result.next()) {
				reads += result.getLong(2);
			}
			return reads;
		}
	}

	/** One open connection handed out again and again (never closed by the borrower). */
	private static final class SingleConnection extends PlainDataSource {

		private final java.sql.Connection connection;

		SingleConnection(java.sql.Connection connection) {
			this.connection = connection;
		}

		@Override
		public java.sql.Connection getConnection() {
			return (java.sql.Connection) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
					new Class<?>[] { java.sql.Connection.class }, (proxy, method, args) -> {
						if (method.getName().equals("close")) {
							return null;
						}
						try {
							return method.invoke(this.connection, args);
						}
						catch (java.lang.reflect.InvocationTargetException ex) {
							throw ex.getCause();
						}
					});
		}

	}

	@Test
	void aTransientDatabaseErrorIsNoFailedAttempt() {
		WorkQueue queue = queue("a").maxAttempts(1).build();
		long id = queue.enqueue(this.queueName, null, "meets a deadlock once");
		List<Integer> attempts = new java.util.concurrent.CopyOnWriteArrayList<>();
		try (QueueWorkers workers = QueueWorkers.builder(queue).threads(1).pollInterval(Duration.ofMillis(20))
			.subscribe(this.queueName, (message) -> {
				attempts.add(message.attempt());
				if (attempts.size() == 1) {
					throw new java.sql.SQLTransactionRollbackException("deadlock detected", "40P01");
				}
			})
			.build()) {
			workers.start();
			Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> queue.admin().entry(id).orElseThrow().state() == MessageState.DONE);
		}
		assertThat(attempts).containsExactly(1, 1);
	}

	// ---- operator listings and bulk actions (issue 30)

	/**
	 * Keyset paging: walking the pages of a filtered listing returns every matching message once, in
	 * id order, while messages are enqueued between the pages (they come on later pages).
	 */
	@Test
	void pagesOfEntriesWalkEveryMatchingMessageOnceWhileMessagesAreAdded() {
		WorkQueue queue = queue("a").build();
		List<Long> expected = new ArrayList<>();
		for (int i = 0; i < 23; i++) {
			expected.add(queue.enqueue(this.queueName, (i % 2 == 0) ? null : "key-" + i, "m" + i));
		}
		queue.enqueue(this.queueName + "-other", null, "another queue");
		QueueQuery query = QueueQuery.of(MessageState.NEW).withQueue(this.queueName).withLimit(5);
		List<Long> seen = new ArrayList<>();
		List<Integer> sizes = new ArrayList<>();
		List<QueueEntry> page;
		do {
			page = queue.admin().entries(query);
			sizes.add(page.size());
			assertThat(page).allSatisfy((entry) -> {
				assertThat(entry.queue()).isEqualTo(this.queueName);
				assertThat(entry.state()).isEqualTo(MessageState.NEW);
			});
			page.forEach((entry) -> seen.add(entry.id()));
			query = query.next(page);
			if (sizes.size() <= 3) {
				expected.add(queue.enqueue(this.queueName, null, "added while paging " + sizes.size()));
			}
		}
		while (!page.isEmpty());
		assertThat(seen).as("no repeats, no gaps, by id").containsExactlyElementsOf(expected).isSorted();
		assertThat(sizes).as("23 + 3 messages in pages of 5").containsExactly(5, 5, 5, 5, 5, 1, 0);
		assertThat(queue.admin().entries(QueueQuery.of(MessageState.NEW).withQueue(this.queueName)
			.withAfterId(expected.get(expected.size() - 1)))).isEmpty();
		// the old form is the first page without filters
		assertThat(queue.admin().entries(MessageState.NEW, 1000)).extracting(QueueEntry::id).containsAll(expected);
	}

	@Test
	void entriesAreFilteredByStateQueueAndBusinessKey() {
		WorkQueue queue = queue("a").build();
		String other = this.queueName + "-other";
		long head = queue.enqueue(this.queueName, "order-1", "head");
		long blocked = queue.enqueue(this.queueName, "order-1", "behind the head");
		long second = queue.enqueue(this.queueName, "order-2", "another key");
		long keyless = queue.enqueue(this.queueName, null, "no key");
		long elsewhere = queue.enqueue(other, "order-1", "same key, other queue");
		QueueAdmin admin = queue.admin();
		QueueQuery fresh = QueueQuery.of(MessageState.NEW).withQueue(this.queueName);
		assertThat(admin.entries(fresh)).extracting(QueueEntry::id).containsExactly(head, second, keyless);
		assertThat(admin.entries(fresh.withBusinessKey("order-1"))).extracting(QueueEntry::id).containsExactly(head);
		assertThat(admin.entries(QueueQuery.of(MessageState.BLOCKED).withQueue(this.queueName)))
			.extracting(QueueEntry::id).containsExactly(blocked);
		assertThat(admin.entries(fresh.withQueue(other))).extracting(QueueEntry::id).containsExactly(elsewhere);
		// a key over every queue: the other tests' messages of the shared table may have the same key
		assertThat(admin.entries(QueueQuery.of(MessageState.NEW).withBusinessKey("order-1").withLimit(1000)))
			.allSatisfy((entry) -> assertThat(entry.businessKey()).isEqualTo("order-1"))
			.extracting(QueueEntry::id)
			.contains(head, elsewhere)
			.doesNotContain(blocked, second, keyless);
		assertThat(admin.entries(fresh.withBusinessKey("order-9"))).isEmpty();

		List<QueueMessage> claimed = queue.claim(this.queueName, 1);
		assertThat(claimed).extracting(QueueMessage::id).containsExactly(head);
		assertThat(admin.entries(QueueQuery.of(MessageState.IN_PROGRESS).withQueue(this.queueName)))
			.singleElement()
			.satisfies((entry) -> {
				assertThat(entry.id()).isEqualTo(head);
				assertThat(entry.owner()).startsWith(queue.owner());
			});
		assertThat(admin.entries(fresh)).extracting(QueueEntry::id).containsExactly(second, keyless);
		assertThat(admin.entry(blocked)).hasValueSatisfying((entry) -> {
			assertThat(entry.businessKey()).isEqualTo("order-1");
			assertThat(entry.state()).isEqualTo(MessageState.BLOCKED);
			assertThat(entry.queue()).isEqualTo(this.queueName);
		});
	}

	@Test
	void listingsAndBulkActionsRefuseBadArgumentsNamingTheArgumentTheValueAndTheFix() {
		QueueAdmin admin = queue("a").build().admin();
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> QueueQuery.of(MessageState.DEAD).withLimit(0))
			.withMessageContaining("limit must be between 1 and 1000 but was 0")
			.withMessageContaining("several pages");
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> new QueueQuery(MessageState.DEAD, null, null, 0, 1001))
			.withMessageContaining("but was 1001");
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> QueueQuery.of(MessageState.DEAD).withAfterId(-1))
			.withMessageContaining("afterId")
			.withMessageContaining("-1")
			.withMessageContaining("pass 0");
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> QueueQuery.of(MessageState.DEAD).withQueue(" "))
			.withMessageStartingWith("queue must not be blank");
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> QueueQuery.of(MessageState.DEAD).withQueue("q".repeat(101)))
			.withMessageContaining("queue is 101 characters long, the limit is 100");
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> QueueQuery.of(MessageState.DEAD).withBusinessKey("k".repeat(256)))
			.withMessageContaining("businessKey is 256 characters long");
		assertThatExceptionOfType(NullPointerException.class).isThrownBy(() -> QueueQuery.of(null))
			.withMessageContaining("state must not be null");
		assertThatExceptionOfType(NullPointerException.class).isThrownBy(() -> admin.entries(null))
			.withMessageContaining("query must not be null");
		assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> admin.entries(MessageState.DEAD, 0))
			.withMessageContaining("limit");
		assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> admin.blockedKeys(-5, 10))
			.withMessageContaining("afterId")
			.withMessageContaining("-5");
		assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> admin.blockedKeys(2000))
			.withMessageContaining("but was 2000");
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> admin.retryAllDead(this.queueName, -1))
			.withMessageContaining("confirmedCount must be 0 or more but was -1")
			.withMessageContaining("countDead");
		assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> admin.countDead(""))
			.withMessageStartingWith("queue must not be blank");
		assertThatExceptionOfType(NullPointerException.class).isThrownBy(() -> admin.retryAllDead(null, 1))
			.withMessageStartingWith("queue must not be null");
	}

	@Test
	void blockedKeysArePagedByTheirHeadsId() {
		WorkQueue queue = queue("a").maxAttempts(1).build();
		List<Long> heads = new ArrayList<>();
		for (int key = 0; key < 3; key++) {
			heads.add(queue.enqueue(this.queueName, "stuck-" + key, "head"));
			queue.enqueue(this.queueName, "stuck-" + key, "behind");
		}
		queue.claim(this.queueName, 10).forEach((message) -> queue.fail(message, new IllegalStateException("poison")));
		// the keys of every queue of the shared table, one per page
		List<BlockedKey> walked = new ArrayList<>();
		long after = 0;
		for (int page = 0; page < 10_000; page++) {
			List<BlockedKey> keys = queue.admin().blockedKeys(after, 1);
			if (keys.isEmpty()) {
				break;
			}
			assertThat(keys).hasSize(1);
			walked.add(keys.get(0));
			after = keys.get(0).headId();
		}
		assertThat(walked).extracting(BlockedKey::headId).isSorted().doesNotHaveDuplicates();
		assertThat(walked).extracting(BlockedKey::headId)
			.containsExactlyElementsOf(queue.admin().blockedKeys(1000).stream().map(BlockedKey::headId).toList());
		assertThat(walked).filteredOn((key) -> key.queue().equals(this.queueName))
			.extracting(BlockedKey::headId)
			.containsExactlyElementsOf(heads);
		assertThat(walked).filteredOn((key) -> key.queue().equals(this.queueName))
			.allSatisfy((key) -> assertThat(key.waiting()).isOne());
	}

	@Test
	void aBulkRetryWithAStaleCountChangesNothing() {
		WorkQueue queue = queue("a").maxAttempts(1).build();
		String other = this.queueName + "-other";
		for (int i = 0; i < 3; i++) {
			queue.enqueue(this.queueName, null, "dies " + i);
		}
		queue.enqueue(other, null, "dies elsewhere");
		killAll(queue, this.queueName);
		killAll(queue, other);
		QueueAdmin admin = queue.admin();
		long confirmed = admin.countDead(this.queueName);
		assertThat(confirmed).isEqualTo(3);
		assertThat(admin.countDead(other)).isOne();
		// between the count the operator confirmed and the bulk retry, one more dies
		queue.enqueue(this.queueName, null, "dies late");
		killAll(queue, this.queueName);

		BulkRetry refused = admin.retryAllDead(this.queueName, confirmed);
		assertThat(refused.applied()).isFalse();
		assertThat(refused.confirmed()).isEqualTo(3);
		assertThat(refused.found()).isEqualTo(4);
		assertThat(refused.retried()).isZero();
		assertThat(count(MessageState.DEAD)).as("nothing retried").isEqualTo(4);
		assertThat(count(MessageState.NEW)).isZero();
		assertThat(count(MessageState.DEAD, other)).isOne();
		assertThat(admin.entries(QueueQuery.of(MessageState.DEAD).withQueue(this.queueName)))
			.allSatisfy((entry) -> assertThat(entry.attempts()).isOne())
			.hasSize(4);
		// one fewer than found is refused too
		assertThat(admin.retryAllDead(this.queueName, 5).applied()).isFalse();
		assertThat(count(MessageState.DEAD)).isEqualTo(4);
	}

	/**
	 * "Retry all dead of queue X": exactly the DEAD messages of that queue get fresh attempts, with
	 * the job of a message DISPATCHED again and a key's waiting message behind its head; workers then
	 * process each of them once. The other queue's dead message stays dead.
	 */
	@Test
	void aBulkRetryRetriesExactlyTheDeadOfItsQueueAndWorkersProcessEachOnce() {
		WorkQueue queue = queue("a").maxAttempts(1).build();
		String other = this.queueName + "-other";
		dev.polling.jdbc.jobs.JobScheduler scheduler = dev.polling.jdbc.jobs.JobScheduler.create(pool());
		long job = scheduler.schedule(this.queueName, "job-1", Duration.ZERO, "a job");
		assertThat(dev.polling.jdbc.jobs.JobProtocol.dispatchDue(scheduler, queue, 100).dispatched()).isOne();
		long keyless = queue.enqueue(this.queueName, null, "no key");
		long head = queue.enqueue(this.queueName, "order-1", "head");
		long behind = queue.enqueue(this.queueName, "order-1", "behind the head");
		long elsewhere = queue.enqueue(other, null, "other queue");
		killAll(queue, this.queueName);
		killAll(queue, other);
		long jobMessage = scheduler.admin().entry(job).orElseThrow().messageId();
		assertThat(scheduler.admin().entry(job).orElseThrow().state()).isEqualTo(dev.polling.jdbc.jobs.JobState.FAILED);
		assertThat(queue.admin().entries(QueueQuery.of(MessageState.DEAD).withQueue(this.queueName)))
			.extracting(QueueEntry::id).containsExactly(jobMessage, keyless, head);

		long confirmed = queue.admin().countDead(this.queueName);
		BulkRetry retried = queue.admin().retryAllDead(this.queueName, confirmed);
		assertThat(retried).isEqualTo(new BulkRetry(3, 3, 3));
		assertThat(retried.applied()).isTrue();
		assertThat(count(MessageState.DEAD)).isZero();
		assertThat(queue.admin().entries(QueueQuery.of(MessageState.NEW).withQueue(this.queueName)))
			.allSatisfy((entry) -> assertThat(entry.attempts()).isZero())
			.extracting(QueueEntry::id).containsExactly(jobMessage, keyless, head);
		assertThat(queue.admin().entry(behind).orElseThrow().state()).isEqualTo(MessageState.BLOCKED);
		assertThat(queue.admin().entry(elsewhere).orElseThrow().state()).isEqualTo(MessageState.DEAD);
		assertThat(scheduler.admin().entry(job).orElseThrow().state()).isEqualTo(dev.polling.jdbc.jobs.JobState.DISPATCHED);

		Map<Long, AtomicInteger> handled = new ConcurrentHashMap<>();
		List<Long> order = new java.util.concurrent.CopyOnWriteArrayList<>();
		try (QueueWorkers workers = workers(queue, (message) -> {
			handled.computeIfAbsent(message.id(), (id) -> new AtomicInteger()).incrementAndGet();
			order.add(message.id());
		}, 2)) {
			workers.start();
			Awaitility.await("the retried messages and the one behind its key done")
				.atMost(Duration.ofSeconds(60))
				.until(() -> count(MessageState.DONE) == 4);
		}
		assertThat(handled).containsOnlyKeys(jobMessage, keyless, head, behind);
		assertThat(handled.values()).allSatisfy((times) -> assertThat(times).hasValue(1));
		assertThat(order.indexOf(head)).isLessThan(order.indexOf(behind));
		assertThat(count(MessageState.DEAD, other)).as("the other queue untouched").isOne();
		assertThat(queue.admin().retryAllDead(this.queueName, 0)).isEqualTo(new BulkRetry(0, 0, 0));
	}

	/** Claims every claimable message of a queue and fails it (with one attempt allowed: DEAD). */
	private static void killAll(WorkQueue queue, String name) {
		for (QueueMessage message : queue.claim(name, 100)) {
			assertThat(queue.fail(message, new IllegalStateException("poison"))).isEqualTo(FencedWrite.APPLIED);
		}
	}

	private QueueWorkers workers(WorkQueue queue, QueueHandler handler, int threads) {
		return QueueWorkers.builder(queue).threads(threads).pollInterval(Duration.ofMillis(100))
			.subscribe(this.queueName, handler)
			.build();
	}

	private long count(MessageState state) {
		return count(state, this.queueName);
	}

	private long count(MessageState state, String queue) {
		return database().queryForLong("SELECT COUNT(*) FROM polling_queue WHERE queue = '" + queue + "' AND state = '"
				+ state.name() + "'");
	}

	static final class CountingListener implements QueueListener {

		final LongAdder completed = new LongAdder();

		final LongAdder rejected = new LongAdder();

		final LongAdder retries = new LongAdder();

		final LongAdder dead = new LongAdder();

		final LongAdder expired = new LongAdder();

		@Override
		public void onCompleted(String queue) {
			this.completed.increment();
		}

		@Override
		public void onFenceRejected(String queue) {
			this.rejected.increment();
		}

		@Override
		public void onRetryScheduled(String queue) {
			this.retries.increment();
		}

		@Override
		public void onDead(String queue) {
			this.dead.increment();
		}

		@Override
		public void onLeasesExpired(int count) {
			this.expired.add(count);
		}

	}

}
