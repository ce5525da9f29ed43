package dev.polling.jdbc;

/** {@link SchemaMigrationContractTest} on MariaDB. */
class MariaDbSchemaMigrationTest extends SchemaMigrationContractTest {

	MariaDbSchemaMigrationTest() {
		super(Dialect.MARIADB);
	}

}
