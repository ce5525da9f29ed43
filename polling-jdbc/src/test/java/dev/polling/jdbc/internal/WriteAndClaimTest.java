package dev.polling.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.Schema;
import dev.polling.jdbc.TableNames;
import dev.polling.jdbc.test.TestDatabase;
import dev.polling.jdbc.test.TestDatabases;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link LeasedRows#writeAndClaim} sends a write and a claim to PostgreSQL in one execution: they
 * must commit together or not at all, in every query mode of PostgreSQL's driver. A trigger refuses
 * the claim's update of rows claimed by the owner {@code refused}, i.e. after the write has run: the
 * write must not be committed then. Sent as two auto-committed executions, the write would stay
 * (as it did in the driver's {@code simple} mode, which sends the statements one by one: there the
 * library uses a transaction of its own instead).
 */
class WriteAndClaimTest {

	private static final String WRITE = "UPDATE polling_queue SET last_error = ? WHERE id = ?";

	@ParameterizedTest
	@ValueSource(strings = { "extended", "simple", "extendedForPrepared" })
	void theWriteAndTheClaimCommitTogetherOrNotAtAll(String queryMode) throws Exception {
		TestDatabase database = TestDatabases.postgresql();
		Schema.migrate(database.newDataSource(), Dialect.POSTGRESQL, TableNames.defaults());
		database.execute(
				"INSERT INTO polling_queue (queue, payload, state, max_attempts, available_at, enqueued_at) "
						+ "VALUES ('written', 'w', 'IN_PROGRESS', 3, now(), now()), ('q', 'r', 'NEW', 3, now(), now())",
				"CREATE FUNCTION refuse_claim() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
						+ "RAISE EXCEPTION 'claim refused by the test'; END $$",
				"CREATE TRIGGER refuse_claim BEFORE UPDATE ON polling_queue FOR EACH ROW "
						+ "WHEN (NEW.owner = 'refused') EXECUTE FUNCTION refuse_claim()");
		long written = database.queryForLong("SELECT id FROM polling_queue WHERE queue = 'written'");
		LeasedRows rows = new LeasedRows(Dialect.POSTGRESQL, "polling_queue", "queue", "NEW", "FAILED", "IN_PROGRESS",
				"id, fence");
		try (Connection connection = DriverManager.getConnection(database.url() + (database.url().contains("?") ? "&" : "?") + "preferQueryMode=" + queryMode,
				database.username(), database.password())) {
			try {
				LeasedRows.WriteAndClaim<Long> refused = rows.writeAndClaim(connection, WRITE, 2, (statement) -> {
					statement.setString(1, "written with a refused claim");
					statement.setLong(2, written);
				}, "q", "refused", 30_000, 10, (result) -> result.getLong(1));
				assertThat(refused).as("sent in %s mode", queryMode).isNull();
				assertThat(queryMode).isEqualTo("simple");
				return;
			}
			catch (SQLException ex) {
				assertThat(ex.getMessage()).contains("claim refused by the test");
			}
			assertThat(database.queryForLong("SELECT COUNT(*) FROM polling_queue WHERE last_error IS NOT NULL"))
				.as("the write sent with a claim that failed (%s)", queryMode).isZero();
			assertThat(database.queryForLong("SELECT COUNT(*) FROM polling_queue WHERE state = 'NEW'")).isOne();

			LeasedRows.WriteAndClaim<Long> done = rows.writeAndClaim(connection, WRITE, 2, (statement) -> {
				statement.setString(1, "written");
				statement.setLong(2, written);
			}, "q", "instance-1", 30_000, 10, (result) -> result.getLong(1));
			assertThat(done).isNotNull();
			assertThat(done.updated()).isOne();
			assertThat(done.claimed()).hasSize(1);
			assertThat(database.queryForLong("SELECT COUNT(*) FROM polling_queue WHERE last_error = 'written'")).isOne();
			assertThat(database.queryForLong(
					"SELECT COUNT(*) FROM polling_queue WHERE state = 'IN_PROGRESS' AND owner = 'instance-1'")).isOne();
			assertThat(connection.getAutoCommit()).isTrue();
		}
	}

	@ParameterizedTest
	@ValueSource(booleans = { true, false })
	void notDoneWhereItWouldNotBeOneTransactionAtReadCommitted(boolean inTransaction) throws Exception {
		TestDatabase database = TestDatabases.postgresql();
		Schema.migrate(database.newDataSource(), Dialect.POSTGRESQL, TableNames.defaults());
		LeasedRows rows = new LeasedRows(Dialect.POSTGRESQL, "polling_queue", "queue", "NEW", "FAILED", "IN_PROGRESS",
				"id, fence");
		try (Connection connection = database.connect()) {
			if (inTransaction) {
				connection.setAutoCommit(false);
			}
			else {
				connection.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
			}
			LeasedRows.WriteAndClaim<Long> done = rows.writeAndClaim(connection, WRITE, 2, (statement) -> {
				statement.setString(1, "never");
				statement.setLong(2, 1);
			}, "q", "instance-1", 30_000, 10, (result) -> result.getLong(1));
			assertThat(done).isNull();
			assertThat(List.of(connection.getAutoCommit())).containsExactly(!inTransaction);
		}
	}

}
