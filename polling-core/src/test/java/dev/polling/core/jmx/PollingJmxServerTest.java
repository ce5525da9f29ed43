package dev.polling.core.jmx;

import dev.polling.core.JmxNames;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import java.util.Set;

import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

import org.junit.jupiter.api.Test;

import dev.polling.core.ClusterDefinition;
import dev.polling.core.PollingManager;
import dev.polling.core.TestBuilders;
import dev.polling.core.PollingSettings;

class PollingJmxServerTest {

	@Test
	void showsARemoteClientOnlyThePollingMBeansNotThePlatformOnes() throws Exception {
		withManagerAndClient((manager, connection) -> {
			Set<ObjectName> names = connection.queryNames(null, null);
			assertThat(names).contains(JmxNames.clusterName("dev.polling", "MAILABRUF_CLUSTER"));
			assertThat(names).doesNotContain(new ObjectName("java.lang:type=Runtime"));
			assertThat(names).allMatch((n) -> n.getDomain().equals("dev.polling"));
		});
	}

	@Test
	void exposesElapsedTimeHoldingAndInstanceIdPerCluster() throws Exception {
		withManagerAndClient((manager, connection) -> {
			ObjectName name = JmxNames.clusterName("dev.polling", "MAILABRUF_CLUSTER");
			assertThat(connection.getAttribute(name, "ElapsedMillis")).isEqualTo(Long.MAX_VALUE);
			assertThat(connection.getAttribute(name, "Holding")).isEqualTo(false);
			assertThat(connection.getAttribute(name, "LastActivity")).isEqualTo("never");
			manager.decide("MAILABRUF_CLUSTER");
			assertThat((Long) connection.getAttribute(name, "ElapsedMillis")).isLessThan(10_000L);
			assertThat(connection.getAttribute(name, "Holding")).isEqualTo(true);
			assertThat(connection.getAttribute(name, "InstanceId")).isEqualTo("node-1");
			assertThat(connection.getAttribute(name, "CandidateAgeMillis")).isEqualTo(-1L);
		});
		try (PollingJmxServer server = PollingJmxServer.start(JmxServerSettings.loopback(0))) {
			PollingManager manager = manager(server);
			manager.close();
			assertThat(server.mbeanServer().queryNames(new ObjectName("dev.polling:*"), null)).isEmpty();
		}
	}

	@Test
	void rejectsWrongCredentialsAndAcceptsTheRightOnes() throws Exception {
		try (PollingJmxServer server = PollingJmxServer.start(JmxServerSettings.loopback(0).withCredentials("poller", "secret-1"))) {
			JMXServiceURL url = new JMXServiceURL(server.serviceUrl());
			assertThatThrownBy(() -> JMXConnectorFactory.connect(url, Map.of(JMXConnector.CREDENTIALS, new String[] { "poller", "nope" })))
				.isInstanceOf(SecurityException.class)
				.hasMessageNotContaining("secret-1");
			assertThatThrownBy(() -> JMXConnectorFactory.connect(url)).isInstanceOf(SecurityException.class);
			try (JMXConnector ok = JMXConnectorFactory.connect(url, Map.of(JMXConnector.CREDENTIALS, new String[] { "poller", "secret-1" }))) {
				assertThat(ok.getMBeanServerConnection().getDefaultDomain()).isNotEmpty();
			}
		}
	}

	@Test
	void refusesANonLoopbackBindWithoutCredentialsUnlessAllowed() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new JmxServerSettings("0.0.0.0", 9010, null, null, null, false, Duration.ofSeconds(30), false))
			.withMessageContaining("'0.0.0.0'")
			.withMessageContaining("set credentials, bind to 127.0.0.1, or explicitly allow unauthenticated access");
		assertThat(new JmxServerSettings("0.0.0.0", 9010, null, null, null, true, Duration.ofSeconds(30), false).bindAddress())
			.isEqualTo("0.0.0.0");
		assertThat(new JmxServerSettings("0.0.0.0", 9010, null, "u", "p", false, Duration.ofSeconds(30), false).toString())
			.doesNotContain("=p,");
	}

	@Test
	void runsSeveralServersInOneJvm() throws Exception {
		try (PollingJmxServer one = PollingJmxServer.start(JmxServerSettings.loopback(0));
				PollingJmxServer two = PollingJmxServer.start(JmxServerSettings.loopback(0));
				JMXConnector c1 = JMXConnectorFactory.connect(new JMXServiceURL(one.serviceUrl()));
				JMXConnector c2 = JMXConnectorFactory.connect(new JMXServiceURL(two.serviceUrl()))) {
			assertThat(one.port()).isNotEqualTo(two.port());
			one.mbeanServer().registerMBean(new FakeClusterMBeans.WrongType(), new ObjectName("dev.polling:type=Test"));
			assertThat(c1.getMBeanServerConnection().isRegistered(new ObjectName("dev.polling:type=Test"))).isTrue();
			assertThat(c2.getMBeanServerConnection().isRegistered(new ObjectName("dev.polling:type=Test"))).isFalse();
		}
	}

	/** Runs the check with a manager on a fresh server and a remote client's connection to it. */
	private static void withManagerAndClient(ManagerCheck check) throws Exception {
		try (PollingJmxServer server = PollingJmxServer.start(JmxServerSettings.loopback(0));
				PollingManager manager = manager(server);
				JMXConnector client = JMXConnectorFactory.connect(new JMXServiceURL(server.serviceUrl()))) {
			check.run(manager, client.getMBeanServerConnection());
		}
	}

	private interface ManagerCheck {

		void run(PollingManager manager, MBeanServerConnection connection) throws Exception;

	}

	private static PollingManager manager(PollingJmxServer server) {
		return TestBuilders.ignoringStarvation(PollingManager.builder())
			.settings(PollingSettings.defaults().withInstanceId("node-1"))
			.cluster(ClusterDefinition.of("MAILABRUF_CLUSTER", Duration.ofSeconds(10)))
			.mbeanServer(server.mbeanServer())
			.build();
	}

}
