package dev.polling.boot.autoconfigure.coordination;

import java.time.Duration;
import java.util.Optional;

import javax.sql.DataSource;

import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import dev.polling.boot.autoconfigure.PollingAutoConfiguration;
import dev.polling.core.Decision;
import dev.polling.core.Decision.Reason;
import dev.polling.core.PollingManager;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code polling.coordination.kind=shedlock} on ShedLock's JDBC provider over an H2 database shared by two
 * application contexts (two instances): one holder, each cluster's wait time its lockAtMostFor
 * unless a failover period is configured, the start stopped with the property named when there is
 * no LockProvider or it cannot extend.
 */
class PollingShedLockAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(PollingShedLockAutoConfiguration.class, PollingAutoConfiguration.class))
		.withBean(DataSource.class, () -> new DriverManagerDataSource("jdbc:h2:mem:shedlock-starter;DB_CLOSE_DELAY=-1", "sa", ""))
		.withPropertyValues("polling.coordination.kind=shedlock",
				"polling.clusters.MAILBOX_1.wait-time=10s", "polling.clusters.MAILBOX_2.wait-time=20s");

	@Test
	void theClustersTakeShedLocksAndTwoInstancesAgreeOnOneHolder() {
		ApplicationContextRunner instance = this.runner.withUserConfiguration(JdbcLockProviderConfiguration.class);
		instance.withPropertyValues("polling.instance-id=app-1").run((a) -> {
			PollingManager first = a.getBean(PollingManager.class);
			Decision decision = first.decide("MAILBOX_1");
			assertThat(decision.reason()).isEqualTo(Reason.NO_ACTIVE_PEER);
			assertThat(decision.peers().get(0).peerId()).isEqualTo("coordinator");
			assertThat(decision.peers().get(0).address()).contains("ShedLock JdbcTemplateLockProvider").contains("polling-*");
			assertThat(first.fencingToken("MAILBOX_1")).isEmpty();
			// a fresh lock lasts the cluster's wait time (extensions move lock_until, not locked_at)
			assertThat(leaseSeconds(new JdbcTemplate(a.getBean(DataSource.class)), "polling-MAILBOX_1")).isBetween(9L, 10L);
			instance.withPropertyValues("polling.instance-id=app-2").run((b) -> {
				PollingManager second = b.getBean(PollingManager.class);
				for (int tick = 0; tick < 20; tick++) {
					assertThat(first.decide("MAILBOX_1").reason()).isEqualTo(Reason.RENEWED);
					assertThat(second.decide("MAILBOX_1").reason()).isEqualTo(Reason.PEER_ACTIVE);
				}
				assertThat(second.decide("MAILBOX_2").isGranted()).isTrue();
				JdbcTemplate jdbc = new JdbcTemplate(b.getBean(DataSource.class));
				assertThat(leaseSeconds(jdbc, "polling-MAILBOX_2")).isBetween(19L, 20L);
			});
			// app-2's shutdown unlocked MAILBOX_2: app-1 takes it at once
			assertThat(first.decide("MAILBOX_2").reason()).isEqualTo(Reason.NO_ACTIVE_PEER);
		});
	}

	@Test
	void aConfiguredFailoverPeriodAppliesToEveryCluster() {
		this.runner.withUserConfiguration(JdbcLockProviderConfiguration.class)
			.withPropertyValues("polling.coordination.failover-period=45s", "polling.coordination.shedlock.lock-name-prefix=orders-")
			.run((context) -> {
				PollingManager manager = context.getBean(PollingManager.class);
				assertThat(manager.decide("MAILBOX_1").isGranted()).isTrue();
				assertThat(manager.decide("MAILBOX_2").isGranted()).isTrue();
				JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
				assertThat(leaseSeconds(jdbc, "orders-MAILBOX_1")).isBetween(44L, 45L);
				assertThat(leaseSeconds(jdbc, "orders-MAILBOX_2")).isBetween(44L, 45L);
			});
	}

	@Test
	void withoutALockProviderTheStartFailsNamingTheProperty() {
		this.runner.run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("polling.coordination.kind")
				.hasMessageContaining("LockProvider bean");
		});
	}

	@Test
	void aProviderThatCannotExtendStopsTheStartNamingIt() {
		this.runner.withUserConfiguration(WithoutExtendConfiguration.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).rootCause()
					.hasMessageContaining("polling.coordination.kind")
					.hasMessageContaining(WithoutExtend.class.getName())
					.hasMessageContaining("cannot extend a lock");
			});
	}

	@Test
	void clustersWhoseLockNamesAStoreCouldTakeForOneStopTheStartNamingBothIds() {
		String stem = "A".repeat(56);
		// different wait times: two ShedLock coordinators, one per failover period, on one provider and prefix
		this.runner.withUserConfiguration(JdbcLockProviderConfiguration.class)
			.withPropertyValues("polling.clusters." + stem + "_IN.wait-time=10s", "polling.clusters." + stem + "_OUT.wait-time=20s")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).rootCause()
					.hasMessageContaining("polling.clusters")
					.hasMessageContaining("clusters '" + stem + "_IN' and '" + stem + "_OUT' would share one ShedLock lock")
					.hasMessageContaining("rename one of the clusters");
			});
	}

	@Test
	void aNonPositiveFailoverPeriodStopsTheStartNamingTheProperty() {
		this.runner.withUserConfiguration(JdbcLockProviderConfiguration.class)
			.withPropertyValues("polling.coordination.failover-period=0s")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).rootCause()
					.hasMessageContaining("polling.coordination.failover-period")
					.hasMessageContaining("must be positive");
			});
	}

	private static long leaseSeconds(JdbcTemplate jdbc, String name) {
		return jdbc.queryForObject("SELECT DATEDIFF('SECOND', locked_at, lock_until) FROM shedlock WHERE name = ?", Long.class, name);
	}

	@Configuration(proxyBeanMethods = false)
	static class JdbcLockProviderConfiguration {

		@Bean
		LockProvider lockProvider(DataSource dataSource) {
			JdbcTemplate jdbc = new JdbcTemplate(dataSource);
			jdbc.execute("CREATE TABLE IF NOT EXISTS shedlock (name VARCHAR(64) PRIMARY KEY, lock_until TIMESTAMP NOT NULL, "
					+ "locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL)");
			return new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder().withJdbcTemplate(jdbc).usingDbTime().build());
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class WithoutExtendConfiguration {

		@Bean
		LockProvider withoutExtendProvider(DataSource dataSource) {
			return new WithoutExtend(new JdbcLockProviderConfiguration().lockProvider(dataSource));
		}

	}

	/** A provider whose locks cannot be extended, as ShedLock's ZooKeeper, Hazelcast or DynamoDB providers. */
	static final class WithoutExtend implements LockProvider {

		private final LockProvider delegate;

		WithoutExtend(LockProvider delegate) {
			this.delegate = delegate;
		}

		@Override
		public Optional<SimpleLock> lock(LockConfiguration configuration) {
			return this.delegate.lock(configuration).map((lock) -> lock::unlock);
		}

	}

}
