package dev.polling.jdbc.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.Schema;
import dev.polling.jdbc.TableNames;
import dev.polling.jdbc.test.QueryPlans;
import dev.polling.jdbc.test.StatementLog;
import dev.polling.jdbc.test.TestDatabase;
import dev.polling.jdbc.test.TestDatabases;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A claim on PostgreSQL right after a bulk enqueue, while the table's statistics still describe it
 * as holding no ready row (autovacuum had not analysed it yet; here it is switched off so that the
 * statistics stay stale). With the locking pick written as {@code id IN (SELECT ... LIMIT n FOR
 * UPDATE SKIP LOCKED)} the planner chose a nested-loop semi join that ran the pick once per ready
 * row: one claim of 10 ran for 257 s and claimed all 20,000 ready rows (seen in the queue benchmark,
 * reproduced here). The pick must run once and a claim must take what it asked for.
 */
class PostgresStaleStatisticsClaimTest {

	private static final Pattern LOCK_ROWS_LOOPS = Pattern.compile("LockRows .*loops=(\\d+)");

	@Test
	void aClaimTakesItsLimitAndRunsTheLockingPickOnceWhenTheStatisticsPredateABulkEnqueue() throws Exception {
		TestDatabase database = TestDatabases.postgresql();
		Schema.migrate(database.newDataSource(), Dialect.POSTGRESQL, TableNames.defaults());
		// a claim that runs away fails the test in 30 s instead of minutes
		database.execute("ALTER TABLE polling_queue SET (autovacuum_enabled = false)",
				"DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET statement_timeout = %L', current_database(), '30s'); END $$");
		WorkQueue producer = WorkQueue.builder(database.newDataSource()).instanceId("producer").build();
		for (int q = 0; q < 4; q++) {
			producer.enqueueAll("old-" + q, messages(2000));
		}
		// the statistics: every row finished, none ready
		database.execute("UPDATE polling_queue SET state = 'DONE'", "ANALYZE polling_queue");
		for (int i = 0; i < 20; i++) {
			producer.enqueueAll("fresh", messages(1000));
		}

		StatementLog log = new StatementLog(database.newDataSource());
		WorkQueue queue = WorkQueue.builder(log.dataSource()).instanceId("worker").build();
		List<QueueMessage> claimed = queue.claim("fresh", 10);
		assertThat(claimed).hasSize(10);
		assertThat(database.queryForLong("SELECT COUNT(*) FROM polling_queue WHERE state = 'IN_PROGRESS'")).isEqualTo(10);

		// the plan of the statement the claim sent: the locking pick runs once
		String claim = log.statements().stream().filter((sql) -> sql.startsWith("UPDATE")).findFirst().orElseThrow();
		String plan = explainAnalyze(database, claim);
		Matcher lockRows = LOCK_ROWS_LOOPS.matcher(plan);
		assertThat(lockRows.find()).as("a LockRows node in%n%s", plan).isTrue();
		assertThat(lockRows.group(1)).as("executions of the locking pick in%n%s", plan).isEqualTo("1");
		// and the update finds the picked rows by primary key, not by reading every ready row again
		assertThat(plan).as("the update's access path in%n%s", plan).containsPattern("(using|on) polling_queue_pk")
			.doesNotContainPattern("Rows Removed by Filter: \\d{3,}");
	}

	/**
	 * Statistics made while no message was in progress, then 20,000 in progress: a generic plan of a
	 * fenced write (what the server reuses once the driver prepared the statement) must still find
	 * the row by primary key. With {@code state = 'IN_PROGRESS'} in the condition the planner could
	 * prove the lease index's predicate and chose a full scan of that index (estimated empty),
	 * reading every message in progress per write.
	 */
	@Test
	void everyFencedWriteGoesByPrimaryKeyUnderAGenericPlanMadeWhileNoMessageWasInProgress() throws Exception {
		TestDatabase database = TestDatabases.postgresql();
		Schema.migrate(database.newDataSource(), Dialect.POSTGRESQL, TableNames.defaults());
		database.execute("ALTER TABLE polling_queue SET (autovacuum_enabled = false)");
		WorkQueue producer = WorkQueue.builder(database.newDataSource()).instanceId("producer").build();
		for (int i = 0; i < 20; i++) {
			producer.enqueueAll("busy", messages(1000));
		}
		producer.enqueueAll("work", messages(8));
		database.execute("UPDATE polling_queue SET state = 'DONE' WHERE queue = 'busy'", "ANALYZE polling_queue",
				"UPDATE polling_queue SET state = 'IN_PROGRESS', owner = 'other', fence = 1, lease_until = "
						+ "CURRENT_TIMESTAMP + INTERVAL '1 hour' WHERE queue = 'busy'");

		StatementLog log = new StatementLog(database.newDataSource());
		for (boolean deleteWhenDone : new boolean[] { false, true }) {
			WorkQueue queue = WorkQueue.builder(log.dataSource()).instanceId("worker").deleteWhenDone(deleteWhenDone).build();
			List<QueueMessage> claimed = queue.claim("work", 4);
			assertThat(claimed).hasSize(4);
			queue.complete(claimed.get(0));
			queue.fail(claimed.get(1), new IllegalStateException("handler failed"));
			queue.postpone(claimed.get(2), new IllegalStateException("deadlock"));
			queue.release(claimed.get(3));
		}
		List<String> fencedWrites = log.statements().stream()
			.filter((sql) -> (sql.startsWith("UPDATE") || sql.startsWith("DELETE")) && sql.contains("fence = ?"))
			.distinct()
			.toList();
		assertThat(fencedWrites).as("complete (marking DONE and deleting), fail, postpone, release").hasSize(5);
		QueryPlans.assertGenericPlansGoByPrimaryKey(database, fencedWrites, "polling_queue_pk", "polling_queue_lease_idx");
	}

	private static List<NewMessage> messages(int count) {
		List<NewMessage> messages = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			messages.add(new NewMessage(null, "payload " + i));
		}
		return messages;
	}

	/** The claim under EXPLAIN ANALYZE with custom plans, as the library runs it, rolled back. */
	private static String explainAnalyze(TestDatabase database, String claim) throws Exception {
		StringBuilder plan = new StringBuilder();
		try (Connection connection = database.connect()) {
			connection.setAutoCommit(false);
			try (PreparedStatement set = connection.prepareStatement("SET LOCAL plan_cache_mode = force_custom_plan")) {
				set.execute();
			}
			try (PreparedStatement statement = connection.prepareStatement("EXPLAIN (ANALYZE, FORMAT TEXT) " + claim)) {
				statement.setString(1, "explain");
				statement.setLong(2, 30_000);
				statement.setString(3, "fresh");
				statement.setInt(4, 10);
				try (ResultSet result = statement.executeQuery()) {
					while (result.next()) {
						plan.append(result.getString(1)).append('\n');
					}
				}
			}
			finally {
				connection.rollback();
			}
		}
		return plan.toString();
	}

}
