package dev.polling.jdbc.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.Schema;
import dev.polling.jdbc.TableNames;
import dev.polling.jdbc.queue.NewMessage;
import dev.polling.jdbc.queue.QueueProtocol;
import dev.polling.jdbc.queue.WorkQueue;
import dev.polling.jdbc.test.StatementLog;
import dev.polling.jdbc.test.TestDatabase;
import dev.polling.jdbc.test.TestDatabases;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * On PostgreSQL with its own driver, what goes to the server per message: a round of single sends
 * is one lone claim, then one execution per message carrying its {@code DELIVERED} and the next
 * claim; a round of batches one execution per batch; a queue claim one statement. None of them opens
 * a transaction of the library's own (no {@code commit()} call): each execution commits by itself,
 * so that a change which silently fell back to a transaction per write (three round trips instead
 * of one) fails here rather than only in a benchmark.
 */
class PostgresRoundTripsTest {

	private final TestDatabase database = TestDatabases.postgresql();

	private final StatementLog log = new StatementLog(this.database.newDataSource());

	private final List<Delivery> sent = new CopyOnWriteArrayList<>();

	@BeforeEach
	void schema() {
		Schema.migrate(this.database.newDataSource(), Dialect.POSTGRESQL, TableNames.defaults());
	}

	@Test
	void aRoundOfSingleSendsIsOneExecutionPerMessage() {
		List<String> statements = statementsOfDelivering(DeliveryDestination.of("single", this.sent::add), 5, 10);
		assertThat(statements).hasSize(6);
		assertThat(statements.get(0)).startsWith("UPDATE polling_delivery SET state = 'SENDING'").doesNotContain("; ");
		assertThat(statements.subList(1, 6)).allSatisfy((sql) -> assertThat(sql).contains("; UPDATE polling_delivery SET state = 'SENDING'")
			.startsWith("UPDATE polling_delivery SET state = ?"));
		assertThat(this.log.commits()).as("transactions of the library's own").isZero();
		assertThat(this.sent).hasSize(5);
		assertThat(this.database.queryForLong("SELECT COUNT(*) FROM polling_delivery WHERE state = 'DELIVERED'")).isEqualTo(5);
	}

	@Test
	void aRoundOfBatchesIsOneExecutionPerBatch() {
		List<String> statements = statementsOfDelivering(DeliveryDestination.idempotent("batched", this.sent::add).withBatchClaims(10), 25, 25);
		// the first claim; two records each with the next claim; the last record alone (the limit is reached)
		assertThat(statements).hasSize(4);
		assertThat(statements.get(0)).startsWith("UPDATE polling_delivery SET state = 'SENDING'").doesNotContain("; ");
		assertThat(statements.subList(1, 3)).allSatisfy((sql) -> assertThat(sql).startsWith(
				"UPDATE polling_delivery SET state = 'DELIVERED'").contains("; UPDATE polling_delivery SET state = 'SENDING'"));
		assertThat(statements.get(3)).startsWith("UPDATE polling_delivery SET state = 'DELIVERED'").doesNotContain("; ");
		assertThat(this.log.commits()).as("transactions of the library's own").isZero();
		assertThat(this.database.queryForLong("SELECT COUNT(*) FROM polling_delivery WHERE state = 'DELIVERED'")).isEqualTo(25);
	}

	/**
	 * A locked batch is two executions: the locking read (with the {@code BEGIN} the driver sends
	 * before it and the transaction's planner setting), and the batch's {@code DELIVERED} sent with the {@code COMMIT}; the library's
	 * {@code commit()} then finds nothing to send.
	 */
	@Test
	void aLockedBatchIsTwoExecutionsTheLastWithItsCommit() {
		List<String> statements = statementsOfDelivering(DeliveryDestination.idempotent("locked", this.sent::add).withLockedBatches(10), 20, 20);
		assertThat(statements).hasSize(4);
		for (int batch = 0; batch < 2; batch++) {
			assertThat(statements.get(2 * batch)).startsWith("SET LOCAL enable_seqscan = off; SELECT id, destination")
				.endsWith("FOR UPDATE SKIP LOCKED");
			assertThat(statements.get(2 * batch + 1)).startsWith("UPDATE polling_delivery SET state = 'DELIVERED'")
				.endsWith("; COMMIT");
		}
		assertThat(this.sent).hasSize(20);
		assertThat(this.database.queryForLong("SELECT COUNT(*) FROM polling_delivery WHERE state = 'DELIVERED'")).isEqualTo(20);
	}

	/**
	 * Stores the messages for the destination (named as its messages' keys begin), delivers them in one
	 * round of the limit, and returns the statements of that round.
	 */
	private List<String> statementsOfDelivering(DeliveryDestination destination, int messages, int limit) {
		DeliveryGuard guard = DeliveryGuard.builder(this.log.dataSource()).instanceId("a").destination(destination).build();
		for (int i = 0; i < messages; i++) {
			guard.store(destination.name(), destination.name() + "-" + i, "payload");
		}
		this.log.clear();
		assertThat(guard.deliverDue(destination.name(), limit)).isEqualTo(messages);
		return this.log.statements();
	}

	@Test
	void aQueueClaimIsOneStatementCommittedByItself() {
		WorkQueue queue = WorkQueue.builder(this.log.dataSource()).dialect(Dialect.POSTGRESQL).instanceId("a").build();
		List<NewMessage> messages = new ArrayList<>();
		for (int i = 0; i < 10; i++) {
			messages.add(new NewMessage(null, "payload " + i));
		}
		queue.enqueueAll("claims", messages);
		this.log.clear();
		assertThat(QueueProtocol.claim(queue, "claims", 10)).hasSize(10);
		assertThat(this.log.statements()).hasSize(1);
		assertThat(this.log.commits()).isZero();
		assertThat(this.database.queryForLong("SELECT COUNT(*) FROM polling_queue WHERE state = 'IN_PROGRESS'")).isEqualTo(10);
	}

}
