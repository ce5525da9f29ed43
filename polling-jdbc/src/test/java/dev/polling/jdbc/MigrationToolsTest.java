package dev.polling.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.polling.jdbc.test.DatabaseTest;
import dev.polling.jdbc.test.SchemaSnapshot;
import dev.polling.jdbc.test.TestDatabase;
import dev.polling.jdbc.test.TestDatabases;
import java.sql.Connection;
import java.util.List;
import java.util.Map;
import liquibase.Liquibase;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.resource.ClassLoaderResourceAccessor;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

/**
 * The migration scripts run by Flyway and by Liquibase, as docs/database.md tells applications
 * that manage their schema with them, give the tables {@link Schema#migrate} gives, on a fresh
 * database and on the tables of 0.1.0 (PostgreSQL).
 */
class MigrationToolsTest extends DatabaseTest {

	private static final String FLYWAY_HISTORY = "polling_flyway_history";

	MigrationToolsTest() {
		super(Dialect.POSTGRESQL);
	}

	@Test
	void flywayGivesTheTablesOfOurMigrator() {
		TestDatabase database = TestDatabases.postgresql();
		flyway(database).migrate();
		assertThat(snapshot(database)).isEqualTo(ourSnapshot());
		assertThat(database.queryForLong("SELECT COUNT(*) FROM " + FLYWAY_HISTORY + " WHERE success AND version IS NOT NULL"))
			.isEqualTo(Schema.migrations().size());
	}

	@Test
	void flywayUpgradesTheTablesOf010WithBaselineVersion0() {
		TestDatabase database = TestDatabases.postgresql();
		SchemaMigrationContractTest.applyVersion1Only(database);
		database.execute("INSERT INTO polling_queue (queue, business_key, payload, state, max_attempts, available_at, "
				+ "enqueued_at) VALUES ('orders', 'k', 'p', 'NEW', 3, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP), "
				+ "('orders', 'k', 'p', 'NEW', 3, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)");
		flyway(database).migrate();
		assertThat(snapshot(database)).isEqualTo(ourSnapshot());
		assertThat(database.queryForLong("SELECT open_count FROM polling_queue_key WHERE business_key = 'k'")).isEqualTo(2);
		assertThat(database.queryForLong("SELECT COUNT(*) FROM polling_queue WHERE state = 'BLOCKED'")).isEqualTo(1);
	}

	@Test
	void liquibaseGivesTheTablesOfOurMigrator() throws Exception {
		TestDatabase database = TestDatabases.postgresql();
		try (Connection connection = database.connect()) {
			Database target = DatabaseFactory.getInstance().findCorrectDatabaseImplementation(new JdbcConnection(connection));
			try (Liquibase liquibase = new Liquibase("dev/polling/jdbc/migration/changelog.xml",
					new ClassLoaderResourceAccessor(), target)) {
				liquibase.update();
			}
		}
		assertThat(snapshot(database)).isEqualTo(ourSnapshot());
	}

	private static Flyway flyway(TestDatabase database) {
		// as docs/database.md says: our own history table, the prefix as a placeholder, a baseline below
		// version 1 for a schema that already holds other tables (or polling's of 0.1.0)
		return Flyway.configure()
			.dataSource(database.url(), database.username(), database.password())
			.locations("classpath:" + Dialect.POSTGRESQL.migrationLocation())
			.table(FLYWAY_HISTORY)
			.placeholders(Map.of("prefix", "polling_"))
			.baselineOnMigrate(true)
			.baselineVersion("0")
			.load();
	}

	private static List<String> ourSnapshot() {
		TestDatabase ours = TestDatabases.postgresql();
		Schema.migrate(ours.newDataSource());
		return snapshot(ours);
	}

	private static List<String> snapshot(TestDatabase database) {
		return SchemaSnapshot.of(database, (table) -> table.equals("polling_schema_version")
				|| table.equals(FLYWAY_HISTORY) || table.startsWith("databasechangelog"));
	}

}
