package dev.polling.jdbc.coordination;

import dev.polling.jdbc.Dialect;

/** {@link JdbcCoordinationContractTest} on MariaDB. */
class MariaDbJdbcCoordinationTest extends JdbcCoordinationContractTest {

	MariaDbJdbcCoordinationTest() {
		super(Dialect.MARIADB);
	}

	@Override
	String unreachableUrl() throws Exception {
		return "jdbc:mariadb://127.0.0.1:" + freePort() + "/gone?connectTimeout=1000";
	}

}
