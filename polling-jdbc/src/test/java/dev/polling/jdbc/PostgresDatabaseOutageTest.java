package dev.polling.jdbc;

class PostgresDatabaseOutageTest extends DatabaseOutageContractTest {

	PostgresDatabaseOutageTest() {
		super(Dialect.POSTGRESQL);
	}

}
