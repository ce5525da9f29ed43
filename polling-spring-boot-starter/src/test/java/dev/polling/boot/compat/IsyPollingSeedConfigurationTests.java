package dev.polling.boot.compat;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.Set;

import javax.management.MBeanServer;
import javax.management.ObjectName;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import dev.polling.core.ClusterDefinition;
import dev.polling.core.Decision.Reason;
import dev.polling.core.PeerDefinition;
import dev.polling.core.PollingManager;
import dev.polling.core.PollingSettings;
import dev.polling.core.JmxContract;
import dev.polling.core.jmx.JmxServerSettings;
import dev.polling.core.jmx.PollingJmxServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Spring Boot application configured only with the isy-polling keys of seed 001 §4.1.6 (in the
 * 4.x {@code isy.polling.*} form): it starts, registers both clusters under isy-polling's MBean
 * names in the platform MBean server (served here by a connector server standing in for the JVM's
 * own JMX agent, as with isy-polling) and coordinates with SERVER2, a peer with credentials
 * userid/pwd that uses the isy-polling contract.
 */
class IsyPollingSeedConfigurationTests {

	private static final String DOMAIN = "de.bund.bva.isyfact.polling";

	private PollingJmxServer server2;

	private PollingJmxServer platformAgent;

	private PollingManager server2Manager;

	private ConfigurableApplicationContext application;

	@AfterEach
	void stop() {
		if (this.application != null) {
			this.application.close();
		}
		if (this.server2Manager != null) {
			this.server2Manager.close();
		}
		if (this.server2 != null) {
			this.server2.close();
		}
		if (this.platformAgent != null) {
			this.platformAgent.close();
		}
	}

	@Test
	void startsRegistersBothClustersUnderIsyPollingsNamesAndCoordinatesWithServer2() throws Exception {
		MBeanServer platform = ManagementFactory.getPlatformMBeanServer();
		this.platformAgent = PollingJmxServer.start(JmxServerSettings.loopback(0).withReadableDomains(Set.of(DOMAIN)), platform);
		this.server2 = PollingJmxServer.start(
				JmxServerSettings.loopback(0).withCredentials("userid", "pwd").withPortableStubs(true).withReadableDomains(Set.of(DOMAIN)));
		this.server2Manager = PollingManager.builder()
			.settings(PollingSettings.defaults()
				.withInstanceId("SERVER2")
				.withJmxDomain(DOMAIN)
				.withJmxContract(JmxContract.ISY_POLLING))
			.clusters(List.of(new ClusterDefinition("POSTFACH1_CLUSTER", "Postfachabruf-1", Duration.ofSeconds(600), null),
					new ClusterDefinition("POSTFACH2_CLUSTER", "Postfachabruf-2", Duration.ofSeconds(600), null)))
			.peer(PeerDefinition.of("SERVER1", "127.0.0.1", this.platformAgent.port()))
			.mbeanServer(this.server2.mbeanServer())
			.build();

		// SERVER2 polls mailbox 1 before this application starts
		assertThat(this.server2Manager.tryStartPolling("POSTFACH1_CLUSTER")).isTrue();

		this.application = new SpringApplicationBuilder(SeedApplication.class).web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off", "spring.config.location=classpath:isy-polling-4.1.6.yml",
					"test.server2.port=" + this.server2.port())
			.run();

		assertThat(platform.isRegistered(new ObjectName(DOMAIN + ":type=PollingStatus,name=\"Polling-Aktivitaet-Postfachabruf-1\"")))
			.isTrue();
		assertThat(platform.isRegistered(new ObjectName(DOMAIN + ":type=PollingStatus,name=\"Polling-Aktivitaet-Postfachabruf-2\"")))
			.isTrue();
		PollingManager manager = this.application.getBean(PollingManager.class);
		assertThat(manager.clusterIds()).containsExactly("POSTFACH1_CLUSTER", "POSTFACH2_CLUSTER");

		// §4.1.1 load distribution: mailbox 1 stays with SERVER2, this instance takes mailbox 2
		assertThat(manager.decide("POSTFACH1_CLUSTER").reason()).isEqualTo(Reason.PEER_ACTIVE);
		assertThat(manager.decide("POSTFACH2_CLUSTER").reason()).isEqualTo(Reason.NO_ACTIVE_PEER);
		// and SERVER2 reads this instance's MBean under the isy-polling name: refused for mailbox 2
		assertThat(this.server2Manager.decide("POSTFACH2_CLUSTER").reason()).isEqualTo(Reason.PEER_ACTIVE);
		// through isy-polling's API as well
		PollingVerwalter verwalter = this.application.getBean(PollingVerwalter.class);
		assertThat(verwalter.startePolling("POSTFACH1_CLUSTER")).isFalse();
		assertThat(verwalter.startePolling("POSTFACH2_CLUSTER")).isTrue();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class SeedApplication {

	}

}
