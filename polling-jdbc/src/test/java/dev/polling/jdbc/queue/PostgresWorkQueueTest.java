package dev.polling.jdbc.queue;

import dev.polling.jdbc.Dialect;

/** {@link WorkQueueContractTest} on Postgres. */
class PostgresWorkQueueTest extends WorkQueueContractTest {

	PostgresWorkQueueTest() {
		super(Dialect.POSTGRESQL);
	}

}
