package dev.polling.jdbc;

import org.junit.jupiter.api.Test;

import dev.polling.jdbc.test.TestDatabase;
import dev.polling.jdbc.test.TestDatabases;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link SchemaMigrationContractTest} on PostgreSQL. */
class PostgresSchemaMigrationTest extends SchemaMigrationContractTest {

	PostgresSchemaMigrationTest() {
		super(Dialect.POSTGRESQL);
	}

	@Test
	void versionThreeDropsTheUnusedOpenMessageIndexOfTheQueue() {
		TestDatabase database = TestDatabases.create(Dialect.POSTGRESQL);
		String index = "SELECT COUNT(*) FROM pg_indexes WHERE tablename = 'polling_queue' AND indexname = 'polling_queue_open_idx'";
		Schema.migrate(database.newDataSource());
		assertThat(database.queryForLong(index)).isZero();
		// a database at version 2 has it; version 3 removes it, and the queue's other indexes stay
		database.execute("CREATE INDEX polling_queue_open_idx ON polling_queue (queue, business_key, state, id) "
				+ "WHERE state IN ('NEW', 'IN_PROGRESS', 'FAILED', 'DEAD')", "DELETE FROM polling_schema_version WHERE version >= 3");
		assertThat(database.queryForLong(index)).isOne();
		assertThat(Schema.migrate(database.newDataSource())).isEqualTo(new Schema.Outcome(2, Schema.latestVersion(), false));
		assertThat(database.queryForLong(index)).isZero();
		assertThat(database.queryForLong("SELECT COUNT(*) FROM pg_indexes WHERE tablename = 'polling_queue'")).isEqualTo(6);
	}

	@Test
	void versionFourAddsThePartialIndexOfDeadMessages() {
		TestDatabase database = TestDatabases.create(Dialect.POSTGRESQL);
		String index = "SELECT indexdef FROM pg_indexes WHERE tablename = 'polling_queue' AND indexname = 'polling_queue_dead_idx'";
		Schema.migrate(database.newDataSource());
		assertThat(database.queryForString(index)).endsWith("(queue, id) WHERE ((state)::text = 'DEAD'::text)");
		// a database at version 3 lacks it; version 4 adds it
		database.execute("DROP INDEX polling_queue_dead_idx", "DELETE FROM polling_schema_version WHERE version = 4");
		assertThat(Schema.migrate(database.newDataSource())).isEqualTo(new Schema.Outcome(3, 4, false));
		assertThat(database.queryForString(index)).contains("polling_queue_dead_idx");
	}

}
