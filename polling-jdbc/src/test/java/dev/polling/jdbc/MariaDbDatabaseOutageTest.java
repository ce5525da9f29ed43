package dev.polling.jdbc;

class MariaDbDatabaseOutageTest extends DatabaseOutageContractTest {

	MariaDbDatabaseOutageTest() {
		super(Dialect.MARIADB);
	}

}
