package dev.polling.jdbc.delivery;

import dev.polling.jdbc.Dialect;

/** {@link DeliveryGuardContractTest} on Postgres. */
class PostgresDeliveryGuardTest extends DeliveryGuardContractTest {

	PostgresDeliveryGuardTest() {
		super(Dialect.POSTGRESQL);
	}

}
