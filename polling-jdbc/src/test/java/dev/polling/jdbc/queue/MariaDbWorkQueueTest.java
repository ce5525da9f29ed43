package dev.polling.jdbc.queue;

import dev.polling.jdbc.Dialect;

/** {@link WorkQueueContractTest} on MariaDb. */
class MariaDbWorkQueueTest extends WorkQueueContractTest {

	MariaDbWorkQueueTest() {
		super(Dialect.MARIADB);
	}

}
