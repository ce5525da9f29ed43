package dev.polling.jdbc.coordination;

import dev.polling.jdbc.Dialect;

/** {@link JdbcCoordinationContractTest} on H2. */
class H2JdbcCoordinationTest extends JdbcCoordinationContractTest {

	H2JdbcCoordinationTest() {
		super(Dialect.H2);
	}

	@Override
	String unreachableUrl() throws Exception {
		return "jdbc:h2:tcp://127.0.0.1:" + freePort() + "/mem:gone";
	}

}
