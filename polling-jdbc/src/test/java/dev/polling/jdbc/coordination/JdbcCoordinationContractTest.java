package dev.polling.jdbc.coordination;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import javax.sql.DataSource;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.polling.core.ClusterDefinition;
import dev.polling.core.Decision;
import dev.polling.core.Decision.Reason;
import dev.polling.core.PollingManager;
import dev.polling.core.PollingSettings;
import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.Schema;
import dev.polling.jdbc.TableNames;
import dev.polling.jdbc.test.DatabaseTest;
import dev.polling.jdbc.test.TestDatabase;

/** JDBC coordination on a real database: several instances, each with its own data source. */
abstract class JdbcCoordinationContractTest extends DatabaseTest {

	// 1.5 s was shorter than the pauses of a starved CI machine between two decisions of one test step
	static final Duration FAILOVER = Duration.ofSeconds(4);

	private final List<PollingManager> managers = new ArrayList<>();

	private final java.util.Map<PollingManager, JdbcCoordinator> coordinators = new java.util.HashMap<>();

	JdbcCoordinationContractTest(Dialect dialect) {
		super(dialect);
	}

	@Override
	protected void prepare(TestDatabase database) {
		Schema.migrate(database.newDataSource(), database.dialect(), TableNames.defaults());
	}

	@AfterEach
	void close() {
		this.managers.forEach(PollingManager::close);
		this.managers.clear();
	}

	PollingManager instance(String id, String cluster) {
		return instance(id, cluster, database().newDataSource());
	}

	PollingManager instance(String id, String cluster, DataSource dataSource) {
		JdbcCoordinator coordinator = new JdbcCoordinator(dataSource, database().dialect(), TableNames.defaults(), FAILOVER,
				Duration.ofSeconds(1));
		PollingManager manager = PollingManager.builder()
			.settings(PollingSettings.defaults().withInstanceId(id))
			.cluster(ClusterDefinition.of(cluster, Duration.ofSeconds(10)))
			.coordinator(cluster, coordinator)
			.build();
		this.managers.add(manager);
		this.coordinators.put(manager, coordinator);
		return manager;
	}

	/**
	 * Fencing (issue 16, defect 7): the holder's check passes inside its transaction and holds the
	 * cluster's row, so a takeover waits for that transaction; once another instance has taken over,
	 * the old holder's check fails and its transaction writes nothing.
	 */
	@Test
	void assertStillHolderFencesTheHoldersTransactionAndFailsAfterATakeover() throws Exception {
		PollingManager a = instance("a", "FENCE");
		PollingManager b = instance("b", "FENCE");
		JdbcCoordinator fence = this.coordinators.get(a);
		assertThat(a.decide("FENCE").isGranted()).isTrue();
		HoldCheckProbe probe = new HoldCheckProbe();
		try (java.sql.Connection connection = database().connect()) {
			connection.setAutoCommit(false);
			fence.holdCheck(a, "FENCE").assertStillHolder(connection);
			// a's transaction is open: b may not take over (a's last run is older than the failover
			// period), its decision waits for the row and is refused
			await().pollDelay(FAILOVER.plusMillis(200)).atMost(FAILOVER.multipliedBy(4)).until(() -> true);
			probe.decision = b.decide("FENCE");
			connection.commit();
		}
		assertThat(probe.decision.isGranted()).as("b granted while a's fenced transaction was open").isFalse();
		assertThat(b.decide("FENCE").isGranted()).isTrue();
		try (java.sql.Connection connection = database().connect()) {
			connection.setAutoCommit(false);
			long epoch = a.fencingToken("FENCE").orElseThrow();
			org.assertj.core.api.Assertions.assertThatThrownBy(() -> fence.assertStillHolder(connection, "FENCE", "a", epoch))
				.isInstanceOf(LostHoldException.class)
				.hasMessageContaining("'FENCE'")
				.hasMessageContaining("holder b")
				.hasMessageContaining("epoch " + (epoch + 1));
			connection.rollback();
		}
	}

	private static final class HoldCheckProbe {

		Decision decision;

	}

	/**
	 * Issue 29 (a forgotten lock row, fencing tokens that go back): the cluster's row is deleted
	 * under its holder (a cleanup script, a restore). The holder's next decision creates it again
	 * at once and keeps the cluster with a token above every one it handed out; the other instance
	 * is refused; the re-creation is logged once. On 3b5282d the row stayed missing and every
	 * decision was refused as unavailable until a restart.
	 */
	@Test
	void aRowDeletedUnderTheHolderIsCreatedAgainAtOnceAndItsTokensGoOnRising() throws Exception {
		try (dev.polling.jdbc.test.LogCapture log = dev.polling.jdbc.test.LogCapture.start()) {
			PollingManager a = instance("a", "DELETED");
			PollingManager b = instance("b", "DELETED");
			assertThat(a.decide("DELETED").isGranted()).isTrue();
			assertThat(a.decide("DELETED").reason()).isEqualTo(Reason.RENEWED);
			long before = a.fencingToken("DELETED").orElseThrow();
			try (java.sql.Connection connection = database().connect(); java.sql.Statement statement = connection.createStatement()) {
				statement.executeUpdate("DELETE FROM " + TableNames.defaults().coordination() + " WHERE cluster_id = 'DELETED'");
			}
			Decision after = a.decide("DELETED");
			assertThat(after.isGranted()).as(after.toString()).isTrue();
			assertThat(a.fencingToken("DELETED").orElseThrow()).isGreaterThan(before);
			assertThat(b.decide("DELETED").reason()).isEqualTo(Reason.PEER_ACTIVE);
			assertThat(a.decide("DELETED").reason()).isEqualTo(Reason.RENEWED);
			assertThat(log.lines("WARN", JdbcCoordinator.class.getName(), "coordination row was missing")).hasSize(1);
		}
	}

	@Test
	void grantsOneInstanceAndKeepsItWithTheHolderWhileItRenews() {
		PollingManager a = instance("a", "RENEW");
		PollingManager b = instance("b", "RENEW");
		assertThat(a.decide("RENEW").reason()).isEqualTo(Reason.NO_ACTIVE_PEER);
		long epoch = a.fencingToken("RENEW").orElseThrow();
		long start = System.nanoTime();
		while (System.nanoTime() - start < FAILOVER.multipliedBy(2).toNanos()) {
			assertThat(a.decide("RENEW").reason()).isEqualTo(Reason.RENEWED);
			Decision refused = b.decide("RENEW");
			assertThat(refused.reason()).isEqualTo(Reason.PEER_ACTIVE);
			assertThat(refused.peers().get(0).instanceId()).isEqualTo("a");
			sleep(100);
		}
		assertThat(a.fencingToken("RENEW")).hasValue(epoch);
		assertThat(b.fencingToken("RENEW")).isEmpty();
	}

	@Test
	void takesOverOnlyAfterTheFailoverPeriodAndIncrementsTheEpoch() {
		PollingManager a = instance("a", "FAILOVER");
		PollingManager b = instance("b", "FAILOVER");
		long epoch = grantedEpoch(a, "FAILOVER");
		// a stops deciding (a frozen or dead holder); b keeps ticking
		Decision takeover = awaitGranted(b, "FAILOVER");
		assertThat(takeover.reason()).isEqualTo(Reason.NO_ACTIVE_PEER);
		// the holder's last run, in database time, was at least the failover period ago
		assertThat(takeover.peers().get(0).elapsedMillis()).isGreaterThanOrEqualTo(FAILOVER.toMillis());
		assertThat(b.fencingToken("FAILOVER")).hasValue(epoch + 1);
		Decision late = a.decide("FAILOVER");
		assertThat(late.reason()).isEqualTo(Reason.PEER_ACTIVE);
		assertThat(a.isHolding("FAILOVER")).isFalse();
	}

	/**
	 * Issue 15, defect 6, for database coordination: a second process with the holder's instance id
	 * (the default host:pid collides where java is pid 1 in every container) is not taken for the
	 * holder. It is refused with DUPLICATE_INSTANCE_ID while the holder renews, never both hold, and a
	 * release by the twin does not free the holder's row.
	 */
	@Test
	void aSecondProcessWithTheHoldersIdIsRefusedAsADuplicateAndCannotReleaseTheHoldersRow() {
		PollingManager first = instance("same", "TWINS");
		PollingManager twin = instance("same", "TWINS");
		long epoch = grantedEpoch(first, "TWINS");
		for (int i = 0; i < 5; i++) {
			Decision refused = twin.decide("TWINS");
			assertThat(refused.reason()).isEqualTo(Reason.DUPLICATE_INSTANCE_ID);
			assertThat(refused.detail()).contains("same instance id");
			assertThat(twin.isHolding("TWINS")).isFalse();
			assertThat(first.decide("TWINS").reason()).isEqualTo(Reason.RENEWED);
		}
		twin.release("TWINS");
		assertThat(first.decide("TWINS").reason()).as("the twin's release left the holder's row alone").isEqualTo(Reason.RENEWED);
		assertThat(first.fencingToken("TWINS")).hasValue(epoch);
	}

	/**
	 * The other side of telling a twin from the holder: an instance restarted with its id (a process
	 * that did not take the row) waits for the failover period before it takes its old row over, with
	 * a new epoch, since the old process may only be frozen; a graceful stop releases the row, so a
	 * restart after it takes over at once.
	 */
	@Test
	void aRestartedInstanceTakesItsOldRowOverAfterTheFailoverPeriodWithANewEpoch() {
		// both built first: on a starved machine building the second (its pool) took longer than the failover period
		PollingManager before = instance("restarted", "RESTART");
		PollingManager after = instance("restarted", "RESTART"); // the old process stops deciding without a release
		long epoch = grantedEpoch(before, "RESTART");
		assertThat(after.decide("RESTART").reason()).isEqualTo(Reason.DUPLICATE_INSTANCE_ID);
		Decision takeover = awaitGranted(after, "RESTART");
		assertThat(takeover.peers().get(0).elapsedMillis()).isGreaterThanOrEqualTo(FAILOVER.toMillis());
		assertThat(after.fencingToken("RESTART")).hasValue(epoch + 1);
		assertThat(before.decide("RESTART").isGranted()).as("the old process, resumed, is fenced out").isFalse();
		after.close();
		PollingManager again = instance("restarted", "RESTART");
		assertThat(again.decide("RESTART").reason()).as("after a graceful stop").isEqualTo(Reason.NO_ACTIVE_PEER);
	}

	@Test
	void grantsExactlyOneAndTheSameInstanceWhenThreeTickTogether() throws Exception {
		List<PollingManager> instances = List.of(instance("a", "TOGETHER"), instance("b", "TOGETHER"), instance("c", "TOGETHER"));
		ExecutorService pool = Executors.newFixedThreadPool(3);
		try {
			String firstHolder = null;
			int checked = 0;
			boolean lastChecked = false;
			for (int round = 0; round < 100; round++) {
				long roundStart = System.nanoTime();
				CountDownLatch go = new CountDownLatch(1);
				List<Future<Decision>> futures = new ArrayList<>();
				for (PollingManager m : instances) {
					futures.add(pool.submit(() -> {
						go.await();
						return m.decide("TOGETHER");
					}));
				}
				go.countDown();
				List<String> granted = new ArrayList<>();
				for (int i = 0; i < 3; i++) {
					if (futures.get(i).get().isGranted()) {
						granted.add(instances.get(i).settings().instanceId());
					}
				}
				// A round whose decisions spread over more than the failover period is several ticks, not one:
				// a holder's grant at its start has expired for a decision at its end, which may take over (on a
				// starved CI machine a thread started its decision 1.5 s after the others). Those rounds are not
				// judged, and the holder they end with starts a new run without ping-pong.
				if (System.nanoTime() - roundStart >= FAILOVER.toNanos()) {
					firstHolder = null;
					lastChecked = false;
					continue;
				}
				checked++;
				lastChecked = true;
				assertThat(granted).as("round %d", round).hasSize(1);
				if (firstHolder == null) {
					firstHolder = granted.get(0);
				}
				assertThat(granted).as("no ping-pong, round %d", round).containsExactly(firstHolder);
			}
			assertThat(checked).as("rounds within the failover period").isGreaterThanOrEqualTo(50);
			if (lastChecked) {
				assertThat(instances.stream().filter((m) -> m.fencingToken("TOGETHER").isPresent())).hasSize(1);
			}
		}
		finally {
			pool.shutdownNow();
		}
	}

	@Test
	void pauseReleasesTheRowSoAnotherInstanceTakesOverAtOnce() {
		PollingManager a = instance("a", "PAUSE");
		PollingManager b = instance("b", "PAUSE");
		long epoch = grantedEpoch(a, "PAUSE");
		a.pause("PAUSE");
		assertThat(a.decide("PAUSE").reason()).isEqualTo(Reason.PAUSED);
		assertThat(b.decide("PAUSE").reason()).isEqualTo(Reason.NO_ACTIVE_PEER);
		assertThat(b.fencingToken("PAUSE")).hasValue(epoch + 1);
	}

	/**
	 * Issue 29, defect 2: a pause, release or hand-over during a running cycle releases the row when
	 * the cycle ends, not while it runs; the other instance takes over at its first tick after that.
	 * A hand-over (issue 30, the console's action) keeps the row while the cycle runs, and afterwards
	 * the instance that handed over does not take it back at its next tick.
	 */
	@Test
	void aPauseReleaseOrHandOverDuringACycleReleasesTheRowWhenTheCycleEnds() throws Exception {
		for (String action : List.of("pause", "release", "hand-over")) {
			String cluster = "CYCLE_" + action.toUpperCase(java.util.Locale.ROOT);
			PollingManager a = instance("a", cluster);
			PollingManager b = instance("b", cluster);
			CountDownLatch running = new CountDownLatch(1);
			CountDownLatch finish = new CountDownLatch(1);
			ExecutorService thread = Executors.newSingleThreadExecutor();
			try {
				Future<Decision> cycle = thread.submit(() -> a.runIfGranted(cluster, () -> {
					running.countDown();
					finish.await();
				}));
				assertThat(running.await(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
				if (action.equals("pause")) {
					a.pause(cluster);
				}
				else if (action.equals("release")) {
					a.release(cluster);
				}
				else {
					a.handOver(cluster);
					// the coordinator still grants a (its row is renewed); the hold ends with the cycle
					assertThat(a.decide(cluster).reason()).as("a's decision while its cycle runs after a hand-over")
						.isEqualTo(Reason.RELEASED);
				}
				List<String> ran = new ArrayList<>();
				assertThat(b.runIfGranted(cluster, () -> ran.add("b")).reason()).as(action + " while a's cycle runs")
					.isEqualTo(Reason.PEER_ACTIVE);
				assertThat(ran).as("b's cycle body while a's cycle runs (%s)", action).isEmpty();
				finish.countDown();
				assertThat(cycle.get(30, java.util.concurrent.TimeUnit.SECONDS).isGranted()).isTrue();
				if (action.equals("hand-over")) {
					assertThat(a.decide(cluster).reason()).as("a's first tick after its cycle, before b's").isEqualTo(Reason.HANDED_OVER);
				}
				assertThat(b.runIfGranted(cluster, () -> ran.add("b")).reason()).as("b's first tick after the cycle (%s)", action)
					.isEqualTo(Reason.NO_ACTIVE_PEER);
				assertThat(ran).containsExactly("b");
			}
			finally {
				finish.countDown();
				thread.shutdown();
			}
		}
	}

	@Test
	void refusesWithoutThrowingWhileTheDatabaseCannotBeReached() throws Exception {
		TestDatabase gone = new TestDatabase("gone", database().dialect(), unreachableUrl(), database().username(), database().password());
		PollingManager a = instance("a", "DOWN", gone.newDataSource());
		Decision decision = a.decide("DOWN");
		assertThat(decision.reason()).isEqualTo(Reason.COORDINATION_UNAVAILABLE);
		assertThat(decision.peers().get(0).detail()).contains("database coordination failed");
		assertThat(a.isHolding("DOWN")).isFalse();
	}

	/**
	 * An instance that froze in the middle of its decision keeps the row locked in an open
	 * transaction; the others must not wait for it without bound. A standby next to a live holder is
	 * refused by a plain read, without waiting for the lock at all (it named the lock timeout's
	 * refusal before: COORDINATION_UNAVAILABLE); a decision that must lock the row (here the holder's
	 * renewal) is refused after the lock timeout (1 s here); once the frozen transaction ends the
	 * holder carries on.
	 */
	@Test
	void aDecisionWaitsForTheRowAtMostTheLockTimeoutAndAStandbyDoesNotWaitAtAll() throws Exception {
		PollingManager a = instance("a", "STUCK");
		assertThat(a.decide("STUCK").isGranted()).isTrue();
		PollingManager b = instance("b", "STUCK");
		try (java.sql.Connection frozen = database().connect()) {
			frozen.setAutoCommit(false);
			try (java.sql.Statement statement = frozen.createStatement()) {
				statement.executeQuery("SELECT holder FROM polling_coordination WHERE cluster_id = 'STUCK' FOR UPDATE").close();
			}
			Decision standby = b.decide("STUCK");
			assertThat(standby.reason()).isEqualTo(Reason.PEER_ACTIVE);
			assertThat(standby.peers().get(0).instanceId()).isEqualTo("a");

			long start = System.nanoTime();
			Decision holder = a.decide("STUCK");
			Duration took = Duration.ofNanos(System.nanoTime() - start);
			assertThat(holder.isGranted()).isFalse();
			assertThat(holder.reason()).isEqualTo(Reason.COORDINATION_UNAVAILABLE);
			assertThat(took).as("decision next to a row locked by a frozen instance").isLessThan(Duration.ofSeconds(10));
			frozen.rollback();
		}
		assertThat(a.decide("STUCK").reason()).isEqualTo(Reason.RENEWED);
		assertThat(b.decide("STUCK").reason()).isEqualTo(Reason.PEER_ACTIVE);
	}

	/**
	 * The decisions that are most of every tick cost one statement: the holder's renewal on
	 * PostgreSQL (a fenced UPDATE in auto-commit), and a standby's refusal on every database (a plain
	 * read). Counted with the statement log of the coordinator's connections.
	 */
	@Test
	void aStandbysRefusalIsOneReadAndTheHoldersRenewalOnPostgresOneStatement() throws Exception {
		dev.polling.jdbc.test.StatementLog log = new dev.polling.jdbc.test.StatementLog(database().newDataSource());
		PollingManager a = instance("a", "CHEAP", log.dataSource());
		PollingManager b = instance("b", "CHEAP", log.dataSource());
		assertThat(a.decide("CHEAP").isGranted()).isTrue();
		assertThat(b.decide("CHEAP").reason()).isEqualTo(Reason.PEER_ACTIVE);
		log.clear();
		assertThat(b.decide("CHEAP").reason()).isEqualTo(Reason.PEER_ACTIVE);
		assertThat(log.statements()).as("standby's refusal").hasSize(1).allSatisfy((sql) -> assertThat(sql).startsWith("SELECT")
			.doesNotContain("FOR UPDATE").doesNotContain("FOR SHARE"));
		assertThat(log.commits()).as("standby's commits").isZero();
		log.clear();
		assertThat(a.decide("CHEAP").reason()).isEqualTo(Reason.RENEWED);
		if (database().dialect() == Dialect.POSTGRESQL) {
			assertThat(log.statements()).as("holder's renewal").hasSize(1).allSatisfy((sql) -> assertThat(sql).startsWith("UPDATE"));
			assertThat(log.commits()).as("holder's explicit commits (the statement commits on its own)").isZero();
		}
		else {
			assertThat(log.statements()).as("holder's renewal").hasSize(2);
			assertThat(log.commits()).isEqualTo(1);
		}
	}

	/** A URL of this database's kind where nothing listens. */
	abstract String unreachableUrl() throws Exception;

	static int freePort() throws Exception {
		try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** The instance's decision grants it the cluster; its fencing token. */
	private static long grantedEpoch(PollingManager instance, String cluster) {
		assertThat(instance.decide(cluster).isGranted()).isTrue();
		return instance.fencingToken(cluster).orElseThrow();
	}

	/** The instance's first granted decision, deciding every 100 ms for at most 10 s. */
	private static Decision awaitGranted(PollingManager instance, String cluster) {
		return await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
			.until(() -> instance.decide(cluster), Decision::isGranted);
	}

}
