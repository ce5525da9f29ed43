package dev.polling.jdbc.delivery;

import dev.polling.jdbc.Dialect;

/** {@link DeliveryGuardContractTest} on MariaDb. */
class MariaDbDeliveryGuardTest extends DeliveryGuardContractTest {

	MariaDbDeliveryGuardTest() {
		super(Dialect.MARIADB);
	}

}
