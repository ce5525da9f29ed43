package dev.polling.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.polling.jdbc.DataAccessFailure;
import dev.polling.jdbc.test.TestDatabase;
import dev.polling.jdbc.test.TestDatabases;
import java.sql.SQLException;
import java.sql.SQLTransactionRollbackException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * A statement run by {@link Sql#inOneStatement} that the database rolled back (deadlock,
 * serialization failure) runs again, up to three times, like a transaction of
 * {@link Sql#inTransaction}; any other failure ends it at once. The claim and the write-and-claim
 * of the delivery guard run this way on PostgreSQL.
 */
class OneStatementRetryTest {

	private final TestDatabase database = TestDatabases.h2();

	private final DataSource dataSource = this.database.newDataSource();

	@Test
	void aStatementRolledBackByTheDatabaseRunsAgain() {
		AtomicInteger attempts = new AtomicInteger();
		String result = Sql.inOneStatement(this.dataSource, "claim", (connection) -> {
			if (attempts.incrementAndGet() == 1) {
				throw new SQLTransactionRollbackException("deadlock detected", "40P01");
			}
			assertThat(connection.getAutoCommit()).isTrue();
			return "claimed";
		});
		assertThat(result).isEqualTo("claimed");
		assertThat(attempts).hasValue(2);
	}

	@Test
	void aStatementRolledBackEveryTimeFailsAfterThreeAttempts() {
		assertFailsAfter(() -> new SQLTransactionRollbackException("could not serialize access", "40001"),
				"Could not claim after 3 attempts", 3);
	}

	@Test
	void anyOtherFailureIsNotRetried() {
		assertFailsAfter(() -> new SQLException("relation \"polling_queue\" does not exist", "42P01"), "Could not claim", 1);
	}

	/** A statement that fails every time with the failure: the error's message and how often it was tried. */
	private void assertFailsAfter(Supplier<SQLException> failure, String message, int expectedAttempts) {
		AtomicInteger attempts = new AtomicInteger();
		assertThatExceptionOfType(DataAccessFailure.class)
			.isThrownBy(() -> Sql.inOneStatement(this.dataSource, "claim", (connection) -> {
				attempts.incrementAndGet();
				throw failure.get();
			}))
			.withMessageContaining(message);
		assertThat(attempts).hasValue(expectedAttempts);
	}

}
