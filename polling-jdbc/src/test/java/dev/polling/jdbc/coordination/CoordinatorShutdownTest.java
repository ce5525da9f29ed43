package dev.polling.jdbc.coordination;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.polling.core.ClusterDefinition;
import dev.polling.core.PollingManager;
import dev.polling.core.PollingSettings;
import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.Schema;
import dev.polling.jdbc.TableNames;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Closing a manager whose cluster is coordinated through a database that has gone away: a
 * connection pool waits its whole connection timeout for a connection (HikariCP: 30 s), so an
 * unbounded release would hold up the application's shutdown that long. The release waits at most
 * the peer timeout; the row stays with the closed instance until the failover period has passed.
 * Real parts: its own embedded PostgreSQL, stopped in the middle, and a HikariCP pool with its
 * default connection timeout.
 */
class CoordinatorShutdownTest {

	@Test
	void closingWithTheDatabaseGoneWaitsAtMostThePeerTimeout() throws Exception {
		EmbeddedPostgres postgres = EmbeddedPostgres.builder().setServerConfig("fsync", "off").start();
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(postgres.getJdbcUrl("postgres", "postgres"));
		config.setUsername("postgres");
		config.setMaximumPoolSize(2);
		assertThat(config.getConnectionTimeout()).as("HikariCP's default").isEqualTo(30_000);
		try (HikariDataSource pool = new HikariDataSource(config)) {
			Schema.migrate(pool, Dialect.POSTGRESQL, TableNames.defaults());
			PollingManager manager = PollingManager.builder()
				.settings(PollingSettings.defaults().withInstanceId("a"))
				.cluster(ClusterDefinition.of("JOBS", Duration.ofSeconds(10)))
				.coordinator("JOBS", new JdbcCoordinator(pool, Dialect.POSTGRESQL, TableNames.defaults(), null))
				.build();
			assertThat(manager.decide("JOBS").isGranted()).isTrue();
			Duration peerTimeout = manager.settings().peerTimeout();

			postgres.close();
			pool.getHikariPoolMXBean().softEvictConnections(); // the pooled connections are dead anyway
			long start = System.nanoTime();
			manager.close();
			Duration took = Duration.ofNanos(System.nanoTime() - start);

			assertThat(manager.isHolding("JOBS")).isFalse();
			assertThat(took).as("close() with the database gone (peer timeout %s, pool timeout 30 s)", peerTimeout)
				.isLessThan(peerTimeout.plusSeconds(3));
		}
	}

}
