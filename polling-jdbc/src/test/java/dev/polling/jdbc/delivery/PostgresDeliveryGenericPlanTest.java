package dev.polling.jdbc.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.polling.jdbc.test.QueryPlans;
import dev.polling.jdbc.test.StatementLog;
import dev.polling.jdbc.test.TestDatabase;
import java.sql.Connection;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The guard's fenced writes of an outcome run on the server-prepared plan that PostgreSQL makes
 * once for any parameters (no planning per message). That plan must find the row by its primary
 * key whatever the statistics say. With {@code state = 'SENDING'} in the condition, statistics made
 * while nothing was being sent led the planner to the state index instead, reading every message
 * in SENDING per write.
 */
class PostgresDeliveryGenericPlanTest {

	@Test
	void everyOutcomeIsWrittenByPrimaryKeyUnderAGenericPlanMadeWhileNothingWasBeingSent() throws Exception {
		TestDatabase database = PostgresLockedBatchPlanTest.withoutAutovacuum();
		DeliveryGuard producer = DeliveryGuard.builder(database.newDataSource()).instanceId("producer")
			.destination(DeliveryDestination.of("busy", (delivery) -> {
			}))
			.build();
		try (Connection connection = database.connect()) {
			connection.setAutoCommit(false);
			for (int i = 0; i < 2000; i++) {
				producer.store(connection, "busy", "busy-" + i, "payload");
			}
			connection.commit();
		}
		database.execute("UPDATE polling_delivery SET state = 'DELIVERED'", "ANALYZE polling_delivery",
				"UPDATE polling_delivery SET state = 'SENDING', owner = 'other', fence = 1, lease_until = "
						+ "CURRENT_TIMESTAMP + INTERVAL '1 hour'");

		StatementLog log = new StatementLog(database.newDataSource());
		DeliveryGuard guard = DeliveryGuard.builder(log.dataSource()).instanceId("sender")
			.destination(DeliveryDestination.of("ok", (delivery) -> {
			}))
			.destination(DeliveryDestination.of("refused", (delivery) -> {
				throw new NotDeliveredException("refused");
			}))
			.destination(DeliveryDestination.of("unknown", (delivery) -> {
				throw new IllegalStateException("timed out");
			}))
			.destination(DeliveryDestination.idempotent("batched", (delivery) -> {
			}).withBatchClaims(10))
			.build();
		for (String destination : List.of("ok", "refused", "unknown", "batched")) {
			guard.store(destination, destination + "-1", "payload");
			guard.store(destination, destination + "-2", "payload");
			guard.deliverDue(destination, 10);
		}
		List<String> outcomes = log.statements().stream()
			.flatMap((sql) -> java.util.Arrays.stream(sql.split("; "))) // an outcome sent with the next claim
			.filter((sql) -> sql.startsWith("UPDATE") && sql.contains("fence = ?"))
			.distinct()
			.toList();
		assertThat(outcomes).as("DELIVERED, FAILED, IN_DOUBT").hasSizeGreaterThanOrEqualTo(3);
		QueryPlans.assertGenericPlansGoByPrimaryKey(database, outcomes, "polling_delivery_pk", "polling_delivery_state_idx");
	}

}
