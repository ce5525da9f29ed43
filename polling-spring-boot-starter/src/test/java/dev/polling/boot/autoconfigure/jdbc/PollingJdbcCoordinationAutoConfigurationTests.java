package dev.polling.boot.autoconfigure.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.polling.boot.autoconfigure.PollingAutoConfiguration;
import dev.polling.core.ClusterCoordinator;
import dev.polling.core.Decision;
import dev.polling.core.Decision.Reason;
import dev.polling.core.PollingManager;
import dev.polling.jdbc.coordination.JdbcCoordinator;

class PollingJdbcCoordinationAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, PollingJdbcAutoConfiguration.class,
				PollingAutoConfiguration.class))
		.withPropertyValues("spring.datasource.generate-unique-name=true", "polling.instance-id=app-1",
				"polling.clusters.MAILABRUF_CLUSTER.wait-time=10s", "polling.clusters.POSTFACH_CLUSTER.wait-time=10s");

	@Test
	void coordinatesEveryClusterThroughTheDatabaseWhenAskedGlobally() {
		this.runner.withPropertyValues("polling.coordination.kind=jdbc").run((context) -> {
			assertThat(context).hasSingleBean(JdbcCoordinator.class);
			PollingManager manager = context.getBean(PollingManager.class);
			Decision decision = manager.decide("MAILABRUF_CLUSTER");
			assertThat(decision.reason()).isEqualTo(Reason.NO_ACTIVE_PEER);
			assertThat(decision.peers().get(0).address()).contains("polling_coordination");
			assertThat(manager.fencingToken("MAILABRUF_CLUSTER")).hasValue(1);
			assertThat(manager.decide("MAILABRUF_CLUSTER").reason()).isEqualTo(Reason.RENEWED);
			assertThat(manager.isStandalone()).isFalse();
		});
	}

	@Test
	void coordinatesOnlyTheClusterThatAsksForTheDatabase() {
		this.runner.withPropertyValues("polling.clusters.POSTFACH_CLUSTER.coordination=jdbc").run((context) -> {
			PollingManager manager = context.getBean(PollingManager.class);
			assertThat(manager.decide("POSTFACH_CLUSTER").peers().get(0).peerId()).isEqualTo("coordinator");
			assertThat(manager.decide("MAILABRUF_CLUSTER").reason()).isEqualTo(Reason.STANDALONE);
			assertThat(manager.fencingToken("MAILABRUF_CLUSTER")).isEmpty();
		});
	}

	@Test
	void failsAtStartupWhenJdbcCoordinationHasNoDataSource() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(PollingAutoConfiguration.class))
			.withPropertyValues("polling.clusters.MAILABRUF_CLUSTER.wait-time=10s", "polling.clusters.MAILABRUF_CLUSTER.coordination=jdbc")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).rootCause()
					.hasMessageContaining("polling.clusters.MAILABRUF_CLUSTER.coordination")
					.hasMessageContaining("no single DataSource");
			});
	}

	@Test
	void rejectsANonPositiveFailoverPeriodNamingTheProperty() {
		this.runner.withPropertyValues("polling.coordination.kind=jdbc", "polling.coordination.failover-period=0s").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("polling.coordination.failover-period");
		});
	}

	@Test
	void backsOffForAUserDefinedCoordinator() {
		ClusterCoordinator mine = new ClusterCoordinator() {

			@Override
			public Claim acquire(dev.polling.core.ClusterDefinition cluster, String instanceId) {
				return new Claim(true, false, instanceId, 42, 0, null);
			}

			@Override
			public void release(dev.polling.core.ClusterDefinition cluster, String instanceId) {
			}

			@Override
			public String describe() {
				return "mine";
			}

		};
		this.runner.withPropertyValues("polling.coordination.kind=jdbc").withBean(ClusterCoordinator.class, () -> mine).run((context) -> {
			assertThat(context).doesNotHaveBean(JdbcCoordinator.class);
			PollingManager manager = context.getBean(PollingManager.class);
			manager.decide("MAILABRUF_CLUSTER");
			assertThat(manager.fencingToken("MAILABRUF_CLUSTER")).hasValue(42);
		});
	}

}
