package dev.polling.jdbc.queue;

import dev.polling.jdbc.Dialect;

class MariaDbRollingRestartTest extends RollingRestartContractTest {

	MariaDbRollingRestartTest() {
		super(Dialect.MARIADB);
	}

}
