package dev.polling.jdbc.inbox;

import dev.polling.jdbc.Dialect;

/** {@link InboxContractTest} on PostgreSQL. */
class PostgresInboxTest extends InboxContractTest {

	PostgresInboxTest() {
		super(Dialect.POSTGRESQL);
	}

}
