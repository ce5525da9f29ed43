package dev.polling.jdbc.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.Schema;
import dev.polling.jdbc.TableNames;
import dev.polling.jdbc.internal.LeasedRows;
import dev.polling.jdbc.test.QueryPlans;
import dev.polling.jdbc.test.StatementLog;
import dev.polling.jdbc.test.TestDatabase;
import dev.polling.jdbc.test.TestDatabases;
import java.sql.Connection;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A locked batch's statements are not planned per execution: PostgreSQL may make one generic plan
 * for them and reuse it for good. Such a plan made while the table was empty and never analyzed
 * would read it sequentially (and keep doing so as it grows); the batch's transaction therefore
 * turns sequential scans off first. Checked with the statements the guard actually sent, under the
 * statistics a table can have: empty and never analyzed, analyzed while nearly empty and then
 * filled, and analyzed full of delivered messages.
 */
class PostgresLockedBatchPlanTest {

	@Test
	void aLockedBatchsStatementsGoThroughIndexesUnderGenericPlansWhateverTheStatistics() throws Exception {
		TestDatabase database = withoutAutovacuum();
		StatementLog log = new StatementLog(database.newDataSource());
		DeliveryGuard guard = DeliveryGuard.builder(log.dataSource()).instanceId("sender")
			.destination(DeliveryDestination.idempotent("locked", (delivery) -> {
				if (delivery.idempotencyKey().endsWith("-2")) {
					throw new NotDeliveredException("refused");
				}
			}).withLockedBatches(10))
			.build();
		guard.store("locked", "locked-1", "payload");
		guard.store("locked", "locked-2", "payload");
		log.clear();
		assertThat(guard.deliverDue("locked", 10)).isEqualTo(2);
		List<String> sent = log.statements().stream().flatMap((sql) -> Arrays.stream(sql.split("; "))).toList();
		assertThat(sent.get(0)).as("the transaction's first statement").isEqualTo(LeasedRows.INDEXES_ONLY);
		String lock = sent.get(1);
		assertThat(lock).startsWith("SELECT").endsWith("FOR UPDATE SKIP LOCKED");
		List<String> writes = sent.stream().filter((sql) -> sql.startsWith("UPDATE")).toList();
		assertThat(writes).as("the failure, then DELIVERED").hasSize(2);

		database.execute("TRUNCATE polling_delivery");
		assertIndexesOnly(database, lock, writes, "empty, never analyzed");

		database.execute("ANALYZE polling_delivery");
		// what the setting prevents: analyzed while empty, the plans read the whole table (and sort it)
		assertThat(QueryPlans.genericPlan(database, lock)).as("without the setting").contains("Seq Scan").contains("Sort");
		assertThat(writes).allSatisfy((write) -> assertThat(QueryPlans.genericPlan(database, write)).as("without the setting")
			.contains("Seq Scan"));
		assertIndexesOnly(database, lock, writes, "analyzed while empty");

		fill(database, guard, 20_000);
		assertIndexesOnly(database, lock, writes, "analyzed while empty, then filled with 20,000 due messages");

		database.execute("UPDATE polling_delivery SET state = 'DELIVERED'", "ANALYZE polling_delivery");
		fill(database, guard, 10);
		assertIndexesOnly(database, lock, writes, "20,000 delivered messages analyzed, 10 due");
	}

	private static void fill(TestDatabase database, DeliveryGuard guard, int messages) throws Exception {
		try (Connection connection = database.connect()) {
			connection.setAutoCommit(false);
			for (int i = 0; i < messages; i++) {
				guard.store(connection, "locked", "fill-" + System.nanoTime() + "-" + i, "payload");
			}
			connection.commit();
		}
	}

	private static void assertIndexesOnly(TestDatabase database, String lock, List<String> writes, String table)
			throws Exception {
		String plan = QueryPlans.genericPlan(database, lock, LeasedRows.INDEXES_ONLY);
		assertThat(plan).as("generic plan of the locking read, table %s:%n%s", table, plan)
			.contains("polling_delivery_ready_idx")
			.doesNotContain("Seq Scan")
			.doesNotContain("Sort");
		for (String write : writes) {
			String written = QueryPlans.genericPlan(database, write, LeasedRows.INDEXES_ONLY);
			assertThat(written).as("generic plan of %s, table %s:%n%s", write, table, written)
				.contains("polling_delivery_pk")
				.doesNotContain("Seq Scan");
		}
	}

	/** PostgreSQL with the schema, its statistics of the delivery table only what a test makes them (no autovacuum). */
	static TestDatabase withoutAutovacuum() {
		TestDatabase database = TestDatabases.postgresql();
		Schema.migrate(database.newDataSource(), Dialect.POSTGRESQL, TableNames.defaults());
		database.execute("ALTER TABLE polling_delivery SET (autovacuum_enabled = false)");
		return database;
	}

}
