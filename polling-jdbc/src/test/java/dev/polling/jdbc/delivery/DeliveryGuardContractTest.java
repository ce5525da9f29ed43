package dev.polling.jdbc.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import com.zaxxer.hikari.HikariDataSource;
import dev.polling.jdbc.Backoff;
import dev.polling.jdbc.BulkRetry;
import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.Schema;
import dev.polling.jdbc.TableNames;
import dev.polling.jdbc.test.Intercepted;
import dev.polling.jdbc.test.DatabaseTest;
import dev.polling.jdbc.test.TestDatabase;
import java.io.IOException;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * The delivery guard's behaviour, written once and run on every database by
 * {@link PostgresDeliveryGuardTest}, {@link MariaDbDeliveryGuardTest} and {@link H2DeliveryGuardTest}.
 * Two guards on two data sources stand for two application instances; a data source that can be
 * switched off stands for a crash or a database outage right after a send.
 */
abstract class DeliveryGuardContractTest extends DatabaseTest {

	private static final Backoff FAST = new Backoff(Duration.ofMillis(50), 2.0, Duration.ofMillis(200));


	private String destination;

	private final List<Delivery> sent = new CopyOnWriteArrayList<>();

	DeliveryGuardContractTest(Dialect dialect) {
		super(dialect);
	}

	@Override
	protected void prepare(TestDatabase database) {
		Schema.migrate(pool(), database.dialect(), TableNames.defaults());
	}


	@BeforeEach
	void useOneDestinationPerTest(TestInfo test) {
		this.destination = test.getTestMethod().orElseThrow().getName();
		this.sent.clear();
	}

	private HikariDataSource pool() {
		return newPool(4);
	}

	private DeliveryGuard.Builder guard(String instance, DataSource dataSource) {
		return DeliveryGuard.builder(dataSource).instanceId(instance).backoff(FAST).leaseTime(Duration.ofSeconds(1));
	}

	private DeliverySender recording() {
		return this.sent::add;
	}

	@Test
	void purgesDeliveredMessagesOlderThanTheRetentionInBatchesAndKeepsTheUndelivered() throws Exception {
		DeliveryGuard guard = guard("a", pool()).destination(DeliveryDestination.of(this.destination, (delivery) -> {
			if (delivery.payload().equals("refused")) {
				throw new NotDeliveredException("refused");
			}
		})).maxAttempts(1).build();
		for (int i = 0; i < 25; i++) {
			guard.store(this.destination, "purge-" + i, (i == 0) ? "refused" : "fine");
		}
		guard.deliverDue(this.destination, 100);
		String where = "destination = '" + this.destination + "'";
		assertThat(database().queryForLong("SELECT COUNT(*) FROM polling_delivery WHERE " + where + " AND state = 'DELIVERED'"))
			.isEqualTo(24);
		assertThat(guard.admin().purge(Duration.ofHours(1), 10)).as("nothing older than an hour").isZero();
		Awaitility.await().pollDelay(Duration.ofMillis(20)).atMost(Duration.ofSeconds(10)).until(() -> true);
		assertThat(guard.admin().purge(Duration.ofMillis(10), 10)).isGreaterThanOrEqualTo(24);
		assertThat(database().queryForLong("SELECT COUNT(*) FROM polling_delivery WHERE " + where)).as("the dead one")
			.isOne();
	}

	/**
	 * Issue 16, defect 10: expired sends are recovered even while every sending thread is busy with
	 * a slow send (recovery used to run on the first thread only).
	 */
	@Test
	void expiredSendsAreRecoveredWhileEverySendingThreadIsBusy() throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		// the slow sends' leases outlast the test (with 1 s they expired before a loaded machine saw both
		// sending); the orphan's lease has long expired
		DeliveryGuard guard = guard("b", pool()).leaseTime(Duration.ofSeconds(60)).destination(DeliveryDestination.of(this.destination, (delivery) -> {
			if (!release.await(60, TimeUnit.SECONDS)) {
				throw new IllegalStateException("never released");
			}
		})).build();
		guard.store(this.destination, "orphan", "sent by a crashed instance");
		guard.store(this.destination, "slow-1", "slow");
		guard.store(this.destination, "slow-2", "slow");
		// an instance crashed while sending the orphan: SENDING, lease long expired
		database().execute("UPDATE polling_delivery SET state = 'SENDING', owner = 'crashed', fence = fence + 1, "
				+ "attempts = 1, lease_until = available_at WHERE destination = '" + this.destination
				+ "' AND idempotency_key = 'orphan'");
		DeliveryDispatcher dispatcher = new DeliveryDispatcher(guard, 2, 10, Duration.ofMillis(50), Duration.ofMillis(200));
		try {
			dispatcher.start();
			Awaitility.await("both threads are sending")
				.atMost(Duration.ofSeconds(10))
				.until(() -> database().queryForLong("SELECT COUNT(*) FROM polling_delivery WHERE destination = '"
						+ this.destination + "' AND idempotency_key LIKE 'slow-%' AND state = 'SENDING'") == 2);
			Awaitility.await("the orphan is recovered while both threads wait for their sends")
				.atMost(Duration.ofSeconds(10))
				.until(() -> database().queryForLong("SELECT COUNT(*) FROM polling_delivery WHERE destination = '"
						+ this.destination + "' AND idempotency_key = 'orphan' AND state = 'IN_DOUBT'") == 1);
		}
		finally {
			release.countDown();
			dispatcher.stop(Duration.ofSeconds(10));
		}
	}

	@Test
	void storesInTheBusinessTransactionAndDeliversOnceWithItsIdempotencyKey() throws Exception {
		DataSource dataSource = pool();
		CountingListener listener = new CountingListener();
		DeliveryGuard guard = guard("a", dataSource).listener(listener)
			.destination(DeliveryDestination.of(this.destination, recording()))
			.build();
		try (Connection connection = dataSource.getConnection()) {
			connection.setAutoCommit(false);
			assertThat(guard.store(connection, this.destination, "rolled-back", "never sent")).isTrue();
			connection.rollback();
			assertThat(guard.store(connection, this.destination, "confirmation:1", "hello")).isTrue();
			assertThat(guard.store(connection, this.destination, "confirmation:1", "hello again")).isFalse();
			// the transaction is still usable after the duplicate
			assertThat(guard.store(connection, this.destination, "confirmation:2", "second")).isTrue();
			connection.commit();
		}
		assertThat(guard.deliverDue(this.destination, 10)).isEqualTo(2);
		assertThat(guard.deliverDue(this.destination, 10)).isZero();
		assertThat(this.sent).extracting(Delivery::idempotencyKey).containsExactly("confirmation:1", "confirmation:2");
		assertThat(this.sent).extracting(Delivery::payload).containsExactly("hello", "second");
		assertThat(listener.delivered.sum()).isEqualTo(2);
		assertThat(guard.admin().entries(DeliveryState.DELIVERED, 1000)).filteredOn((e) -> e.destination().equals(this.destination))
			.hasSize(2);
	}

	@Test
	void aCrashBetweenSendAndPostUpdateLeavesTheMessageInDoubtAndItIsNotSentAgain() {
		SwitchableDataSource crashing = new SwitchableDataSource(pool());
		DeliveryGuard a = guard("a", crashing).destination(DeliveryDestination.of(this.destination, (delivery) -> {
			this.sent.add(delivery);
			crashing.broken.set(true); // the instance dies right after the send
		})).build();
		a.store(this.destination, "order-17", "confirmation");
		assertThat(a.deliverDue(this.destination, 10)).isOne();
		assertThat(this.sent).hasSize(1);
		CountingListener listener = new CountingListener();
		DeliveryGuard b = guard("b", pool()).listener(listener)
			.destination(DeliveryDestination.of(this.destination, recording()))
			.build();
		long id = this.sent.get(0).id();
		assertThat(b.admin().entry(id).orElseThrow().state()).isEqualTo(DeliveryState.SENDING);
		Awaitility.await("the lease of the crashed instance expires")
			.atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(100))
			.until(() -> recoveredHere(b));
		DeliveryEntry entry = b.admin().entry(id).orElseThrow();
		assertThat(entry.state()).isEqualTo(DeliveryState.IN_DOUBT);
		assertThat(entry.lastError()).contains("expired during the send");
		assertThat(listener.inDoubt.sum()).isOne();
		assertThat(b.deliverDue(this.destination, 10)).isZero();
		assertThat(this.sent).hasSize(1);
		assertThat(b.admin().stats()).filteredOn((s) -> s.destination().equals(this.destination))
			.singleElement()
			.satisfies((s) -> assertThat(s.inDoubt()).isOne());
		// operator: the destination has it
		assertThat(b.admin().resolve(id, Resolution.DELIVERED)).isTrue();
		assertThat(b.admin().resolve(id, Resolution.DELIVERED)).isFalse();
		assertThat(b.admin().entry(id).orElseThrow().state()).isEqualTo(DeliveryState.DELIVERED);
		assertThat(b.deliverDue(this.destination, 10)).isZero();
		assertThat(this.sent).hasSize(1);
	}

	@Test
	void aCrashDuringARoundLeavesOnlyTheMessageBeingSentInDoubt() {
		SwitchableDataSource crashing = new SwitchableDataSource(pool());
		DeliveryGuard a = guard("a", crashing).destination(DeliveryDestination.of(this.destination, (delivery) -> {
			this.sent.add(delivery);
			crashing.broken.set(true); // the instance dies during its first send of the round
		})).build();
		a.store(this.destination, "order-31", "confirmation");
		a.store(this.destination, "order-32", "confirmation");
		a.store(this.destination, "order-33", "confirmation");
		assertThat(a.deliverDue(this.destination, 10)).isOne();
		DeliveryGuard b = guard("b", pool()).destination(DeliveryDestination.of(this.destination, recording())).build();
		Awaitility.await("the lease of the crashed instance expires")
			.atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(100))
			.until(() -> recoveredHere(b));

		// the two not yet sent were never claimed: another instance sends them, no operator needed
		assertThat(b.deliverDue(this.destination, 10)).isEqualTo(2);
		assertThat(this.sent).extracting(Delivery::idempotencyKey).containsExactly("order-31", "order-32", "order-33");
		assertThat(b.admin().entries(DeliveryState.IN_DOUBT, 100)).filteredOn((e) -> e.destination().equals(this.destination))
			.extracting(DeliveryEntry::idempotencyKey)
			.containsExactly("order-31");
		assertThat(b.admin().entries(DeliveryState.DELIVERED, 1000)).filteredOn((e) -> e.destination().equals(this.destination))
			.extracting(DeliveryEntry::idempotencyKey)
			.containsExactlyInAnyOrder("order-32", "order-33");
	}

	@Test
	void anIdempotentDestinationGetsTheMessageOnceMoreWithTheSameKeyAfterACrash() {
		SwitchableDataSource crashing = new SwitchableDataSource(pool());
		DeliveryGuard a = guard("a", crashing).destination(DeliveryDestination.idempotent(this.destination, (delivery) -> {
			this.sent.add(delivery);
			crashing.broken.set(true);
		})).build();
		a.store(this.destination, "order-18", "confirmation");
		a.deliverDue(this.destination, 10);
		DeliveryGuard b = guard("b", pool()).destination(DeliveryDestination.idempotent(this.destination, recording()))
			.build();
		Awaitility.await("the lease of the crashed instance expires")
			.atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(100))
			.until(() -> recoveredHere(b));
		assertThat(b.deliverDue(this.destination, 10)).isOne();
		assertThat(b.deliverDue(this.destination, 10)).isZero();
		assertThat(this.sent).extracting(Delivery::idempotencyKey).containsExactly("order-18", "order-18");
		// the crash was not a failed attempt: the send after it is still the first attempt
		assertThat(this.sent).extracting(Delivery::attempt).containsExactly(1, 1);
		assertThat(b.admin().entry(this.sent.get(0).id()).orElseThrow().state()).isEqualTo(DeliveryState.DELIVERED);
	}

	@Test
	void anUnknownOutcomeIsInDoubtAtOnceAndAnOperatorCanHaveItSentAgain() {
		AtomicBoolean timeout = new AtomicBoolean(true);
		DeliveryGuard guard = guard("a", pool()).destination(DeliveryDestination.of(this.destination, (delivery) -> {
			this.sent.add(delivery);
			if (timeout.get()) {
				throw new IOException("read timed out waiting for the server's answer");
			}
		})).build();
		guard.store(this.destination, "k1", "payload");
		assertThat(guard.deliverDue(this.destination, 10)).isOne();
		long id = this.sent.get(0).id();
		DeliveryEntry entry = guard.admin().entry(id).orElseThrow();
		assertThat(entry.state()).isEqualTo(DeliveryState.IN_DOUBT);
		assertThat(entry.lastError()).isEqualTo("java.io.IOException: read timed out waiting for the server's answer");
		assertThat(guard.deliverDue(this.destination, 10)).isZero();
		assertThat(guard.admin().entries(DeliveryState.IN_DOUBT, 100)).extracting(DeliveryEntry::id).contains(id);
		// operator: the destination does not have it
		timeout.set(false);
		assertThat(guard.admin().resolve(id, Resolution.RESEND)).isTrue();
		assertThat(guard.deliverDue(this.destination, 10)).isOne();
		assertThat(this.sent).extracting(Delivery::idempotencyKey).containsExactly("k1", "k1");
		assertThat(guard.admin().entry(id).orElseThrow().state()).isEqualTo(DeliveryState.DELIVERED);
	}

	// ---- operator listings and bulk actions (issue 30)

	@Test
	void pagesOfDeliveriesWalkEveryMatchingOneOnceWhileMoreAreStoredAndFilter() {
		String other = this.destination + "-other";
		DeliveryGuard guard = guard("a", pool()).destination(DeliveryDestination.of(this.destination, recording()))
			.destination(DeliveryDestination.of(other, recording()))
			.build();
		for (int i = 0; i < 12; i++) {
			guard.store(this.destination, "page-" + i, "payload " + i);
		}
		guard.store(other, "page-0", "same key, other destination");
		DeliveryAdmin admin = guard.admin();
		DeliveryQuery query = DeliveryQuery.of(DeliveryState.PENDING).withDestination(this.destination).withLimit(5);
		List<String> seen = new java.util.ArrayList<>();
		List<Long> ids = new java.util.ArrayList<>();
		List<DeliveryEntry> page;
		int pages = 0;
		do {
			page = admin.entries(query);
			assertThat(page).allSatisfy((entry) -> {
				assertThat(entry.destination()).isEqualTo(this.destination);
				assertThat(entry.state()).isEqualTo(DeliveryState.PENDING);
			});
			page.forEach((entry) -> {
				seen.add(entry.idempotencyKey());
				ids.add(entry.id());
			});
			query = query.next(page);
			if (++pages <= 2) {
				guard.store(this.destination, "added-" + pages, "stored while paging");
			}
		}
		while (!page.isEmpty());
		List<String> expected = new java.util.ArrayList<>();
		for (int i = 0; i < 12; i++) {
			expected.add("page-" + i);
		}
		expected.add("added-1");
		expected.add("added-2");
		assertThat(seen).as("no repeats, no gaps").containsExactlyElementsOf(expected);
		assertThat(ids).isSorted();
		assertThat(pages).as("14 in pages of 5, then an empty one").isEqualTo(4);

		assertThat(admin.entries(DeliveryQuery.of(DeliveryState.PENDING).withIdempotencyKey("page-0").withLimit(1000)))
			.filteredOn((entry) -> entry.destination().startsWith(this.destination))
			.extracting(DeliveryEntry::destination)
			.containsExactly(this.destination, other);
		assertThat(admin.entries(DeliveryQuery.of(DeliveryState.PENDING).withDestination(other)))
			.extracting(DeliveryEntry::idempotencyKey).containsExactly("page-0");
		assertThat(admin.entries(DeliveryQuery.of(DeliveryState.DEAD).withDestination(this.destination))).isEmpty();
		assertThat(guard.deliverDue(this.destination, 100)).isEqualTo(14);
		assertThat(admin.entries(DeliveryQuery.of(DeliveryState.PENDING).withDestination(this.destination))).isEmpty();
		assertThat(admin.entries(DeliveryQuery.of(DeliveryState.DELIVERED).withDestination(this.destination)
			.withIdempotencyKey("added-2"))).singleElement().satisfies((entry) -> {
				assertThat(entry.lastError()).isNull();
				assertThat(admin.entry(entry.id())).contains(entry);
			});
	}

	@Test
	void listingsAndBulkRetriesOfDeliveriesRefuseBadArgumentsNamingThem() {
		DeliveryAdmin admin = guard("a", pool()).destination(DeliveryDestination.of(this.destination, recording()))
			.build()
			.admin();
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> DeliveryQuery.of(DeliveryState.DEAD).withLimit(1001))
			.withMessageContaining("limit must be between 1 and 1000 but was 1001");
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> DeliveryQuery.of(DeliveryState.DEAD).withAfterId(-2))
			.withMessageContaining("afterId")
			.withMessageContaining("-2");
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> DeliveryQuery.of(DeliveryState.DEAD).withDestination("d".repeat(101)))
			.withMessageContaining("destination is 101 characters long, the limit is 100");
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> DeliveryQuery.of(DeliveryState.DEAD).withIdempotencyKey(" key"))
			.withMessageContaining("idempotencyKey ' key'")
			.withMessageContaining("whitespace");
		assertThatExceptionOfType(NullPointerException.class).isThrownBy(() -> DeliveryQuery.of(null))
			.withMessageContaining("state must not be null");
		assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> admin.entries(DeliveryState.DEAD, 0))
			.withMessageContaining("but was 0");
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> admin.retryAllDead(this.destination, -1))
			.withMessageContaining("confirmedCount must be 0 or more but was -1");
		assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> admin.countDead(" "))
			.withMessageStartingWith("destination must not be blank");
	}

	/**
	 * "Retry all dead of destination X" with the count the operator confirmed: refused, changing
	 * nothing, when one more died since; then exactly that destination's DEAD messages are sent again
	 * once each (same idempotency keys); the IN_DOUBT one and the other destination's are untouched.
	 */
	@Test
	void aBulkRetryOfADestinationSendsItsDeadAgainOnlyWithTheConfirmedCount() {
		String other = this.destination + "-other";
		AtomicBoolean refuse = new AtomicBoolean(true);
		DeliverySender sender = (delivery) -> {
			this.sent.add(delivery);
			if (delivery.payload().equals("unknown")) {
				throw new IOException("read timed out");
			}
			if (refuse.get()) {
				throw new NotDeliveredException("550 refused");
			}
		};
		DeliveryGuard guard = guard("a", pool()).maxAttempts(1)
			.destination(DeliveryDestination.of(this.destination, sender))
			.destination(DeliveryDestination.of(other, sender))
			.build();
		for (int i = 0; i < 3; i++) {
			guard.store(this.destination, "dead-" + i, "refused");
		}
		guard.store(this.destination, "doubt", "unknown");
		guard.store(other, "dead-0", "refused");
		guard.deliverDue(this.destination, 10);
		guard.deliverDue(other, 10);
		DeliveryAdmin admin = guard.admin();
		long confirmed = admin.countDead(this.destination);
		assertThat(confirmed).isEqualTo(3);
		assertThat(admin.countDead(other)).isOne();
		guard.store(this.destination, "dead-late", "refused");
		guard.deliverDue(this.destination, 10);

		BulkRetry refused = admin.retryAllDead(this.destination, confirmed);
		assertThat(refused).isEqualTo(new BulkRetry(3, 4, 0));
		assertThat(refused.applied()).isFalse();
		assertThat(admin.entries(DeliveryQuery.of(DeliveryState.DEAD).withDestination(this.destination)))
			.extracting(DeliveryEntry::idempotencyKey).containsExactly("dead-0", "dead-1", "dead-2", "dead-late");
		assertThat(admin.entries(DeliveryQuery.of(DeliveryState.PENDING).withDestination(this.destination))).isEmpty();

		refuse.set(false);
		this.sent.clear();
		assertThat(admin.retryAllDead(this.destination, 4)).isEqualTo(new BulkRetry(4, 4, 4));
		assertThat(admin.entries(DeliveryQuery.of(DeliveryState.PENDING).withDestination(this.destination)))
			.allSatisfy((entry) -> assertThat(entry.attempts()).isZero())
			.hasSize(4);
		assertThat(guard.deliverDue(this.destination, 10)).isEqualTo(4);
		assertThat(guard.deliverDue(this.destination, 10)).isZero();
		assertThat(this.sent).extracting(Delivery::idempotencyKey)
			.containsExactlyInAnyOrder("dead-0", "dead-1", "dead-2", "dead-late");
		assertThat(admin.entries(DeliveryQuery.of(DeliveryState.DELIVERED).withDestination(this.destination)))
			.hasSize(4);
		assertThat(admin.entries(DeliveryQuery.of(DeliveryState.IN_DOUBT).withDestination(this.destination)))
			.extracting(DeliveryEntry::idempotencyKey).containsExactly("doubt");
		assertThat(admin.countDead(other)).as("the other destination untouched").isOne();
		assertThat(admin.retryAllDead(this.destination, 0).applied()).isTrue();
	}

	@Test
	void definiteFailuresAreRetriedWithBackoffThenDeadAndAnOperatorCanRetry() {
		AtomicBoolean refuse = new AtomicBoolean(true);
		CountingListener listener = new CountingListener();
		DeliveryGuard guard = guard("a", pool()).listener(listener)
			.destination(DeliveryDestination.of(this.destination, (delivery) -> {
				this.sent.add(delivery);
				if (refuse.get()) {
					throw new NotDeliveredException("550 mailbox unavailable (attempt " + delivery.attempt() + ")");
				}
			}))
			.build();
		guard.store(this.destination, "k1", "payload");
		Awaitility.await("three attempts")
			.atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(20))
			.until(() -> {
				guard.deliverDue(this.destination, 10);
				return this.sent.size() == 3;
			});
		long id = this.sent.get(0).id();
		DeliveryEntry dead = guard.admin().entry(id).orElseThrow();
		assertThat(dead.state()).isEqualTo(DeliveryState.DEAD);
		assertThat(dead.lastError()).endsWith("550 mailbox unavailable (attempt 3)");
		assertThat(listener.retries.sum()).isEqualTo(2);
		assertThat(listener.dead.sum()).isOne();
		assertThat(guard.deliverDue(this.destination, 10)).isZero();
		refuse.set(false);
		assertThat(guard.admin().retryDead(id)).isTrue();
		assertThat(guard.admin().retryDead(id)).isFalse();
		assertThat(guard.deliverDue(this.destination, 10)).isOne();
		assertThat(guard.admin().entry(id).orElseThrow().state()).isEqualTo(DeliveryState.DELIVERED);
		assertThat(this.sent).hasSize(4).extracting(Delivery::idempotencyKey).containsOnly("k1");
	}

	@Test
	void aSendThatOutlivesItsLeaseEndsInDoubtAndItsLatePostUpdateIsRejectedByTheFence() throws Exception {
		CountDownLatch sending = new CountDownLatch(1);
		CountDownLatch finish = new CountDownLatch(1);
		CountingListener listenerA = new CountingListener();
		DeliveryGuard a = guard("a", pool()).listener(listenerA)
			.destination(DeliveryDestination.of(this.destination, (delivery) -> {
				this.sent.add(delivery);
				sending.countDown();
				assertThat(finish.await(60, TimeUnit.SECONDS)).isTrue();
			}))
			.build();
		a.store(this.destination, "slow", "payload");
		Thread sender = new Thread(() -> a.deliverDue(this.destination, 10));
		sender.start();
		assertThat(sending.await(30, TimeUnit.SECONDS)).isTrue();
		DeliveryGuard b = guard("b", pool()).destination(DeliveryDestination.of(this.destination, recording())).build();
		Awaitility.await("the lease expires during the send")
			.atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(100))
			.until(() -> recoveredHere(b));
		finish.countDown();
		sender.join();
		assertThat(listenerA.rejected.sum()).isOne();
		assertThat(listenerA.delivered.sum()).isZero();
		assertThat(b.admin().entry(this.sent.get(0).id()).orElseThrow().state()).isEqualTo(DeliveryState.IN_DOUBT);
		assertThat(b.deliverDue(this.destination, 10)).isZero();
		assertThat(this.sent).hasSize(1);
	}

	/**
	 * A batch (idempotent destination) whose lease expired while it was being sent, and which
	 * another instance recovered and is sending now (SENDING again, under that instance's fence): the
	 * late record of the first, written together with the claim of its next batch, is rejected by the
	 * fence for every message and changes nothing; the second instance's record stands.
	 */
	@Test
	void aBatchThatOutlivesItsLeaseHasItsLateRecordRejectedByTheFenceForEveryMessage() throws Exception {
		CountDownLatch aSending = new CountDownLatch(1);
		CountDownLatch aFinish = new CountDownLatch(1);
		CountDownLatch bSending = new CountDownLatch(1);
		CountDownLatch bFinish = new CountDownLatch(1);
		CountingListener listenerA = new CountingListener();
		CountingListener listenerB = new CountingListener();
		DeliveryGuard a = guard("a", pool()).listener(listenerA)
			.destination(DeliveryDestination.idempotent(this.destination, (delivery) -> {
				this.sent.add(delivery);
				aSending.countDown();
				assertThat(aFinish.await(60, TimeUnit.SECONDS)).isTrue();
			}).withBatchClaims(3))
			.build();
		for (int i = 0; i < 3; i++) {
			a.store(this.destination, "slow-" + i, "payload");
		}
		Thread senderA = new Thread(() -> a.deliverDue(this.destination, 3 + 3));
		senderA.start();
		assertThat(aSending.await(30, TimeUnit.SECONDS)).isTrue();
		DeliveryGuard b = guard("b", pool()).listener(listenerB)
			.destination(DeliveryDestination.idempotent(this.destination, (delivery) -> {
				this.sent.add(delivery);
				bSending.countDown();
				assertThat(bFinish.await(60, TimeUnit.SECONDS)).isTrue();
			}).withBatchClaims(3))
			.build();
		Awaitility.await("the leases expire during the sends")
			.atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(100))
			.until(() -> recoveredHere(b));
		Thread senderB = new Thread(() -> b.deliverDue(this.destination, 3));
		senderB.start();
		assertThat(bSending.await(30, TimeUnit.SECONDS)).isTrue();
		aFinish.countDown();
		senderA.join();
		assertThat(listenerA.rejected.sum()).isEqualTo(3);
		assertThat(listenerA.delivered.sum()).isZero();
		bFinish.countDown();
		senderB.join();
		assertThat(listenerB.delivered.sum()).isEqualTo(3);
		assertThat(listenerB.rejected.sum()).isZero();
		assertThat(this.sent).extracting(Delivery::idempotencyKey)
			.containsExactlyInAnyOrder("slow-0", "slow-1", "slow-2", "slow-0", "slow-1", "slow-2");
	}

	/**
	 * One message of a batch is claimed by another instance while the batch is being sent (its fence
	 * moved on, still SENDING): the batch's record writes the other two and rejects exactly that one,
	 * which stays with the other instance.
	 */
	@Test
	void aBatchRecordRejectsOnlyTheMessageWhoseFenceMovedOn() throws Exception {
		CountDownLatch sending = new CountDownLatch(1);
		CountDownLatch finish = new CountDownLatch(1);
		CountingListener listener = new CountingListener();
		DeliveryGuard a = guard("a", pool()).listener(listener)
			.destination(DeliveryDestination.idempotent(this.destination, (delivery) -> {
				this.sent.add(delivery);
				sending.countDown();
				assertThat(finish.await(60, TimeUnit.SECONDS)).isTrue();
			}).withBatchClaims(3))
			.build();
		for (int i = 0; i < 3; i++) {
			a.store(this.destination, "mixed-" + i, "payload");
		}
		Thread sender = new Thread(() -> a.deliverDue(this.destination, 3));
		sender.start();
		assertThat(sending.await(30, TimeUnit.SECONDS)).isTrue();
		database().execute("UPDATE polling_delivery SET owner = 'b', fence = fence + 1 WHERE idempotency_key = 'mixed-1'");
		finish.countDown();
		sender.join();
		assertThat(listener.delivered.sum()).isEqualTo(2);
		assertThat(listener.rejected.sum()).isOne();
		String where = "destination = '" + this.destination + "' AND ";
		assertThat(database().queryForLong("SELECT COUNT(*) FROM polling_delivery WHERE " + where
				+ "state = 'DELIVERED' AND idempotency_key IN ('mixed-0', 'mixed-2')")).isEqualTo(2);
		assertThat(database().queryForLong("SELECT COUNT(*) FROM polling_delivery WHERE " + where
				+ "state = 'SENDING' AND owner = 'b' AND idempotency_key = 'mixed-1'")).isOne();
		// the other instance records its send (a lease left to expire would be recovered by another test)
		database().execute("UPDATE polling_delivery SET state = 'DELIVERED', owner = NULL, lease_until = NULL WHERE "
				+ where + "idempotency_key = 'mixed-1'");
	}

	@Test
	void theDispatcherDeliversInTheBackground() {
		DeliveryGuard guard = guard("a", pool()).destination(DeliveryDestination.of(this.destination, recording()))
			.build();
		try (DeliveryDispatcher dispatcher = new DeliveryDispatcher(guard, 10, Duration.ofMillis(50),
				Duration.ofSeconds(1))) {
			dispatcher.start();
			for (int i = 0; i < 25; i++) {
				guard.store(this.destination, "key-" + i, "payload " + i);
			}
			dispatcher.wakeUp();
			Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> this.sent.size() == 25);
		}
		assertThat(this.sent).extracting(Delivery::idempotencyKey).doesNotHaveDuplicates();
	}

	/**
	 * A dispatcher that stops ends its round after the batch under way is recorded, however long the
	 * round could go on (a batched destination's round covers ten batches): stop returns with every
	 * send recorded and nothing left SENDING. 100 messages at 40 ms per send are a 4 s round, longer
	 * than the 2.5 s the stop waits; one batch of 10 is 0.4 s.
	 */
	@Test
	void aStoppingDispatcherEndsItsRoundAfterTheBatchUnderWay() throws Exception {
		CountDownLatch sending = new CountDownLatch(1);
		DeliveryGuard guard = guard("a", pool())
			.destination(DeliveryDestination.idempotent(this.destination, (delivery) -> {
				this.sent.add(delivery);
				sending.countDown();
				Thread.sleep(40);
			}).withBatchClaims(10))
			.build();
		for (int i = 0; i < 100; i++) {
			guard.store(this.destination, "key-" + i, "payload " + i);
		}
		DeliveryDispatcher dispatcher = new DeliveryDispatcher(guard, 10, Duration.ofMillis(50), Duration.ofSeconds(30));
		dispatcher.start();
		assertThat(sending.await(30, TimeUnit.SECONDS)).isTrue();
		dispatcher.stop(Duration.ofMillis(2500));
		int sentWhenStopped = this.sent.size();
		assertThat(sentWhenStopped).as("sends before the round ended").isLessThan(100);
		assertThat(database().queryForLong("SELECT COUNT(*) FROM polling_delivery WHERE destination = '" + this.destination
				+ "' AND state = 'SENDING'")).as("left SENDING when stop returned").isZero();
		assertThat(guard.admin().entries(DeliveryState.DELIVERED, 1000)).filteredOn((e) -> e.destination().equals(this.destination))
			.hasSize(sentWhenStopped);
	}

	/**
	 * Issue 16 (delivery throughput): a round of successful sends commits each message's DELIVERED
	 * together with the claim of the next one, one commit per message instead of two (not on H2).
	 * Counted as commit calls on the connections the guard borrows.
	 */
	@Test
	void aRoundOfSuccessfulSendsCommitsOncePerMessage() {
		AtomicInteger commits = new AtomicInteger();
		DataSource counting = countingCommits(pool(), commits);
		DeliveryGuard guard = guard("a", counting).destination(DeliveryDestination.of(this.destination, recording())).build();
		int messages = 20;
		for (int i = 0; i < messages; i++) {
			guard.store(this.destination, "key-" + i, "payload " + i);
		}
		commits.set(0);
		assertThat(guard.deliverDue(this.destination, 1000)).isEqualTo(messages);
		int committed = commits.get();
		assertThat(this.sent).hasSize(messages);
		assertThat(guard.admin().entries(DeliveryState.DELIVERED, 1000)).filteredOn((e) -> e.destination().equals(this.destination))
			.hasSize(messages);
		// the first claim, and one per message (its outcome with the next claim; after the last that claim
		// finds none, and the round ends without claiming once more); on H2 a claim and an outcome per
		// message, and the round's last claim finding none
		int expected = (database().dialect() == Dialect.H2) ? 2 * messages + 1 : messages + 1;
		assertThat(committed).as("commits for %d messages on %s", messages, database().dialect()).isEqualTo(expected);
	}

	/**
	 * Issue 16 (batched claim, opt-in for idempotent destinations): the successful sends of a batch are
	 * recorded in one commit together with the claim of the next batch (not on H2, where claim and
	 * record commit apart), each message sent once.
	 */
	@Test
	void anIdempotentDestinationWithBatchedClaimsCommitsOncePerBatchAndSendsEachOnce() {
		deliverInBatchesOfTenAndCountCommits((guard) -> guard.deliverDue(this.destination, 1000));
	}

	/**
	 * A dispatcher round ({@code deliverDue(limit)} over all destinations, the starter's batch size 10)
	 * covers at least ten batches of a destination with batched claims: a round of one batch could not
	 * record its outcomes with the next claim and cost two commits per batch.
	 */
	@Test
	void aDispatcherRoundCoversSeveralBatchesOfADestinationWithBatchedClaims() {
		deliverInBatchesOfTenAndCountCommits((guard) -> guard.deliverDue(10));
	}

	/** 25 messages to an idempotent destination with batches of 10, delivered in one call of {@code round}. */
	private void deliverInBatchesOfTenAndCountCommits(java.util.function.ToIntFunction<DeliveryGuard> round) {
		AtomicInteger commits = new AtomicInteger();
		DeliveryGuard guard = guard("a", countingCommits(pool(), commits))
			.destination(DeliveryDestination.idempotent(this.destination, recording()).withBatchClaims(10))
			.build();
		int messages = 25;
		for (int i = 0; i < messages; i++) {
			guard.store(this.destination, "key-" + i, "payload " + i);
		}
		commits.set(0);
		assertThat(round.applyAsInt(guard)).isEqualTo(messages);
		int committed = commits.get();
		assertThat(this.sent).extracting(Delivery::idempotencyKey).hasSize(messages).doesNotHaveDuplicates();
		assertThat(guard.admin().entries(DeliveryState.DELIVERED, 1000)).filteredOn((e) -> e.destination().equals(this.destination))
			.hasSize(messages);
		// claims of 10, 10 and 5 (fewer than asked for: the round ends): the first claim, the records of the
		// first two batches each with the next claim, the last record alone; on H2 a claim and a record each
		int expected = (database().dialect() == Dialect.H2) ? 6 : 4;
		assertThat(committed).as("commits for %d messages in batches of 10 on %s", messages, database().dialect())
			.isEqualTo(expected);
	}

	@Test
	void batchedClaimsAreRefusedForADestinationThatDoesNotDeduplicate() {
		org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
			.isThrownBy(() -> DeliveryDestination.of(this.destination, recording()).withBatchClaims(10))
			.withMessageContaining("is not idempotent")
			.withMessageContaining("DeliveryDestination.idempotent(...)");
		org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
			.isThrownBy(() -> DeliveryDestination.idempotent(this.destination, recording()).withBatchClaims(1001))
			.withMessageContaining("must be between 1 and 1000 but was 1001");
	}

	/**
	 * Locked batches: one transaction per batch (lock, sends, outcomes), so 25 messages in batches of
	 * 10 are three commits on every database, each message sent once, none ever SENDING; the same in a
	 * dispatcher's round.
	 */
	@Test
	void lockedBatchesCommitOncePerBatchAndSendEachMessageOnce() {
		for (boolean dispatcherRound : new boolean[] { false, true }) {
			this.sent.clear();
			AtomicInteger commits = new AtomicInteger();
			CountingListener listener = new CountingListener();
			String destination = this.destination + (dispatcherRound ? "-round" : "");
			DeliveryGuard guard = guard("a", countingCommits(pool(), commits)).listener(listener)
				.destination(DeliveryDestination.idempotent(destination, recording()).withLockedBatches(10))
				.build();
			for (int i = 0; i < 25; i++) {
				guard.store(destination, "key-" + i, "payload " + i);
			}
			commits.set(0);
			assertThat(dispatcherRound ? guard.deliverDue(10) : guard.deliverDue(destination, 1000)).isEqualTo(25);
			assertThat(commits.get()).as("commits for 25 messages in locked batches of 10 on %s", database().dialect())
				.isEqualTo(3);
			assertThat(this.sent).extracting(Delivery::idempotencyKey).hasSize(25).doesNotHaveDuplicates();
			assertThat(this.sent).extracting(Delivery::attempt).containsOnly(1);
			assertThat(guard.admin().entries(DeliveryState.DELIVERED, 1000)).filteredOn((e) -> e.destination().equals(destination))
				.hasSize(25);
			assertThat(listener.delivered.sum()).isEqualTo(25);
		}
	}

	/**
	 * While one instance sends a locked batch, its messages stay due but locked: another instance
	 * skips them without waiting and sends only what is not locked; each message is sent once.
	 */
	@Test
	void anotherInstanceSkipsTheMessagesOfALockedBatchWhileItIsSent() throws Exception {
		CountDownLatch sending = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		DeliveryGuard a = guard("a", pool()).destination(DeliveryDestination.idempotent(this.destination, (delivery) -> {
			this.sent.add(delivery);
			sending.countDown();
			if (!release.await(30, TimeUnit.SECONDS)) {
				throw new IllegalStateException("not released");
			}
		}).withLockedBatches(10)).build();
		DeliveryGuard b = guard("b", pool()).destination(DeliveryDestination.idempotent(this.destination, recording())
			.withLockedBatches(10)).build();
		for (int i = 1; i <= 3; i++) {
			a.store(this.destination, "order-" + i, "confirmation");
		}
		java.util.concurrent.ExecutorService executor = java.util.concurrent.Executors.newSingleThreadExecutor();
		try {
			java.util.concurrent.Future<Integer> first = executor.submit(() -> a.deliverDue(this.destination, 10));
			assertThat(sending.await(30, TimeUnit.SECONDS)).isTrue();
			assertThat(a.admin().entries(DeliveryState.PENDING, 100)).filteredOn((e) -> e.destination().equals(this.destination))
				.as("locked, not claimed: still due").hasSize(3);
			a.store(this.destination, "order-4", "confirmation");
			java.util.concurrent.Future<Integer> other = java.util.concurrent.Executors.newSingleThreadExecutor()
				.submit(() -> b.deliverDue(this.destination, 10));
			assertThat(other.get(20, TimeUnit.SECONDS)).as("b sends the one message not locked, without waiting").isOne();
			release.countDown();
			assertThat(first.get(30, TimeUnit.SECONDS)).isEqualTo(3);
		}
		finally {
			release.countDown();
			executor.shutdownNow();
		}
		assertThat(this.sent).extracting(Delivery::idempotencyKey)
			.containsExactlyInAnyOrder("order-1", "order-2", "order-3", "order-4");
		assertThat(a.admin().entries(DeliveryState.DELIVERED, 1000)).filteredOn((e) -> e.destination().equals(this.destination))
			.hasSize(4);
	}

	/**
	 * A locked batch whose transaction does not commit (the connection is lost when its outcomes are
	 * written, after the sends) leaves every message of the batch due, none lost: the next round sends
	 * them again, with the same idempotency keys, as the first attempt.
	 */
	@Test
	void aLockedBatchWhoseOutcomesDoNotCommitIsDueAgainAndSentAgain() {
		AtomicBoolean failCommits = new AtomicBoolean(true);
		DeliveryGuard guard = guard("a", failingOutcomeWrites(pool(), failCommits))
			.destination(DeliveryDestination.idempotent(this.destination, recording()).withLockedBatches(10))
			.build();
		for (int i = 1; i <= 3; i++) {
			guard.store(this.destination, "order-" + i, "confirmation");
		}
		DeliveryAdmin admin = guard("reader", pool()).build().admin();
		assertThat(guard.deliverDue(this.destination, 10)).isEqualTo(3);
		assertThat(this.sent).hasSize(3);
		assertThat(admin.entries(DeliveryState.PENDING, 100)).filteredOn((e) -> e.destination().equals(this.destination))
			.as("rolled back: due again").hasSize(3);
		failCommits.set(false);
		assertThat(guard.deliverDue(this.destination, 10)).isEqualTo(3);
		assertThat(this.sent).extracting(Delivery::idempotencyKey)
			.containsExactly("order-1", "order-2", "order-3", "order-1", "order-2", "order-3");
		assertThat(this.sent).extracting(Delivery::attempt).containsOnly(1);
		assertThat(admin.entries(DeliveryState.DELIVERED, 1000)).filteredOn((e) -> e.destination().equals(this.destination))
			.hasSize(3);
	}

	/**
	 * In a locked batch a failed send counts an attempt and is retried after the backoff, then DEAD
	 * after the last attempt, written in the batch's transaction; the others of the batch are DELIVERED.
	 */
	@Test
	void aFailedSendInALockedBatchIsRetriedThenDeadWhileTheOthersAreDelivered() {
		CountingListener listener = new CountingListener();
		DeliveryGuard guard = guard("a", pool()).listener(listener).maxAttempts(2)
			.destination(DeliveryDestination.idempotent(this.destination, (delivery) -> {
				this.sent.add(delivery);
				if (delivery.idempotencyKey().equals("order-2")) {
					throw new NotDeliveredException("rejected by the destination");
				}
			}).withLockedBatches(10))
			.build();
		for (int i = 1; i <= 3; i++) {
			guard.store(this.destination, "order-" + i, "confirmation");
		}
		assertThat(guard.deliverDue(this.destination, 10)).isEqualTo(3);
		long failing = this.sent.get(1).id();
		DeliveryEntry failed = guard.admin().entry(failing).orElseThrow();
		assertThat(failed.state()).isEqualTo(DeliveryState.FAILED);
		assertThat(failed.attempts()).isOne();
		assertThat(failed.lastError()).contains("rejected by the destination");
		assertThat(listener.delivered.sum()).isEqualTo(2);
		assertThat(listener.retries.sum()).isOne();
		Awaitility.await("the backoff passes").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
			.until(() -> guard.deliverDue(this.destination, 10) > 0);
		DeliveryEntry dead = guard.admin().entry(failing).orElseThrow();
		assertThat(dead.state()).isEqualTo(DeliveryState.DEAD);
		assertThat(dead.attempts()).isEqualTo(2);
		assertThat(listener.dead.sum()).isOne();
		assertThat(this.sent).extracting(Delivery::idempotencyKey).containsExactly("order-1", "order-2", "order-3", "order-2");
		assertThat(guard.admin().entries(DeliveryState.DELIVERED, 1000)).filteredOn((e) -> e.destination().equals(this.destination))
			.extracting(DeliveryEntry::idempotencyKey)
			.containsExactlyInAnyOrder("order-1", "order-3");
	}

	@Test
	void lockedBatchesAreRefusedForADestinationThatDoesNotDeduplicate() {
		org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
			.isThrownBy(() -> DeliveryDestination.of(this.destination, recording()).withLockedBatches(10))
			.withMessageContaining("is not idempotent")
			.withMessageContaining("locked batches")
			.withMessageContaining("DeliveryDestination.idempotent(...)");
		org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
			.isThrownBy(() -> DeliveryDestination.idempotent(this.destination, recording()).withLockedBatches(0))
			.withMessageContaining("must be between 1 and 1000 but was 0");
	}

	/**
	 * A claim the database committed but whose answer was lost (the connection broke after the
	 * commit, as when the server goes down at that moment) leaves its message SENDING under a claim
	 * the guard never saw. Found by the outage test on MariaDB: the message waited out its lease and
	 * ended IN_DOUBT though it had never been sent. The next round releases it instead: sent once,
	 * DELIVERED, no lease waited for (an hour here), nothing in doubt. Both the lone claim and the
	 * claim sent with the previous message's outcome.
	 */
	@Test
	void aClaimWhoseAnswerWasLostIsReleasedAndItsMessageSentOnceWithoutWaitingForTheLease() {
		DeliveryAdmin admin = guard("reader", pool()).build().admin();
		for (int lost : new int[] { 1, 2 }) {
			this.sent.clear();
			String destination = this.destination + "-" + lost;
			AtomicInteger claimsBeforeTheLostOne = new AtomicInteger(lost - 1);
			DeliveryGuard guard = guard("a", losingClaimAnswers(pool(), claimsBeforeTheLostOne)).leaseTime(Duration.ofHours(1))
				.destination(DeliveryDestination.of(destination, recording()))
				.build();
			guard.store(destination, "order-1", "confirmation");
			guard.store(destination, "order-2", "confirmation");
			if (lost == 1) {
				// the round's first claim: the round fails
				org.assertj.core.api.Assertions.assertThatExceptionOfType(dev.polling.jdbc.DataAccessFailure.class)
					.isThrownBy(() -> guard.deliverDue(destination, 10));
				assertThat(this.sent).isEmpty();
			}
			else {
				// the claim sent with order-1's outcome: order-1 is recorded, the round ends
				assertThat(guard.deliverDue(destination, 10)).isOne();
				assertThat(this.sent).extracting(Delivery::idempotencyKey).containsExactly("order-1");
			}
			assertThat(admin.entries(DeliveryState.SENDING, 100)).filteredOn((e) -> e.destination().equals(destination))
				.as("claimed, committed, unknown to the guard").hasSize(1);
			assertThat(guard.deliverDue(destination, 10)).isEqualTo(3 - lost);
			assertThat(this.sent).extracting(Delivery::idempotencyKey).containsExactly("order-1", "order-2");
			assertThat(admin.entries(DeliveryState.DELIVERED, 1000)).filteredOn((e) -> e.destination().equals(destination))
				.hasSize(2);
			assertThat(admin.entries(DeliveryState.IN_DOUBT, 100)).filteredOn((e) -> e.destination().equals(destination))
				.isEmpty();
		}
	}

	/**
	 * One recovery round, then whether this test's destination has no delivery left in SENDING. The
	 * recovery is table-wide: a round may recover another test's expired row and not yet this one's.
	 */
	private boolean recoveredHere(DeliveryGuard guard) {
		guard.recoverExpired();
		return guard.admin()
			.entries(DeliveryState.SENDING, 1000)
			.stream()
			.noneMatch((entry) -> entry.destination().equals(this.destination));
	}

	private DataSource losingClaimAnswers(DataSource pool, AtomicInteger before) {
		return Intercepted.losingClaimAnswers(pool, before, "SET state = 'SENDING'");
	}

	/**
	 * Connections on which an {@code UPDATE} (in a locked batch: its outcome writes, the last of which
	 * carries the commit on PostgreSQL) fails while {@code fail} is set, as a connection lost then.
	 */
	private DataSource failingOutcomeWrites(DataSource pool, AtomicBoolean fail) {
		return intercepting(pool, (connection) -> (p, m, a) -> {
			if (m.getName().equals("prepareStatement") && ((String) a[0]).startsWith("UPDATE") && fail.get()) {
				throw new SQLException("connection lost writing the outcomes (simulated)", "08006");
			}
			return invoke(m, connection, a);
		});
	}

	private DataSource countingCommits(DataSource pool, AtomicInteger commits) {
		return intercepting(pool, (connection) -> (p, m, a) -> {
			if (m.getName().equals("commit")) {
				commits.incrementAndGet();
			}
			Object made = invoke(m, connection, a);
			if (made instanceof java.sql.PreparedStatement statement) {
				// a statement run in auto-commit mode is a transaction of its own: a commit
				return java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
						new Class<?>[] { java.sql.PreparedStatement.class }, (sp, sm, sa) -> {
							if (sm.getName().startsWith("execute") && connection.getAutoCommit()) {
								commits.incrementAndGet();
							}
							return invoke(sm, statement, sa);
						});
			}
			return made;
		});
	}

	private static DataSource intercepting(DataSource pool,
			java.util.function.Function<Connection, java.lang.reflect.InvocationHandler> handler) {
		return Intercepted.connections(pool, handler);
	}

	private static Object invoke(java.lang.reflect.Method method, Object target, Object[] args) throws Throwable {
		return Intercepted.invoke(method, target, args);
	}

	@Test
	void severalDispatcherThreadsSendAtTheSameTimeAndEachMessageOnce() {
		AtomicInteger sending = new AtomicInteger();
		AtomicInteger mostAtOnce = new AtomicInteger();
		List<String> sentKeys = new CopyOnWriteArrayList<>();
		// a lease long enough for a starved machine: this test is about concurrent sends, not expiry
		DeliveryGuard guard = guard("a", pool()).leaseTime(Duration.ofSeconds(20)).destination(DeliveryDestination.of(this.destination, (delivery) -> {
			mostAtOnce.accumulateAndGet(sending.incrementAndGet(), Math::max);
			try {
				Thread.sleep(20); // a slow destination
				sentKeys.add(delivery.idempotencyKey());
			}
			finally {
				sending.decrementAndGet();
			}
		})).build();
		for (int i = 0; i < 60; i++) {
			guard.store(this.destination, "key-" + i, "payload " + i);
		}
		try (DeliveryDispatcher dispatcher = new DeliveryDispatcher(guard, 4, 10, Duration.ofMillis(50), Duration.ofSeconds(1))) {
			assertThat(dispatcher.threads()).isEqualTo(4);
			dispatcher.start();
			Awaitility.await().atMost(Duration.ofSeconds(30))
				.until(() -> guard.admin().entries(DeliveryState.DELIVERED, 1000).stream()
					.filter((entry) -> entry.destination().equals(this.destination)).count() == 60);
		}
		assertThat(sentKeys).hasSize(60).doesNotHaveDuplicates();
		assertThat(mostAtOnce.get()).as("sends under way at the same time").isGreaterThan(1);
	}

	static final class CountingListener implements DeliveryListener {

		final LongAdder delivered = new LongAdder();

		final LongAdder retries = new LongAdder();

		final LongAdder dead = new LongAdder();

		final LongAdder inDoubt = new LongAdder();

		final LongAdder rejected = new LongAdder();

		@Override
		public void onDelivered(String destination) {
			this.delivered.increment();
		}

		@Override
		public void onRetryScheduled(String destination) {
			this.retries.increment();
		}

		@Override
		public void onDead(String destination) {
			this.dead.increment();
		}

		@Override
		public void onInDoubt(String destination, int count) {
			this.inDoubt.add(count);
		}

		@Override
		public void onFenceRejected(String destination) {
			this.rejected.increment();
		}

	}

	/** A data source that fails every request once switched off, as a crashed instance would. */
	static final class SwitchableDataSource implements DataSource {

		final AtomicBoolean broken = new AtomicBoolean();

		private final DataSource delegate;

		SwitchableDataSource(DataSource delegate) {
			this.delegate = delegate;
		}

		@Override
		public Connection getConnection() throws SQLException {
			if (this.broken.get()) {
				throw new SQLException("connection refused (simulated crash)", "08001");
			}
			return this.delegate.getConnection();
		}

		@Override
		public Connection getConnection(String username, String password) throws SQLException {
			return getConnection();
		}

		@Override
		public PrintWriter getLogWriter() throws SQLException {
			return this.delegate.getLogWriter();
		}

		@Override
		public void setLogWriter(PrintWriter out) throws SQLException {
			this.delegate.setLogWriter(out);
		}

		@Override
		public void setLoginTimeout(int seconds) throws SQLException {
			this.delegate.setLoginTimeout(seconds);
		}

		@Override
		public int getLoginTimeout() throws SQLException {
			return this.delegate.getLoginTimeout();
		}

		@Override
		public Logger getParentLogger() {
			return Logger.getGlobal();
		}

		@Override
		public <T> T unwrap(Class<T> type) throws SQLException {
			return this.delegate.unwrap(type);
		}

		@Override
		public boolean isWrapperFor(Class<?> type) throws SQLException {
			return this.delegate.isWrapperFor(type);
		}

	}

}
