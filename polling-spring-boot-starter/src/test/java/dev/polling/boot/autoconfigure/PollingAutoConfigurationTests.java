package dev.polling.boot.autoconfigure;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.jmx.JmxAutoConfiguration;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.test.context.ConfigDataApplicationContextInitializer;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.polling.boot.actuate.PollingEndpoint;
import dev.polling.boot.aop.PollingAnnotationBeanPostProcessor;
import dev.polling.boot.aop.UnguardedPollingMethodsReporter;
import dev.polling.boot.autoconfigure.actuate.PollingEndpointAutoConfiguration;
import dev.polling.boot.autoconfigure.health.PollingHealthContributorAutoConfiguration;
import dev.polling.boot.autoconfigure.metrics.PollingMetricsAutoConfiguration;
import dev.polling.boot.metrics.PollingMetrics;
import dev.polling.core.ClusterDefinition;
import dev.polling.core.Decision;
import dev.polling.core.PeerDefinition;
import dev.polling.core.PollingManager;
import dev.polling.core.PollingSettings;
import dev.polling.core.UnreachablePeerPolicy;
import dev.polling.core.JmxNames;
import dev.polling.core.jmx.PollingJmxServer;

import static org.assertj.core.api.Assertions.assertThat;
import dev.polling.boot.autoconfigure.properties.PollingProperties;

class PollingAutoConfigurationTests {

	static final AutoConfigurations ALL = AutoConfigurations.of(PollingAutoConfiguration.class,
			PollingEndpointAutoConfiguration.class, PollingHealthContributorAutoConfiguration.class,
			PollingMetricsAutoConfiguration.class);

	private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(ALL)
		.withPropertyValues("polling.instance-id=test-instance", "polling.jmx.domain=dev.polling.autoconfigtest",
				"management.endpoints.web.exposure.include=polling");

	@Test
	void stopsByReleasingTheClustersOnceTheRunningCycleHasEnded() {
		this.runner.withPropertyValues("polling.clusters.MAILABRUF_CLUSTER.wait-time=10s", "polling.shutdown.timeout=30s")
			.run((context) -> {
				PollingManager manager = context.getBean(PollingManager.class);
				PollingManagerLifecycle lifecycle = context.getBean(PollingManagerLifecycle.class);
				CountDownLatch cycleRunning = new CountDownLatch(1);
				CountDownLatch endCycle = new CountDownLatch(1);
				Thread cycle = new Thread(() -> {
					try {
						manager.runIfGranted("MAILABRUF_CLUSTER", () -> {
							cycleRunning.countDown();
							endCycle.await();
						});
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
					}
				});
				cycle.start();
				assertThat(cycleRunning.await(10, TimeUnit.SECONDS)).isTrue();
				CountDownLatch stopped = new CountDownLatch(1);
				lifecycle.stop(stopped::countDown);
				// the stop waits on a thread of its own while the cycle runs: the cluster stays held, handed over when it ends
				org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
					.until(() -> manager.status("MAILABRUF_CLUSTER").handingOver());
				assertThat(stopped.getCount()).isOne();
				assertThat(manager.isHolding("MAILABRUF_CLUSTER")).isTrue();
				assertThat(manager.decide("MAILABRUF_CLUSTER").reason()).as("no new decision while shutting down")
					.isEqualTo(dev.polling.core.Decision.Reason.CLOSED);
				endCycle.countDown();
				assertThat(stopped.await(10, TimeUnit.SECONDS)).isTrue();
				assertThat(manager.isHolding("MAILABRUF_CLUSTER")).isFalse();
				assertThat(manager.tryStartPolling("MAILABRUF_CLUSTER")).isFalse();
				cycle.join(10_000);
			});
	}

	@Test
	void releasesTheClustersInTheFirstShutdownPhaseAndClosesTheJmxServerInALaterOne() {
		this.runner.withPropertyValues("polling.clusters.MAILABRUF_CLUSTER.wait-time=10s").run((context) -> {
			int release = context.getBean(PollingManagerLifecycle.class).getPhase();
			assertThat(release).isEqualTo(SmartLifecycle.DEFAULT_PHASE);
			assertThat(PollingManagerLifecycle.WORKERS_PHASE).isLessThan(release);
			assertThat(context.getBean(PollingJmxServerLifecycle.class).getPhase())
				.isLessThan(PollingManagerLifecycle.WORKERS_PHASE);
		});
	}

	@Test
	void createsTheManagerFromTheProperties() {
		this.runner
			.withPropertyValues("polling.jmx.peer-timeout=750ms", "polling.jmx.unreachable-peer-policy=presume-last-known",
					"polling.jmx.peers.SERVER2.host=localhost", "polling.jmx.peers.SERVER2.port=9010",
					"polling.jmx.peers.SERVER2.username=userid", "polling.jmx.peers.SERVER2.password=pwd",
					"polling.clusters.MAILABRUF_CLUSTER.name=XY-Nachrichten", "polling.clusters.MAILABRUF_CLUSTER.wait-time=600s")
			.run((context) -> {
				assertThat(context).hasSingleBean(PollingManager.class).hasSingleBean(PollingAnnotationBeanPostProcessor.class);
				assertThat(context.getBean(PollingJmxServerLifecycle.class).server()).isNull();
				PollingManager manager = context.getBean(PollingManager.class);
				assertThat(manager.settings().instanceId()).isEqualTo("test-instance");
				assertThat(manager.settings().peerTimeout()).isEqualTo(Duration.ofMillis(750));
				assertThat(manager.settings().unreachablePeerPolicy()).isEqualTo(UnreachablePeerPolicy.PRESUME_LAST_KNOWN);
				assertThat(manager.cluster("MAILABRUF_CLUSTER").name()).isEqualTo("XY-Nachrichten");
				assertThat(manager.cluster("MAILABRUF_CLUSTER").waitTime()).isEqualTo(Duration.ofSeconds(600));
				PeerDefinition peer = manager.peers().get("SERVER2");
				assertThat(peer.host()).isEqualTo("localhost");
				assertThat(peer.port()).isEqualTo(9010);
				assertThat(peer.username()).isEqualTo("userid");
				assertThat(peer.password()).isEqualTo("pwd");
			});
	}

	@Test
	void registersTheClusterMBeansInThePlatformMBeanServerWithoutSpringJmxAndRemovesThemOnClose() {
		var name = JmxNames.clusterName("dev.polling.autoconfigtest", "MAILABRUF_CLUSTER");
		this.runner.withPropertyValues("spring.jmx.enabled=false", "polling.clusters.MAILABRUF_CLUSTER.wait-time=10s")
			.run((context) -> assertThat(ManagementFactory.getPlatformMBeanServer().isRegistered(name)).isTrue());
		assertThat(ManagementFactory.getPlatformMBeanServer().isRegistered(name)).isFalse();
	}

	@Test
	void registersTheClusterMBeansInThePlatformMBeanServerWithSpringJmxToo() {
		var name = JmxNames.clusterName("dev.polling.autoconfigtest", "MAILABRUF_CLUSTER");
		this.runner.withConfiguration(AutoConfigurations.of(JmxAutoConfiguration.class))
			.withPropertyValues("spring.jmx.enabled=true", "polling.clusters.MAILABRUF_CLUSTER.wait-time=10s")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(ManagementFactory.getPlatformMBeanServer().isRegistered(name)).isTrue();
				assertThat(ManagementFactory.getPlatformMBeanServer().getAttribute(name, "InstanceId")).isEqualTo("test-instance");
			});
		assertThat(ManagementFactory.getPlatformMBeanServer().isRegistered(name)).isFalse();
	}

	@Test
	void releasesTheClustersOnShutdown() {
		PollingManager[] manager = new PollingManager[1];
		this.runner.withPropertyValues("polling.clusters.MAILABRUF_CLUSTER.wait-time=10s").run((context) -> {
			manager[0] = context.getBean(PollingManager.class);
			assertThat(manager[0].tryStartPolling("MAILABRUF_CLUSTER")).isTrue();
			assertThat(manager[0].isHolding("MAILABRUF_CLUSTER")).isTrue();
		});
		assertThat(manager[0].isHolding("MAILABRUF_CLUSTER")).isFalse();
		assertThat(manager[0].lastActivity("MAILABRUF_CLUSTER")).isEmpty();
		assertThat(manager[0].decide("MAILABRUF_CLUSTER").reason()).isEqualTo(Decision.Reason.CLOSED);
	}

	@Test
	void runsStandaloneWithoutPeers() {
		this.runner.withPropertyValues("polling.clusters.MAILABRUF_CLUSTER.wait-time=10s").run((context) -> {
			PollingManager manager = context.getBean(PollingManager.class);
			assertThat(manager.isStandalone()).isTrue();
			assertThat(manager.decide("MAILABRUF_CLUSTER").reason()).isEqualTo(Decision.Reason.STANDALONE);
		});
	}

	@Test
	void switchesEverythingOffWithPollingEnabledFalse() {
		this.runner.withPropertyValues("polling.enabled=false", "polling.clusters.MAILABRUF_CLUSTER.wait-time=10s")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(PollingManager.class)
				.doesNotHaveBean(PollingAnnotationBeanPostProcessor.class)
				.doesNotHaveBean(PollingProperties.class)
				.doesNotHaveBean(PollingEndpoint.class)
				.doesNotHaveBean(PollingMetrics.class)
				.doesNotHaveBean("pollingHealthContributor"));
	}

	@Test
	void appliesTheBuilderCustomizersBeforeBuildingTheManager() {
		this.runner.withPropertyValues("polling.clusters.MAILABRUF_CLUSTER.wait-time=10s")
			.withBean(PollingManagerBuilderCustomizer.class,
					() -> (builder) -> builder.cluster(ClusterDefinition.of("ADDED_BY_CUSTOMIZER", Duration.ofSeconds(20))))
			.run((context) -> assertThat(context.getBean(PollingManager.class).clusterIds()).containsExactly("MAILABRUF_CLUSTER",
					"ADDED_BY_CUSTOMIZER"));
	}

	@Test
	void reportsUnguardedMethodsOnlyWhenPollingIsDisabled() {
		ApplicationContextRunner runner = this.runner.withConfiguration(AutoConfigurations.of(PollingDisabledAutoConfiguration.class));
		runner.withPropertyValues("polling.enabled=false")
			.run((context) -> assertThat(context).hasSingleBean(UnguardedPollingMethodsReporter.class));
		runner.withPropertyValues("polling.clusters.MAILABRUF_CLUSTER.wait-time=10s")
			.run((context) -> assertThat(context).doesNotHaveBean(UnguardedPollingMethodsReporter.class));
	}

	@Test
	void createsNoManagerWithoutClusters() {
		this.runner.run((context) -> assertThat(context).hasNotFailed()
			.doesNotHaveBean(PollingManager.class)
			.hasSingleBean(PollingAnnotationBeanPostProcessor.class)
			.doesNotHaveBean(PollingEndpoint.class)
			.doesNotHaveBean(PollingMetrics.class)
			.doesNotHaveBean("pollingHealthContributor"));
	}

	@Test
	void backsOffForAUserDefinedManager() {
		this.runner.withUserConfiguration(UserManagerConfiguration.class)
			.withPropertyValues("polling.clusters.MAILABRUF_CLUSTER.wait-time=10s")
			.run((context) -> {
				assertThat(context).hasSingleBean(PollingManager.class);
				assertThat(context.getBean(PollingManager.class).clusterIds()).containsExactly("USER_CLUSTER");
				assertThat(context.getBean(PollingEndpoint.class).polling(org.springframework.boot.actuate.endpoint.SecurityContext.NONE).clusters()).containsOnlyKeys("USER_CLUSTER");
			});
	}

	@Test
	void backsOffForUserDefinedEndpointHealthAndMetrics() {
		this.runner.withUserConfiguration(UserActuatorConfiguration.class)
			.withBean(io.micrometer.core.instrument.MeterRegistry.class, io.micrometer.core.instrument.simple.SimpleMeterRegistry::new)
			.withPropertyValues("polling.clusters.MAILABRUF_CLUSTER.wait-time=10s")
			.run((context) -> {
				assertThat(context.getBean(PollingEndpoint.class)).isSameAs(context.getBean("myEndpoint"));
				assertThat(context.getBean(PollingMetrics.class)).isSameAs(context.getBean("myMetrics"));
				assertThat(context.getBean("pollingHealthContributor")).isSameAs(UserActuatorConfiguration.HEALTH);
			});
	}

	/** Issue 18, item 7: no meter binder without a registry to bind to. */
	@Test
	void contributesNoMetricsWithoutAMeterRegistry() {
		this.runner.withPropertyValues("polling.clusters.A_CLUSTER.wait-time=10s")
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(PollingManager.class).doesNotHaveBean(PollingMetrics.class));
	}

	@Test
	void contributesEndpointHealthAndMetricsWithTheirLibrariesPresent() {
		this.runner.withBean(io.micrometer.core.instrument.MeterRegistry.class, io.micrometer.core.instrument.simple.SimpleMeterRegistry::new)
			.withPropertyValues("polling.clusters.A_CLUSTER.wait-time=10s", "polling.clusters.B_CLUSTER.wait-time=20s")
			.run((context) -> {
				assertThat(context).hasSingleBean(PollingEndpoint.class).hasSingleBean(PollingMetrics.class);
				HealthContributor health = context.getBean("pollingHealthContributor", HealthContributor.class);
				assertThat(health).isInstanceOf(CompositeHealthContributor.class);
				assertThat(((CompositeHealthContributor) health).getContributor("A_CLUSTER")).isNotNull();
				assertThat(((CompositeHealthContributor) health).getContributor("B_CLUSTER")).isNotNull();
			});
	}

	@Test
	void leavesTheEndpointOutUnlessItIsExposed() {
		new ApplicationContextRunner().withConfiguration(ALL)
			.withPropertyValues("polling.jmx.domain=dev.polling.autoconfigtest", "polling.clusters.A_CLUSTER.wait-time=10s")
			.run((context) -> assertThat(context).hasSingleBean(PollingManager.class).doesNotHaveBean(PollingEndpoint.class));
	}

	@Test
	void leavesTheHealthContributorOutWhenDisabled() {
		this.runner.withPropertyValues("polling.clusters.A_CLUSTER.wait-time=10s", "management.health.polling.enabled=false")
			.run((context) -> assertThat(context).hasSingleBean(PollingManager.class).doesNotHaveBean("pollingHealthContributor"));
	}

	@Test
	void worksWithoutTheActuator() {
		this.runner.withClassLoader(new FilteredClassLoader(Endpoint.class, HealthContributor.class))
			.withPropertyValues("polling.clusters.A_CLUSTER.wait-time=10s")
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(PollingManager.class).doesNotHaveBean(PollingEndpoint.class)
					.doesNotHaveBean("pollingHealthContributor");
				assertThat(context.getBean(PollingManager.class).tryStartPolling("A_CLUSTER")).isTrue();
			});
	}

	@Test
	void worksWithoutHealth() {
		this.runner.withClassLoader(new FilteredClassLoader(HealthContributor.class))
			.withPropertyValues("polling.clusters.A_CLUSTER.wait-time=10s")
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(PollingManager.class)
				.hasSingleBean(PollingEndpoint.class).doesNotHaveBean("pollingHealthContributor"));
	}

	@Test
	void worksWithoutMicrometer() {
		this.runner.withClassLoader(new FilteredClassLoader(MeterRegistry.class))
			.withPropertyValues("polling.clusters.A_CLUSTER.wait-time=10s")
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(PollingManager.class).doesNotHaveBean(PollingMetrics.class);
				assertThat(context.getBean(PollingManager.class).tryStartPolling("A_CLUSTER")).isTrue();
			});
	}

	@Test
	void readsTheSeedsFirstExampleAsYamlWithClusterIdsAsWritten() {
		this.runner.withInitializer(new ConfigDataApplicationContextInitializer())
			.withPropertyValues("spring.config.location=classpath:seed-4.1.5.yml")
			.run((context) -> {
				PollingManager manager = context.getBean(PollingManager.class);
				assertThat(manager.clusterIds()).containsExactly("MAILABRUF_CLUSTER");
				assertThat(manager.cluster("MAILABRUF_CLUSTER").name()).isEqualTo("XY-Nachrichten");
				assertThat(manager.cluster("MAILABRUF_CLUSTER").waitTime()).isEqualTo(Duration.ofMinutes(10));
				assertThat(manager.peers()).containsOnlyKeys("SERVER2");
				assertThat(manager.peers().get("SERVER2").address()).isEqualTo("localhost:9010");
			});
	}

	@Test
	void readsTheSeedsLoadDistributionExampleAsYaml() {
		this.runner.withInitializer(new ConfigDataApplicationContextInitializer())
			.withPropertyValues("spring.config.location=classpath:seed-4.1.6.yml")
			.run((context) -> {
				PollingManager manager = context.getBean(PollingManager.class);
				assertThat(manager.clusterIds()).containsExactly("POSTFACH1_CLUSTER", "POSTFACH2_CLUSTER");
				assertThat(manager.cluster("POSTFACH1_CLUSTER").name()).isEqualTo("Postfachabruf-1");
				assertThat(manager.cluster("POSTFACH2_CLUSTER").name()).isEqualTo("Postfachabruf-2");
				assertThat(manager.status("POSTFACH2_CLUSTER").peerIds()).containsExactly("SERVER2");
			});
	}

	@Test
	void limitsAClusterToTheNamedPeers() {
		this.runner
			.withPropertyValues("polling.jmx.peers.SERVER2.host=localhost", "polling.jmx.peers.SERVER2.port=9010",
					"polling.jmx.peers.SERVER3.url=service:jmx:rmi:///jndi/rmi://localhost:9011/jmxrmi",
					"polling.clusters.A_CLUSTER.wait-time=10s", "polling.clusters.A_CLUSTER.peers=SERVER3",
					"polling.clusters.B_CLUSTER.wait-time=10s")
			.run((context) -> {
				PollingManager manager = context.getBean(PollingManager.class);
				assertThat(manager.status("A_CLUSTER").peerIds()).containsExactly("SERVER3");
				assertThat(manager.status("B_CLUSTER").peerIds()).containsExactly("SERVER2", "SERVER3");
			});
	}

	@Configuration(proxyBeanMethods = false)
	static class UserManagerConfiguration {

		@Bean(destroyMethod = "close")
		PollingManager userManager() {
			return PollingManager.builder()
				.settings(PollingSettings.defaults().withInstanceId("user"))
				.cluster(ClusterDefinition.of("USER_CLUSTER", Duration.ofSeconds(10)))
				.build();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserActuatorConfiguration {

		static final HealthContributor HEALTH = (org.springframework.boot.health.contributor.HealthIndicator) () -> org.springframework.boot.health.contributor.Health
			.up()
			.build();

		@Bean
		PollingEndpoint myEndpoint(PollingManager manager) {
			return new PollingEndpoint(manager);
		}

		@Bean
		PollingMetrics myMetrics() {
			return new PollingMetrics(() -> null);
		}

		@Bean
		HealthContributor pollingHealthContributor() {
			return HEALTH;
		}

	}

}
