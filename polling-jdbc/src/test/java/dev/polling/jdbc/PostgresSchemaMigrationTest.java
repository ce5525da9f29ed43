package dev.polling.jdbc;

/** {@link SchemaMigrationContractTest} on PostgreSQL. */
class PostgresSchemaMigrationTest extends SchemaMigrationContractTest {

	PostgresSchemaMigrationTest() {
		super(Dialect.POSTGRESQL);
	}

}
