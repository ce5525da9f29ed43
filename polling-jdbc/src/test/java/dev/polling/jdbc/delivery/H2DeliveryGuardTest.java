package dev.polling.jdbc.delivery;

import dev.polling.jdbc.Dialect;

/** {@link DeliveryGuardContractTest} on H2. */
class H2DeliveryGuardTest extends DeliveryGuardContractTest {

	H2DeliveryGuardTest() {
		super(Dialect.H2);
	}

}
