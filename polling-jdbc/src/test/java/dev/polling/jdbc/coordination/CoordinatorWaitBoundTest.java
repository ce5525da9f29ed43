package dev.polling.jdbc.coordination;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.polling.core.ClusterDefinition;
import dev.polling.core.Decision;
import dev.polling.core.Decision.Reason;
import dev.polling.core.PollingManager;
import dev.polling.core.PollingSettings;
import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.Schema;
import dev.polling.jdbc.TableNames;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A decision through the database waits at most twice the peer timeout, whatever the database does:
 * a connection pool whose connections are all taken waits its whole connection timeout (HikariCP:
 * 30 s), a database host that accepts TCP and never answers blocks a driver without timeouts for
 * good. Either would stall the timer thread that decides, and every task scheduled behind it.
 * Real parts: HikariCP over H2 with its default connection timeout, and the PostgreSQL driver
 * against a socket that accepts and stays silent.
 */
class CoordinatorWaitBoundTest {

	private static final Duration PEER_TIMEOUT = Duration.ofMillis(500);

	/**
	 * Twice the peer timeout plus scheduling slack on a starved 2-core CI machine (700 ms was exceeded by
	 * 35 ms, and a pause bounded by 1.2 s took 1.207 s); what it rules out is HikariCP's 30 s connection
	 * timeout and the 60 s of a hung host. Every wait here is held to it, none to a sub-second figure.
	 */
	private static final Duration BOUND = PEER_TIMEOUT.multipliedBy(2).plusSeconds(5);

	@Test
	void anExhaustedPoolRefusesWithinTheBoundAndTheClusterIsGrantedOnceAConnectionIsFree() throws Exception {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl("jdbc:h2:mem:bound-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
		config.setMaximumPoolSize(1);
		assertThat(config.getConnectionTimeout()).as("HikariCP's default").isEqualTo(30_000);
		try (HikariDataSource pool = new HikariDataSource(config); PollingManager manager = manager(pool, Dialect.H2)) {
			migrate(config.getJdbcUrl()); // H2's migration lock takes a second connection, which this pool of one does not have
			assertThat(manager.decide("JOBS").isGranted()).isTrue();

			Connection taken = pool.getConnection(); // the business code has taken the only connection
			Decision refused = timed(() -> manager.decide("JOBS"), BOUND);
			assertThat(refused.reason()).isEqualTo(Reason.COORDINATION_UNAVAILABLE);
			assertThat(refused.peers().get(0).detail()).contains("no answer from", "within 1000 ms", "connection pool");
			assertThat(manager.isHolding("JOBS")).isFalse();

			// the first request still waits for the pool: the next decisions do not queue behind it
			long threadsWaiting = coordinatorThreads();
			for (int i = 0; i < 5; i++) {
				Decision again = timed(() -> manager.decide("JOBS"), BOUND); // the detail tells it did not queue
				assertThat(again.reason()).isEqualTo(Reason.COORDINATION_UNAVAILABLE);
				assertThat(again.peers().get(0).detail()).contains("an earlier request", "has been pending for");
			}
			assertThat(coordinatorThreads()).as("threads asking the database").isLessThanOrEqualTo(threadsWaiting);

			taken.close();
			await().atMost(Duration.ofSeconds(10)).until(() -> manager.decide("JOBS").isGranted());
			assertThat(manager.isHolding("JOBS")).isTrue();
		}
	}

	@Test
	void pauseAndCloseDoNotWaitForAnExhaustedPool() throws Exception {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl("jdbc:h2:mem:pause-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
		config.setMaximumPoolSize(1);
		try (HikariDataSource pool = new HikariDataSource(config)) {
			migrate(config.getJdbcUrl()); // H2's migration lock takes a second connection, which this pool of one does not have
			PollingManager manager = manager(pool, Dialect.H2);
			assertThat(manager.decide("JOBS").isGranted()).isTrue();
			try (Connection taken = pool.getConnection()) {
				timed(() -> {
					manager.pause("JOBS");
					return null;
				}, BOUND);
				assertThat(manager.isPaused("JOBS")).isTrue();
				assertThat(manager.isHolding("JOBS")).isFalse();
				timed(() -> {
					manager.close();
					return null;
				}, BOUND);
			}
			// the release queued behind the pool goes through once a connection is free
			await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(holder(pool)).isNull());
		}
	}

	@Test
	void aDatabaseHostThatNeverAnswersIsRefusedWithinTheBoundEveryTime() throws Exception {
		List<Socket> accepted = new CopyOnWriteArrayList<>();
		try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
			Thread acceptor = new Thread(() -> {
				while (!silent.isClosed()) {
					try {
						accepted.add(silent.accept()); // and never a byte back
					}
					catch (IOException ex) {
						return;
					}
				}
			}, "silent-database");
			acceptor.setDaemon(true);
			acceptor.start();
			PGSimpleDataSource dataSource = new PGSimpleDataSource();
			dataSource.setUrl("jdbc:postgresql://127.0.0.1:" + silent.getLocalPort() + "/polling");
			dataSource.setConnectTimeout(0); // no driver timeout at all: only the manager's bound ends the wait
			dataSource.setLoginTimeout(0);
			dataSource.setSocketTimeout(0);
			try (PollingManager manager = manager(dataSource, Dialect.POSTGRESQL)) {
				Decision first = timed(() -> manager.decide("JOBS"), BOUND);
				assertThat(first.reason()).isEqualTo(Reason.COORDINATION_UNAVAILABLE);
				assertThat(first.peers().get(0).detail()).contains("no answer from");
				long threadsWaiting = coordinatorThreads();
				for (int i = 0; i < 5; i++) {
					Decision refused = timed(() -> manager.decide("JOBS"), BOUND);
					assertThat(refused.reason()).isEqualTo(Reason.COORDINATION_UNAVAILABLE);
					assertThat(refused.isGranted()).isFalse();
				}
				assertThat(accepted).as("connections opened to the silent host").hasSize(1);
				assertThat(coordinatorThreads()).as("threads asking the database").isLessThanOrEqualTo(threadsWaiting);
			}
		}
		finally {
			for (Socket socket : accepted) {
				socket.close(); // ends the driver's read, and with it the coordinator's thread
			}
		}
	}

	private static PollingManager manager(javax.sql.DataSource dataSource, Dialect dialect) {
		return PollingManager.builder()
			.settings(PollingSettings.defaults().withInstanceId("a").withPeerTimeout(PEER_TIMEOUT))
			.cluster(ClusterDefinition.of("JOBS", Duration.ofSeconds(10)))
			.coordinator("JOBS", new JdbcCoordinator(dataSource, dialect, TableNames.defaults(), null, PEER_TIMEOUT))
			.build();
	}

	private static String holder(javax.sql.DataSource dataSource) throws Exception {
		try (Connection connection = dataSource.getConnection();
				var statement = connection.prepareStatement("SELECT holder FROM " + TableNames.defaults().coordination()
						+ " WHERE cluster_id = 'JOBS'");
				var row = statement.executeQuery()) {
			assertThat(row.next()).isTrue();
			return row.getString(1);
		}
	}

	private static long coordinatorThreads() {
		return Thread.getAllStackTraces().keySet().stream().filter((t) -> t.getName().equals("polling-coordinator")).count();
	}

	private static <T> T timed(java.util.concurrent.Callable<T> action, Duration bound) throws Exception {
		long start = System.nanoTime();
		T result = action.call();
		Duration took = Duration.ofNanos(System.nanoTime() - start);
		assertThat(took).as("took %s ms, bound %s ms", took.toMillis(), bound.toMillis()).isLessThan(bound);
		return result;
	}

	private static void migrate(String url) {
		org.h2.jdbcx.JdbcDataSource h2 = new org.h2.jdbcx.JdbcDataSource();
		h2.setURL(url);
		Schema.migrate(h2, Dialect.H2, TableNames.defaults());
	}

}
