package dev.polling.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.polling.jdbc.test.DatabaseTest;
import dev.polling.jdbc.test.LockWaits;
import dev.polling.jdbc.test.TestDatabase;
import dev.polling.jdbc.test.TestDatabases;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
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

	private static void migrate(javax.sql.DataSource dataSource) {
		Schema.migrate(dataSource, Dialect.detect(dataSource), TableNames.defaults());
	}

}
