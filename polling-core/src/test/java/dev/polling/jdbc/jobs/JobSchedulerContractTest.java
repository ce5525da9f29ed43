package dev.polling.jdbc.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;

import dev.polling.jdbc.ConnectionProvider;
import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.Schema;
import dev.polling.jdbc.TableNames;
import dev.polling.jdbc.jobs.JobScheduler.DispatchResult;
import dev.polling.jdbc.queue.QueueMessage;
import dev.polling.jdbc.queue.WorkQueue;
import dev.polling.jdbc.test.DatabaseTest;
import dev.polling.jdbc.test.TestDatabase;

/** Scheduled jobs on a real database; "instances" are separate connection pools. */
abstract class JobSchedulerContractTest extends DatabaseTest {


	JobSchedulerContractTest(Dialect dialect) {
		super(dialect);
	}

	@Override
	protected void prepare(TestDatabase database) {
		Schema.create(database.newDataSource(), database.dialect(), TableNames.defaults());
	}


	private DataSource pool() {
		return newPool(4);
	}

	private long count(String where) {
		return database().queryForLong("SELECT COUNT(*) FROM polling_job WHERE " + where);
	}

	@Test
	void schedulesNothingWhenTheTransactionRollsBack() throws Exception {
		DataSource pool = pool();
		try (Connection connection = pool.getConnection()) {
			connection.setAutoCommit(false);
			JobScheduler scheduler = JobScheduler.create(pool, ConnectionProvider.of(connection), database().dialect(), TableNames.defaults());
			scheduler.schedule("rollback", "order-1", Duration.ZERO, "check");
			try (var statement = connection.createStatement();
					var rows = statement.executeQuery("SELECT COUNT(*) FROM polling_job WHERE queue = 'rollback'")) {
				rows.next();
				assertThat(rows.getLong(1)).as("visible inside the transaction").isEqualTo(1);
			}
			connection.rollback();
		}
		assertThat(count("queue = 'rollback'")).isZero();
	}

	@Test
	void runsDueJobsExactlyOnceAcrossThreeInstancesThatAllDispatchAndWork() throws Exception {
		int jobs = 600;
		JobScheduler producer = JobScheduler.create(pool());
		for (int i = 0; i < jobs; i++) {
			producer.schedule("once", "order-" + (i % 50), Duration.ofMillis(i % 1500), "job-" + i);
		}
		Map<String, AtomicInteger> executions = new ConcurrentHashMap<>();
		ExecutorService pool = Executors.newFixedThreadPool(3);
		List<Future<Integer>> instances = new ArrayList<>();
		for (int n = 0; n < 3; n++) {
			DataSource dataSource = pool();
			String owner = "instance-" + n;
			instances.add(pool.submit(() -> {
				JobScheduler scheduler = JobScheduler.create(dataSource);
				WorkQueue queue = WorkQueue.builder(dataSource).instanceId(owner).build();
				long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
				int done = 0;
				while (System.nanoTime() < deadline && executions.values().stream().mapToInt(AtomicInteger::get).sum() < jobs) {
					scheduler.dispatchDue(queue, 200);
					List<QueueMessage> claimed = queue.claim("once", 50);
					for (QueueMessage message : claimed) {
						executions.computeIfAbsent(message.payload(), (k) -> new AtomicInteger()).incrementAndGet();
						queue.complete(message);
						done++;
					}
					if (claimed.isEmpty()) {
						Thread.sleep(20);
					}
				}
				return done;
			}));
		}
		int total = 0;
		for (Future<Integer> instance : instances) {
			total += instance.get();
		}
		pool.shutdown();
		assertThat(executions).hasSize(jobs);
		assertThat(executions.values()).allMatch((c) -> c.get() == 1);
		assertThat(total).isEqualTo(jobs);
		assertThat(count("queue = 'once' AND state = 'DISPATCHED'")).isEqualTo(jobs);
	}

	@Test
	void doesNotLetAPoisonedJobHoldBackTheOthersInItsBatch() {
		JobScheduler scheduler = JobScheduler.create(pool());
		WorkQueue queue = WorkQueue.builder(pool()).instanceId("dispatcher").build();
		for (int i = 0; i < 5; i++) {
			scheduler.schedule("poison", "order-" + i, Duration.ZERO, (i == 2) ? "poison" : "fine-" + i);
		}
		// a real database error for exactly one job: the queue table refuses its payload
		database().execute("ALTER TABLE polling_queue ADD CONSTRAINT polling_test_no_poison CHECK (payload <> 'poison')");
		try {
			DispatchResult result = scheduler.dispatchDue(queue, 100);
			assertThat(result.dispatched()).isEqualTo(4);
			assertThat(result.failed()).isEqualTo(1);
		}
		finally {
			database().execute("ALTER TABLE polling_queue DROP CONSTRAINT polling_test_no_poison");
		}
		assertThat(count("queue = 'poison' AND state = 'DISPATCHED'")).isEqualTo(4);
		assertThat(count("queue = 'poison' AND state = 'FAILED' AND payload = 'poison' AND last_error IS NOT NULL")).isEqualTo(1);
		assertThat(database().queryForLong("SELECT COUNT(*) FROM polling_queue WHERE queue = 'poison'")).isEqualTo(4);
	}

	@Test
	void keepsJobsAcrossARestartOfEveryInstance() {
		HikariDataSource before = (HikariDataSource) pool();
		JobScheduler.create(before).schedule("restart", "order-1", Duration.ofMillis(200), "after-restart");
		before.close();
		// a new instance with a new pool: the job is still there and becomes due
		DataSource after = pool();
		JobScheduler scheduler = JobScheduler.create(after);
		WorkQueue queue = WorkQueue.builder(after).instanceId("restarted").build();
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		List<QueueMessage> claimed = List.of();
		while (claimed.isEmpty() && System.nanoTime() < deadline) {
			scheduler.dispatchDue(queue, 10);
			claimed = queue.claim("restart", 10);
		}
		assertThat(claimed).extracting(QueueMessage::payload).containsExactly("after-restart");
	}

	@Test
	void schedulesOncePerBusinessIdCancelsAndReschedules() {
		JobScheduler scheduler = JobScheduler.create(pool());
		assertThat(scheduler.scheduleOnce("unique", "order-1", Duration.ofHours(1), "first")).isPresent();
		assertThat(scheduler.scheduleOnce("unique", "order-1", Duration.ofHours(1), "second")).isEmpty();
		assertThat(count("queue = 'unique'")).isEqualTo(1);
		assertThat(scheduler.reschedule("unique", "order-1", Duration.ZERO)).isEqualTo(1);
		String now = (database().dialect() == Dialect.MARIADB) ? "UTC_TIMESTAMP(6)" : "CURRENT_TIMESTAMP";
		assertThat(count("queue = 'unique' AND state = 'SCHEDULED' AND due_at <= " + now)).isEqualTo(1);
		assertThat(scheduler.cancel("unique", "order-1")).isEqualTo(1);
		assertThat(count("queue = 'unique' AND state = 'CANCELLED'")).isEqualTo(1);
		// cancelled: a new one may be scheduled
		assertThat(scheduler.scheduleOnce("unique", "order-1", Duration.ofHours(1), "third")).isPresent();
	}

}
