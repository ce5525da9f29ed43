package dev.polling.jdbc.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.Schema;
import dev.polling.jdbc.TableNames;
import dev.polling.jdbc.test.QueryPlans;
import dev.polling.jdbc.test.TestDatabase;
import dev.polling.jdbc.test.TestDatabases;

/**
 * The rows a page of the operator's listing ({@link QueueAdmin#entries(QueueQuery)}, 20 entries)
 * reads on PostgreSQL in a table of 100,000 messages of four queues, mostly DONE or mostly NEW, with
 * every 2,000th DEAD, as EXPLAIN ANALYZE counts them. A page of NEW messages reads what the ready
 * index holds of its queue (mostly DONE) or little more than the page (mostly NEW). A page of DEAD
 * messages reads the partial index of schema version 4 (issue 30); without it (dropped here to show
 * what it does) the page walked the primary key until it had found 20, or to the end of the table.
 */
class PostgresAdminListingPlanTest {

	/** The index of DEAD messages (schema version 4). */
	static final String DEAD_INDEX = "CREATE INDEX IF NOT EXISTS polling_queue_dead_idx ON polling_queue (queue, id) "
			+ "WHERE state = 'DEAD'";

	private static final String ROW = "(queue, business_key, payload, state, attempts, max_attempts, available_at, "
			+ "enqueued_at, finished_at) ";

	@Test
	void aPageOfNewOrDeadMessagesReadsNotTheTable() {
		TestDatabase database = TestDatabases.postgresql();
		Schema.migrate(database.newDataSource(), Dialect.POSTGRESQL, TableNames.defaults());
		QueueAdmin admin = WorkQueue.builder(database.newDataSource()).instanceId("probe").build().admin();
		for (String others : new String[] { "DONE", "NEW" }) {
			database.execute("TRUNCATE polling_queue");
			database.execute("INSERT INTO polling_queue " + ROW + "SELECT 'q' || (g % 4), NULL, 'p', CASE WHEN g % 2000 = 0 "
					+ "THEN 'DEAD' WHEN g > 99900 THEN 'NEW' ELSE '" + others + "' END, 1, 3, now(), now(), now() "
					+ "FROM generate_series(1, 100000) g", "ANALYZE polling_queue");
			long middle = database.queryForLong("SELECT MIN(id) + 50000 FROM polling_queue");
			String shape = "mostly " + others;
			for (String queue : new String[] { "q0", null }) {
				QueueQuery fresh = QueueQuery.of(MessageState.NEW).withQueue(queue).withLimit(20);
				assertThat(read(database, admin, fresh)).as("NEW, %s, queue %s", shape, queue).isLessThan(1000);
				assertThat(read(database, admin, fresh.withAfterId(middle))).as("NEW, %s, queue %s, page 2", shape, queue)
					.isLessThan(1000);
				QueueQuery dead = QueueQuery.of(MessageState.DEAD).withQueue(queue).withLimit(20);
				assertThat(read(database, admin, dead)).as("DEAD, %s, queue %s, shipped schema", shape, queue)
					.isLessThanOrEqualTo(100);
				assertThat(read(database, admin, dead.withAfterId(middle)))
					.as("DEAD, %s, queue %s, page 2, shipped schema", shape, queue)
					.isLessThanOrEqualTo(100);
				database.execute("DROP INDEX polling_queue_dead_idx", "ANALYZE polling_queue");
				assertThat(read(database, admin, dead)).as("DEAD, %s, queue %s, without the index of version 4", shape, queue)
					.isGreaterThan(30_000);
				database.execute(DEAD_INDEX, "ANALYZE polling_queue");
			}
		}
	}

	private static long read(TestDatabase database, QueueAdmin admin, QueueQuery query) {
		List<Object> parameters = new ArrayList<>();
		parameters.add(query.state().name());
		if (query.queue() != null) {
			parameters.add(query.queue());
		}
		parameters.add(query.afterId());
		parameters.add(query.limit());
		return QueryPlans.rowsRead(database, admin.entriesSql(query), parameters.toArray());
	}

}
