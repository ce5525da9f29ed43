package dev.polling.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.polling.core.ClusterCoordinator.Claim;
import dev.polling.core.ClusterDefinition;
import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.test.RestartableServer;
import dev.polling.jdbc.test.TestDatabase;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;

/**
 * {@link ShedLockContractTest} on PostgreSQL 17 (embedded, a server of the test's own that it stops
 * and restarts) through ShedLock's {@link JdbcTemplateLockProvider} in its recommended configuration,
 * {@code usingDbTime()}.
 */
class PostgresShedLockTest extends ShedLockContractTest {

	private @Nullable RestartableServer server;

	private @Nullable TestDatabase database;

	@Override
	void startStore() {
		this.server = RestartableServer.create(Dialect.POSTGRESQL);
		this.database = this.server.createDatabase("shedlock");
		// ShedLock's table, as its documentation gives it for PostgreSQL
		this.database.execute("CREATE TABLE shedlock (name VARCHAR(64) PRIMARY KEY, lock_until TIMESTAMP NOT NULL, "
				+ "locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL)");
	}

	@Override
	void closeStore() {
		if (this.server != null) {
			this.server.close();
		}
	}

	@Override
	void stopServer() {
		this.server.stop();
	}

	@Override
	void restartServer() {
		this.server.start();
	}

	@Override
	void forgetLock(String lockName) {
		this.database.execute("DELETE FROM shedlock WHERE name = '" + lockName.replace("'", "''") + "'");
	}

	@Override
	void forgetAllLocks() {
		this.database.execute("TRUNCATE shedlock");
	}

	@Override
	LockProvider newProvider() {
		// a data source of its own (a new connection per request), as another application instance has
		return new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder()
			.withJdbcTemplate(new JdbcTemplate(this.database.newDataSource()))
			.usingDbTime()
			.build());
	}

	@Override
	LockProvider newOwnerBlindProvider() {
		// the default owner (locked_by) is the host name, the same for every instance in this JVM
		return newProvider();
	}

	/**
	 * A store that compares lock names without case and accents (a table whose name column has a
	 * case- and accent-insensitive collation, as MySQL's and SQL Server's defaults are) takes
	 * 'polling-CAFÉ…' and 'polling-cafe…' for one lock, so two such clusters would exclude each
	 * other: the coordinator says so at start ({@code verifyLockNames}) and refuses the second
	 * cluster as unavailable instead of letting it wait behind the first one's lock.
	 */
	@Test
	void clustersWhoseLockNamesACaseInsensitiveStoreTakesForOneAreAnErrorNotOneLock() {
		this.database.execute("CREATE COLLATION IF NOT EXISTS polling_ci (provider = icu, locale = 'und-u-ks-level1', "
				+ "deterministic = false)",
				"CREATE TABLE IF NOT EXISTS shedlock_ci (name VARCHAR(64) COLLATE polling_ci PRIMARY KEY, lock_until TIMESTAMP NOT NULL, "
						+ "locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL)");
		LockProvider provider = new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder()
			.withJdbcTemplate(new JdbcTemplate(this.database.newDataSource()))
			.withTableName("shedlock_ci")
			.usingDbTime()
			.build());
		ClusterDefinition upper = newCluster("CAFÉ");
		ClusterDefinition lower = ClusterDefinition.of(upper.id().toLowerCase(Locale.ROOT).replace('é', 'e'), Duration.ofSeconds(10));
		// the store takes the two names for one lock
		Optional<SimpleLock> taken = provider.lock(new LockConfiguration(Instant.now(), "polling-" + upper.id(), FAILOVER, Duration.ZERO));
		assertThat(taken).isPresent();
		assertThat(provider.lock(new LockConfiguration(Instant.now(), "polling-" + lower.id(), FAILOVER, Duration.ZERO)))
			.as("the other cluster's lock, in this store").isEmpty();
		taken.get().unlock();

		ShedLockCoordinator coordinator = ShedLockCoordinator.builder(provider).failoverPeriod(FAILOVER).build();
		assertThatThrownBy(() -> coordinator.verifyLockNames(List.of(upper.id(), lower.id())))
			.isInstanceOf(IllegalStateException.class)
			.hasMessageContaining("clusters '" + upper.id() + "' and '" + lower.id() + "' would share one ShedLock lock");
		Instance first = new Instance("app", upper, coordinator);
		Instance second = new Instance("app", lower, coordinator);
		assertThat(first.acquire().granted()).isTrue();
		Claim refused = second.acquire();
		assertThat(refused.isUnavailable()).as("%s", refused).isTrue();
		assertThat(refused.failure()).contains("clusters '" + upper.id() + "' and '" + lower.id() + "'");
		first.release();
		assertThat(second.acquire().isUnavailable()).as("not even when the first cluster is free").isTrue();
		assertThat(first.acquire().granted()).isTrue();
	}

	@Override
	String describedAs() {
		return "JdbcTemplateLockProvider";
	}

}
