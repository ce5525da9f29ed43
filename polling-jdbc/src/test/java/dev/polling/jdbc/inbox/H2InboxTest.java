package dev.polling.jdbc.inbox;

import dev.polling.jdbc.Dialect;

/** {@link InboxContractTest} on H2. */
class H2InboxTest extends InboxContractTest {

	H2InboxTest() {
		super(Dialect.H2);
	}

}
