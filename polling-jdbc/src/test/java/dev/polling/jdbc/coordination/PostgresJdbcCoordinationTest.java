package dev.polling.jdbc.coordination;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.polling.core.Decision;
import dev.polling.core.PollingManager;
import dev.polling.jdbc.Dialect;

/** {@link JdbcCoordinationContractTest} on PostgreSQL, plus what only PostgreSQL can show. */
class PostgresJdbcCoordinationTest extends JdbcCoordinationContractTest {

	PostgresJdbcCoordinationTest() {
		super(Dialect.POSTGRESQL);
	}

	@Override
	String unreachableUrl() throws Exception {
		return "jdbc:postgresql://127.0.0.1:" + freePort() + "/gone?connectTimeout=1";
	}

	@Test
	void leavesNoSessionIdleInTransactionDuringALongCycle() throws Exception {
		PollingManager a = instance("a", "LONG_CYCLE");
		List<Long> idleInTransaction = new ArrayList<>();
		Decision decision = a.runIfGranted("LONG_CYCLE", () -> {
			for (int i = 0; i < 5; i++) {
				idleInTransaction.add(database().queryForLong(
						"SELECT count(*) FROM pg_stat_activity WHERE state LIKE 'idle in transaction%' AND datname = current_database()"));
				Thread.sleep(100);
			}
		});
		assertThat(decision.isGranted()).isTrue();
		assertThat(idleInTransaction).hasSize(5).containsOnly(0L);
	}

}
