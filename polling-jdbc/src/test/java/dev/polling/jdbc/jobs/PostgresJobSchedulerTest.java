package dev.polling.jdbc.jobs;

import dev.polling.jdbc.Dialect;

/** {@link JobSchedulerContractTest} on Postgres. */
class PostgresJobSchedulerTest extends JobSchedulerContractTest {

	PostgresJobSchedulerTest() {
		super(Dialect.POSTGRESQL);
	}

}
