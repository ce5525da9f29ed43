package dev.polling.jdbc.jobs;

import dev.polling.jdbc.Dialect;

/** {@link JobSchedulerContractTest} on H2. */
class H2JobSchedulerTest extends JobSchedulerContractTest {

	H2JobSchedulerTest() {
		super(Dialect.H2);
	}

}
