package dev.polling.jdbc.inbox;

import dev.polling.jdbc.Dialect;

/** {@link InboxContractTest} on MariaDB (a real mariadbd, see {@code TestDatabases}). */
class MariaDbInboxTest extends InboxContractTest {

	MariaDbInboxTest() {
		super(Dialect.MARIADB);
	}

}
