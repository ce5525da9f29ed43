package dev.polling.jdbc.queue;

import dev.polling.jdbc.Dialect;

/** {@link WorkQueueContractTest} on H2. */
class H2WorkQueueTest extends WorkQueueContractTest {

	H2WorkQueueTest() {
		super(Dialect.H2);
	}

}
