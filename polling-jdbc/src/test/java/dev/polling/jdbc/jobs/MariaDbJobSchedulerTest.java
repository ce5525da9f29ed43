package dev.polling.jdbc.jobs;

import dev.polling.jdbc.Dialect;

/** {@link JobSchedulerContractTest} on MariaDb. */
class MariaDbJobSchedulerTest extends JobSchedulerContractTest {

	MariaDbJobSchedulerTest() {
		super(Dialect.MARIADB);
	}

}
