package dev.polling.jdbc.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.Schema;
import dev.polling.jdbc.TableNames;
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
