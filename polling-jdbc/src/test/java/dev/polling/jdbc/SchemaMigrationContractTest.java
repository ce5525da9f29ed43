package dev.polling.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import dev.polling.jdbc.inbox.Inbox;
import dev.polling.jdbc.inbox.Receipt;
import dev.polling.jdbc.jobs.JobProtocol;
import dev.polling.jdbc.jobs.JobScheduler;
import dev.polling.jdbc.queue.QueueMessage;
import dev.polling.jdbc.queue.QueueProtocol;
import dev.polling.jdbc.queue.WorkQueue;
import dev.polling.jdbc.test.DatabaseTest;
import dev.polling.jdbc.test.LockWaits;
import dev.polling.jdbc.test.SchemaSnapshot;
import dev.polling.jdbc.test.StatementLog;
import dev.polling.jdbc.test.TestDatabase;
import dev.polling.jdbc.test.TestDatabases;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The versioned migrations on every database ({@link PostgresSchemaMigrationTest},
 * {@link MariaDbSchemaMigrationTest}, {@link H2SchemaMigrationTest}): fresh install, upgrade from
 * the 0.1.0 tables, a current schema costing one read and no lock, concurrent migrators, a newer
 * schema refused.
 */
abstract class SchemaMigrationContractTest extends DatabaseTest {

	SchemaMigrationContractTest(Dialect dialect) {
		super(dialect);
	}

	private TestDatabase freshDatabase() {
		return TestDatabases.create(database().dialect());
	}

	@Test
	void aFreshDatabaseGetsEveryVersionAndASecondStartReadsOnce() {
		TestDatabase database = freshDatabase();
		Schema.Outcome first = Schema.migrate(database.newDataSource());
		assertThat(first).isEqualTo(new Schema.Outcome(0, Schema.latestVersion(), false));
		assertThat(database.queryForLong("SELECT COUNT(*) FROM polling_schema_version WHERE version > 0"))
			.isEqualTo(Schema.migrations().size());
		assertThat(database.queryForLong("SELECT COUNT(*) FROM polling_queue_key")).isZero();

		StatementLog log = new StatementLog(database.newDataSource());
		Schema.Outcome second = Schema.migrate(log.dataSource(), database.dialect(), TableNames.defaults());
		assertThat(second.migrated()).isFalse();
		assertThat(second.toVersion()).isEqualTo(Schema.latestVersion());
		assertThat(log.statements()).as("statements sent with a current schema")
			.containsExactly("SELECT MAX(version) FROM polling_schema_version");
	}

	@Test
	void tablesOf010WithoutAVersionTableAreUpgradedAndTheirRowsStayUsable() throws SQLException {
		TestDatabase database = freshDatabase();
		applyVersion1Only(database);
		long k1First = insert010Message(database, "k1", "NEW");
		long k1Second = insert010Message(database, "k1", "NEW");
		insert010Message(database, "k1", "NEW");
		long unkeyed = insert010Message(database, null, "NEW");
		insert010Message(database, "k2", "DONE");
		try (Connection connection = database.connect();
				PreparedStatement job = connection.prepareStatement("INSERT INTO polling_job (queue, business_id, "
						+ "unique_key, payload, state, due_at, created_at, dispatched_at) VALUES ('follow-ups', ?, ?, "
						+ "'p', ?, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, ?)")) {
			job.setString(1, "dispatched");
			job.setString(2, "follow-ups\u001fdispatched");
			job.setString(3, "DISPATCHED");
			job.setTimestamp(4, new java.sql.Timestamp(System.currentTimeMillis()));
			job.executeUpdate();
			job.setString(1, "due");
			job.setString(2, null);
			job.setString(3, "SCHEDULED");
			job.setTimestamp(4, null);
			job.executeUpdate();
		}
		database.execute("INSERT INTO polling_inbox (source, external_key, received_at) VALUES ('mail', 'm1', CURRENT_TIMESTAMP)");

		Schema.Outcome outcome = Schema.migrate(database.newDataSource());

		assertThat(outcome).isEqualTo(new Schema.Outcome(0, Schema.latestVersion(), true));
		assertThat(SchemaSnapshot.of(database, SchemaMigrationContractTest::isVersionTable))
			.as("the upgraded tables are those of a fresh install")
			.isEqualTo(freshSnapshot());
		assertThat(database.queryForLong("SELECT open_count FROM polling_queue_key WHERE queue = 'orders' "
				+ "AND business_key = 'k1'")).isEqualTo(3);
		assertThat(database.queryForLong("SELECT COUNT(*) FROM polling_queue_key")).isEqualTo(1);

		DataSource dataSource = database.newDataSource();
		WorkQueue queue = WorkQueue.builder(dataSource).build();
		List<QueueMessage> claimed = QueueProtocol.claim(queue, "orders", 10);
		assertThat(claimed).extracting(QueueMessage::id).containsExactlyInAnyOrder(k1First, unkeyed);
		QueueMessage head = claimed.stream().filter((message) -> message.id() == k1First).findFirst().orElseThrow();
		assertThat(QueueProtocol.complete(queue, head)).isEqualTo(FencedWrite.APPLIED);
		assertThat(QueueProtocol.claim(queue, "orders", 10)).extracting(QueueMessage::id).containsExactly(k1Second);

		JobScheduler jobs = JobScheduler.create(dataSource);
		assertThat(jobs.scheduleOnce("follow-ups", "dispatched", Duration.ofHours(1), "again"))
			.as("scheduleOnce of an id whose job 0.1.0 dispatched").isPresent();
		assertThat(JobProtocol.dispatchDue(jobs, queue, 10).dispatched()).isEqualTo(1);
		assertThat(Inbox.builder(dataSource).build().receive("mail", "m1")).isEqualTo(Receipt.DUPLICATE);
	}

	/**
	 * Version 2 run again on tables this version's code already uses (a development snapshot's, or
	 * a test that makes a restart apply an upgrade by deleting the record): keys, counts and states
	 * stay as they are.
	 */
	@Test
	void version2RunAgainLeavesTheQueueOfThisVersionAsItIs() {
		TestDatabase database = freshDatabase();
		DataSource dataSource = database.newDataSource();
		Schema.migrate(dataSource);
		WorkQueue queue = WorkQueue.builder(dataSource).build();
		for (int i = 0; i < 3; i++) {
			queue.enqueue("orders", "k1", "p" + i);
		}
		QueueMessage head = QueueProtocol.claim(queue, "orders", 10).get(0);
		assertThat(QueueProtocol.complete(queue, head)).isEqualTo(FencedWrite.APPLIED);
		String states = "SELECT COUNT(*) FROM polling_queue WHERE state = ";
		database.execute("DELETE FROM polling_schema_version WHERE version >= 2");

		assertThat(Schema.migrate(dataSource)).isEqualTo(new Schema.Outcome(1, Schema.latestVersion(), false));

		assertThat(database.queryForLong(states + "'NEW'")).isEqualTo(1);
		assertThat(database.queryForLong(states + "'BLOCKED'")).isEqualTo(1);
		assertThat(database.queryForLong("SELECT open_count FROM polling_queue_key WHERE business_key = 'k1'"))
			.isEqualTo(2);
	}

	@Test
	void concurrentMigratorsApplyEachVersionOnce() throws Exception {
		TestDatabase database = freshDatabase();
		int instances = 4;
		ExecutorService pool = Executors.newFixedThreadPool(instances);
		try {
			CountDownLatch start = new CountDownLatch(1);
			List<Future<Schema.Outcome>> outcomes = new ArrayList<>();
			for (int i = 0; i < instances; i++) {
				DataSource dataSource = database.newDataSource();
				outcomes.add(pool.submit(() -> {
					start.await();
					return Schema.migrate(dataSource);
				}));
			}
			start.countDown();
			List<Schema.Outcome> results = new ArrayList<>();
			for (Future<Schema.Outcome> outcome : outcomes) {
				results.add(outcome.get(5, TimeUnit.MINUTES));
			}
			assertThat(results).allSatisfy((outcome) -> assertThat(outcome.toVersion()).isEqualTo(Schema.latestVersion()));
			assertThat(results).filteredOn(Schema.Outcome::migrated).hasSize(1);
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(database.queryForLong("SELECT COUNT(*) FROM polling_schema_version WHERE version > 0"))
			.isEqualTo(Schema.migrations().size());
	}

	@Test
	void aSchemaNewerThanThisCodeKnowsIsRefusedWithOneMessage() {
		TestDatabase database = freshDatabase();
		Schema.migrate(database.newDataSource());
		int newer = Schema.latestVersion() + 1;
		database.execute("INSERT INTO polling_schema_version (version, description) VALUES (" + newer + ", 'future')");
		assertThatIllegalStateException().isThrownBy(() -> Schema.migrate(database.newDataSource()))
			.withMessageContaining("schema version " + newer + " (recorded in polling_schema_version)")
			.withMessageContaining("newer than the latest this polling-jdbc knows (" + Schema.latestVersion() + ")")
			.withMessageContaining("Run that polling version or newer");
	}

	@Test
	void aTablePrefixNamesEveryTableAndTheVersionTable() {
		TestDatabase database = freshDatabase();
		TableNames tables = new TableNames("app_");
		Schema.migrate(database.newDataSource(), database.dialect(), tables);
		assertThat(database.queryForLong("SELECT MAX(version) FROM app_schema_version")).isEqualTo(Schema.latestVersion());
		assertThat(database.queryForLong("SELECT COUNT(*) FROM app_queue_key")).isZero();
		assertThat(Schema.migrate(database.newDataSource(), database.dialect(), tables).migrated()).isFalse();
	}

	private List<String> freshSnapshot() {
		TestDatabase fresh = freshDatabase();
		Schema.migrate(fresh.newDataSource());
		return SchemaSnapshot.of(fresh, SchemaMigrationContractTest::isVersionTable);
	}

	static boolean isVersionTable(String table) {
		return table.equals("polling_schema_version");
	}

	/** The tables as polling 0.1.0 created them: version 1 only, no version table. */
	static void applyVersion1Only(TestDatabase database) {
		database.execute(Schema.statements(database.dialect(), Schema.migrations().get(0), TableNames.defaults())
			.toArray(String[]::new));
	}

	private static long insert010Message(TestDatabase database, String key, String state) {
		String finished = state.equals("DONE") ? "CURRENT_TIMESTAMP" : "NULL";
		database.execute("INSERT INTO polling_queue (queue, business_key, payload, state, max_attempts, available_at, "
				+ "enqueued_at, finished_at) VALUES ('orders', " + ((key != null) ? "'" + key + "'" : "NULL") + ", 'p', '"
				+ state + "', 3, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, " + finished + ")");
		return database.queryForLong("SELECT MAX(id) FROM polling_queue");
	}

	/**
	 * Issue 16, defect 5: with a current schema, a start must not queue behind business
	 * transactions. One transaction holds a queue row locked (FOR UPDATE), another has inserted
	 * rows into the queue, job, delivery and inbox tables without committing; the migrator runs on
	 * connections that give up waiting for a lock after 2 s. The create-on-start script
	 * (CREATE INDEX IF NOT EXISTS takes a SHARE lock on PostgreSQL even when the index exists)
	 * failed here.
	 */
	@Test
	void aCurrentSchemaIsCheckedWithoutWaitingForOpenTransactions() throws SQLException {
		TestDatabase database = freshDatabase();
		migrate(database.newDataSource());
		database.execute(insertQueueRow("locked"));
		long lockedId = database.queryForLong("SELECT id FROM polling_queue WHERE queue = 'locked'");
		try (Connection rowLock = database.connect(); Connection uncommitted = database.connect()) {
			// by primary key: a record lock only (InnoDB would lock the gaps of a secondary index range)
			rowLock.setAutoCommit(false);
			try (Statement statement = rowLock.createStatement();
					ResultSet rows = statement.executeQuery("SELECT id FROM polling_queue WHERE id = " + lockedId + " FOR UPDATE")) {
				assertThat(rows.next()).isTrue();
			}
			uncommitted.setAutoCommit(false);
			try (Statement statement = uncommitted.createStatement()) {
				statement.execute(insertQueueRow("uncommitted"));
				statement.execute("INSERT INTO polling_job (queue, business_id, payload, state, due_at, created_at) "
						+ "VALUES ('uncommitted', 'b', 'p', 'SCHEDULED', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)");
				statement.execute("INSERT INTO polling_delivery (destination, idempotency_key, payload, state, "
						+ "max_attempts, available_at, created_at) VALUES ('uncommitted', 'k', 'p', 'PENDING', 3, "
						+ "CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)");
				statement.execute("INSERT INTO polling_inbox (source, external_key, received_at) VALUES ('uncommitted', 'k', CURRENT_TIMESTAMP)");
			}

			migrate(LockWaits.bounded(database, Duration.ofSeconds(2)));

			rowLock.rollback();
			uncommitted.rollback();
		}
	}

	private static String insertQueueRow(String queue) {
		return "INSERT INTO polling_queue (queue, business_key, payload, state, max_attempts, available_at, enqueued_at) "
				+ "VALUES ('" + queue + "', NULL, 'p', 'NEW', 3, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)";
	}

	private static void migrate(DataSource dataSource) {
		Schema.migrate(dataSource, Dialect.detect(dataSource), TableNames.defaults());
	}

}
