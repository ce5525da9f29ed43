package dev.polling.jdbc;

/** {@link SchemaMigrationContractTest} on H2. */
class H2SchemaMigrationTest extends SchemaMigrationContractTest {

	H2SchemaMigrationTest() {
		super(Dialect.H2);
	}

}
