package dev.polling.benchmarks;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.Lock;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;

import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

import dev.polling.core.ClusterCoordinator;
import dev.polling.core.ClusterDefinition;
import dev.polling.core.Decision;
import dev.polling.core.PeerDefinition;
import dev.polling.core.PollingManager;
import dev.polling.core.PollingSettings;
import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.Schema;
import dev.polling.jdbc.TableNames;
import dev.polling.jdbc.coordination.JdbcCoordinator;
import dev.polling.shedlock.ShedLockCoordinator;

/**
 * The cost of one tick's decision, for the holder and for a standby, side by side in one run on one
 * PostgreSQL: this library's JMX coordination (against 1 and 3 peers in another JVM, see
 * {@link PeerHost}), JDBC coordination and its ShedLock bridge on ShedLock's JDBC provider, against
 * ShedLock's JDBC provider (lock + unlock, as a
 * ShedLock-guarded task does every run; {@code usingDbTime()}, its recommended setting) and Spring
 * Integration's {@code JdbcLockRegistry} (tryLock + unlock). Round trips and transactions per
 * decision are counted at the client ({@link CountingDataSource}). Each scenario: warm-up, then
 * several rounds; prints the median of the round medians with their range, and the median p99.
 *
 * <p>Run: {@code polling-benchmarks/run.sh CoordinatorBenchmark [decisions-per-round] [rounds]}
 * (defaults 5000, 3).
 */
public final class CoordinatorBenchmark {

	private static final String CLUSTER = PeerHost.CLUSTER;

	/** Long enough that no hold expires during a run: every decision is a renewal or a refusal. */
	private static final Duration WAIT = Duration.ofSeconds(600);

	private CoordinatorBenchmark() {
	}

	/** One decision of a contender; returns whether it holds afterwards. */
	private interface Tick {

		boolean run() throws Exception;

	}

	public static void main(String[] args) throws Exception {
		System.setProperty("org.slf4j.simpleLogger.log.dev.polling.core.PollingManager", "error");
		int decisions = (args.length > 0) ? Integer.parseInt(args[0]) : 5_000;
		int rounds = (args.length > 1) ? Integer.parseInt(args[1]) : 3;
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		Process host = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), PeerHost.class.getName(), "3")
			.redirectError(ProcessBuilder.Redirect.DISCARD)
			.start();
		List<AutoCloseable> resources = new ArrayList<>();
		try (EmbeddedPostgres postgres = BenchDatabases.postgres(true)) {
			int[] ports = peerHostPorts(host);
			DataSource admin = postgres.getPostgresDatabase();
			Schema.migrate(admin, Dialect.POSTGRESQL, TableNames.defaults());
			BenchSql.execute(admin, "CREATE TABLE shedlock (name VARCHAR(64) NOT NULL, lock_until TIMESTAMP NOT NULL, "
					+ "locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL, PRIMARY KEY (name))",
					"CREATE TABLE INT_LOCK (LOCK_KEY CHAR(36) NOT NULL, REGION VARCHAR(100) NOT NULL, CLIENT_ID CHAR(36), "
							+ "CREATED_DATE TIMESTAMP NOT NULL, EXPIRED_AFTER TIMESTAMP NOT NULL, "
							+ "CONSTRAINT INT_LOCK_PK PRIMARY KEY (LOCK_KEY, REGION))");
			String url = postgres.getJdbcUrl("postgres", "postgres");
			HikariDataSource pool = BenchSql.pool(url, 4);
			resources.add(pool);
			CountingDataSource counted = new CountingDataSource(pool);
			System.out.printf(Locale.ROOT, "Coordinator benchmark: PostgreSQL embedded (zonky, %s), pool of 4, %d decisions per round, "
					+ "%d rounds, java %s, %d cores; peers for JMX in another JVM%n", BenchDatabases.postgresSettings(admin), decisions,
					rounds, System.getProperty("java.version"), Runtime.getRuntime().availableProcessors());

			Map<String, Tick> scenarios = new LinkedHashMap<>();
			scenarios.put("SELECT 1 (one round trip, for scale)", selectOne(counted));

			PollingManager jmx1 = jmx(resources, "jmx-1", peers(ports[0]));
			scenarios.put("ours JMX, holder, 1 peer", decide(jmx1));
			PollingManager jmx3 = jmx(resources, "jmx-3", peers(ports[0], ports[1], ports[2]));
			scenarios.put("ours JMX, holder, 3 peers", decide(jmx3));
			PollingManager jmxStandby = jmx(resources, "jmx-standby", peers(ports[3], ports[1], ports[2]));
			scenarios.put("ours JMX, standby, 3 peers (1 holding)", decide(jmxStandby));

			JdbcCoordinator coordinator = new JdbcCoordinator(counted, Dialect.POSTGRESQL, TableNames.defaults(), null);
			PollingManager jdbcHolder = coordinated(resources, "jdbc-holder", coordinator);
			PollingManager jdbcStandby = coordinated(resources, "jdbc-standby", coordinator);
			scenarios.put("ours JDBC, holder", decide(jdbcHolder));
			scenarios.put("ours JDBC, standby", decide(jdbcStandby));

			JdbcTemplateLockProvider shedLock = new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder()
				.withJdbcTemplate(new JdbcTemplate(counted))
				.usingDbTime()
				.build());
			ShedLockCoordinator bridge = ShedLockCoordinator.builder(shedLock).failoverPeriod(WAIT).build();
			PollingManager bridgedHolder = coordinated(resources, "bridge-holder", bridge);
			PollingManager bridgedStandby = coordinated(resources, "bridge-standby", bridge);
			scenarios.put("ours bridged on ShedLock JDBC, holder (extend)", decide(bridgedHolder));
			scenarios.put("ours bridged on ShedLock JDBC, standby (lock refused)", decide(bridgedStandby));
			scenarios.put("ShedLock JDBC, holder (lock + unlock)", () -> {
				Optional<SimpleLock> lock = shedLock.lock(new LockConfiguration(Instant.now(), "shedlock-holder", WAIT, Duration.ZERO));
				lock.ifPresent(SimpleLock::unlock);
				return lock.isPresent();
			});
			if (shedLock.lock(new LockConfiguration(Instant.now(), "shedlock-standby", WAIT, Duration.ZERO)).isEmpty()) {
				throw new IllegalStateException("ShedLock: the lock held against the standby was not taken");
			}
			scenarios.put("ShedLock JDBC, standby (lock refused)",
					() -> shedLock.lock(new LockConfiguration(Instant.now(), "shedlock-standby", WAIT, Duration.ZERO)).isPresent());

			JdbcLockRegistry holderRegistry = registry(counted);
			JdbcLockRegistry otherRegistry = registry(counted);
			Lock held = holderRegistry.obtain("si-standby");
			if (!held.tryLock()) {
				throw new IllegalStateException("Spring Integration: the lock held against the standby was not taken");
			}
			scenarios.put("Spring Integration JdbcLockRegistry, holder (tryLock + unlock)", () -> tryLockAndUnlock(holderRegistry.obtain("si-holder")));
			scenarios.put("Spring Integration JdbcLockRegistry, standby (tryLock refused)", () -> tryLockAndUnlock(otherRegistry.obtain("si-standby")));
			// the holders take the cluster first, so that the standbys are refused by a live holder
			if (!jdbcHolder.decide(CLUSTER).isGranted()) {
				throw new IllegalStateException("ours JDBC: the holder was not granted");
			}
			if (!bridgedHolder.decide(CLUSTER).isGranted()) {
				throw new IllegalStateException("ours bridged: the holder was not granted");
			}

			System.out.printf("%-66s %14s %20s %10s %12s %12s%n", "scenario", "holds", "median us (range)", "p99 us", "round trips",
					"commits");
			for (Map.Entry<String, Tick> scenario : scenarios.entrySet()) {
				measure(scenario.getKey(), scenario.getValue(), counted, decisions, rounds);
			}
			// the managers release through the pool, before the server stops
			for (int i = resources.size() - 1; i >= 0; i--) {
				resources.get(i).close();
			}
			resources.clear();
		}
		finally {
			for (int i = resources.size() - 1; i >= 0; i--) {
				resources.get(i).close();
			}
			host.getOutputStream().close();
			host.destroy();
		}
	}

	private static void measure(String name, Tick tick, CountingDataSource counted, int decisions, int rounds) throws Exception {
		for (int i = 0; i < Math.min(decisions, 1_000); i++) {
			tick.run();
		}
		double[] medians = new double[rounds];
		double[] p99s = new double[rounds];
		long held = 0;
		counted.reset();
		for (int round = 0; round < rounds; round++) {
			long[] nanos = new long[decisions];
			for (int i = 0; i < decisions; i++) {
				long start = System.nanoTime();
				if (tick.run()) {
					held++;
				}
				nanos[i] = System.nanoTime() - start;
			}
			Arrays.sort(nanos);
			medians[round] = nanos[decisions / 2] / 1e3;
			p99s[round] = nanos[(int) Math.ceil(decisions * 0.99) - 1] / 1e3;
		}
		long total = (long) decisions * rounds;
		double[] sorted = medians.clone();
		Arrays.sort(sorted);
		Arrays.sort(p99s);
		System.out.printf(Locale.ROOT, "%-66s %14s %8.1f (%.1f-%.1f) %10.1f %12.2f %12.2f%n", name, held + "/" + total,
				sorted[rounds / 2], sorted[0], sorted[rounds - 1], p99s[rounds / 2], counted.roundTrips.sum() / (double) total,
				counted.commits.sum() / (double) total);
	}

	private static Tick selectOne(DataSource dataSource) {
		return () -> {
			try (var connection = dataSource.getConnection(); var statement = connection.createStatement();
					var result = statement.executeQuery("SELECT 1")) {
				return result.next();
			}
		};
	}

	private static Tick decide(PollingManager manager) {
		return () -> {
			Decision decision = manager.decide(CLUSTER);
			return decision.isGranted();
		};
	}

	private static PollingManager jmx(List<AutoCloseable> resources, String id, List<PeerDefinition> peers) {
		PollingManager manager = PollingManager.builder()
			.settings(PollingSettings.defaults().withInstanceId(id).withPeerTimeout(PeerHost.PEER_TIMEOUT))
			.cluster(ClusterDefinition.of(CLUSTER, WAIT))
			.peers(peers)
			.build();
		resources.add(manager);
		return manager;
	}

	private static PollingManager coordinated(List<AutoCloseable> resources, String id, ClusterCoordinator coordinator) {
		PollingManager manager = PollingManager.builder()
			.settings(PollingSettings.defaults().withInstanceId(id))
			.cluster(ClusterDefinition.of(CLUSTER, WAIT))
			.coordinator(CLUSTER, coordinator)
			.build();
		resources.add(manager);
		return manager;
	}

	/** Spring Integration's lock as a tick: tries it, and unlocks it when it was taken. */
	private static boolean tryLockAndUnlock(Lock lock) {
		boolean locked = lock.tryLock();
		if (locked) {
			lock.unlock();
		}
		return locked;
	}

	private static JdbcLockRegistry registry(DataSource dataSource) {
		DefaultLockRepository repository = new DefaultLockRepository(dataSource);
		repository.setTransactionManager(new DataSourceTransactionManager(dataSource));
		repository.afterPropertiesSet();
		repository.afterSingletonsInstantiated();
		repository.start();
		return new JdbcLockRegistry(repository, WAIT);
	}

	private static List<PeerDefinition> peers(int... ports) {
		List<PeerDefinition> peers = new ArrayList<>();
		for (int port : ports) {
			peers.add(PeerDefinition.of("peer-" + port, "127.0.0.1", port));
		}
		return peers;
	}

	/** Three idle peers' ports, then the active one's. */
	private static int[] peerHostPorts(Process host) throws Exception {
		int[] ports = PeerHost.readPorts(host);
		return new int[] { ports[0], ports[1], ports[2], ports[ports.length - 2] };
	}

}
