package dev.polling.jdbc.queue;

import dev.polling.jdbc.Dialect;

class PostgresRollingRestartTest extends RollingRestartContractTest {

	PostgresRollingRestartTest() {
		super(Dialect.POSTGRESQL);
	}

}
