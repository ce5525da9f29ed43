package dev.polling.boot.autoconfigure;

import java.io.IOException;
import java.time.Duration;
import java.lang.management.ManagementFactory;
import java.net.ServerSocket;
import java.rmi.NoSuchObjectException;
import java.rmi.registry.LocateRegistry;
import java.util.Map;
import java.util.Set;

import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import javax.management.remote.rmi.RMIConnection;
import javax.management.remote.rmi.RMIServer;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.polling.boot.InvalidPollingConfigurationException;
import dev.polling.core.PollingManager;
import dev.polling.core.JmxNames;
import dev.polling.core.jmx.PollingJmxServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.springframework.test.util.TestSocketUtils.findAvailableTcpPort;
import dev.polling.boot.autoconfigure.properties.PollingProperties;

/** The JMX connector server the starter opens when {@code polling.jmx.server.port} is set. */
class PollingJmxServerAutoConfigurationTests {

	private static final String PASSWORD = "jmx-S3cret-42";

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(PollingAutoConfiguration.class))
		.withPropertyValues("polling.instance-id=jmx", "polling.jmx.domain=dev.polling.jmxtest",
				"polling.clusters.MAILABRUF_CLUSTER.wait-time=10s");

	/** A JMX server on the port that authenticates user polling with {@link #PASSWORD}. */
	private ApplicationContextRunner withCredentials(int port) {
		return this.runner.withPropertyValues("polling.jmx.server.port=" + port, "polling.jmx.server.username=polling",
				"polling.jmx.server.password=" + PASSWORD);
	}

	@Test
	void servesOnlyThePollingMBeansToAnAuthenticatedRemoteClient() throws Exception {
		int port = findAvailableTcpPort();
		withCredentials(port).run((context) -> {
			PollingJmxServer server = context.getBean(PollingJmxServerLifecycle.class).server();
			assertThat(server.port()).isEqualTo(port);
			ObjectName cluster = JmxNames.clusterName("dev.polling.jmxtest", "MAILABRUF_CLUSTER");
			try (JMXConnector connector = connect(port, "polling", PASSWORD)) {
				MBeanServerConnection connection = connector.getMBeanServerConnection();
				Set<ObjectName> names = connection.queryNames(null, null);
				assertThat(names).contains(cluster);
				assertThat(names).doesNotContain(new ObjectName("java.lang:type=Runtime"));
				// the configured domain is the one remote clients may read, and only read
				assertThat(names).allMatch((name) -> name.getDomain().equals("dev.polling.jmxtest"));
				assertThat(connection.getAttribute(cluster, "InstanceId")).isEqualTo("jmx");
				assertThatExceptionOfType(SecurityException.class).isThrownBy(() -> connection.unregisterMBean(cluster));
			}
			assertThat(ManagementFactory.getPlatformMBeanServer().isRegistered(cluster)).isFalse();
			assertThat(context.getBean(PollingManager.class).tryStartPolling("MAILABRUF_CLUSTER")).isTrue();
		});
	}

	@Test
	void registersTheServerWithoutAPortAndOpensItOnlyWhenAPortIsSet() {
		this.runner.run((context) -> {
			PollingJmxServerLifecycle lifecycle = context.getBean(PollingJmxServerLifecycle.class);
			assertThat(lifecycle.isConfigured()).isFalse();
			assertThat(lifecycle.isRunning()).isFalse();
			assertThat(lifecycle.server()).isNull();
			assertThat(lifecycle.mbeanServer()).isSameAs(ManagementFactory.getPlatformMBeanServer());
		});
	}

	@Test
	void backsOffWhenTheApplicationDefinesItsOwnServerLifecycle() {
		PollingJmxServerLifecycle own = new PollingJmxServerLifecycle(new PollingProperties(), () -> null);
		this.runner.withBean("ownJmxServer", PollingJmxServerLifecycle.class, () -> own).run((context) -> {
			assertThat(context).hasSingleBean(PollingJmxServerLifecycle.class);
			assertThat(context.getBean(PollingJmxServerLifecycle.class)).isSameAs(own);
			assertThat(context).doesNotHaveBean("pollingJmxServerLifecycle");
		});
	}

	@Test
	void opensTheServerWhenTheContextStartsAndClosesItWhenItStops() throws Exception {
		int port = findAvailableTcpPort();
		this.runner.withPropertyValues("polling.jmx.server.port=" + port).run((context) -> {
			PollingJmxServerLifecycle lifecycle = context.getBean(PollingJmxServerLifecycle.class);
			assertThat(lifecycle.isRunning()).isTrue();
			connect(port, null, null).close();
			context.stop();
			assertThat(lifecycle.server()).isNull();
			assertThatExceptionOfType(IOException.class).isThrownBy(() -> connect(port, null, null).close());
		});
	}

	@Test
	void releasesTheClustersBeforeTheServerCloses() throws Exception {
		int port = findAvailableTcpPort();
		this.runner.withPropertyValues("polling.jmx.server.port=" + port).run((context) -> {
			assertThat(context.getBean(PollingManagerLifecycle.class).getPhase())
				.isGreaterThan(context.getBean(PollingJmxServerLifecycle.class).getPhase());
			PollingManager manager = context.getBean(PollingManager.class);
			assertThat(manager.tryStartPolling("MAILABRUF_CLUSTER")).isTrue();
			ObjectName cluster = JmxNames.clusterName("dev.polling.jmxtest", "MAILABRUF_CLUSTER");
			try (JMXConnector connector = connect(port, null, null)) {
				MBeanServerConnection connection = connector.getMBeanServerConnection();
				assertThat(connection.isRegistered(cluster)).isTrue();
				context.getBean(PollingManagerLifecycle.class).stop();
				// released and unregistered while the server still answers
				assertThat(connection.isRegistered(cluster)).isFalse();
			}
		});
	}

	@Test
	void closesAConnectionIdleLongerThanTheConfiguredIdleTimeout() throws Exception {
		int port = findAvailableTcpPort();
		// 2 s: with 300 ms a CI machine took longer than that between two calls of the connect itself
		this.runner.withPropertyValues("polling.jmx.server.port=" + port, "polling.jmx.server.idle-timeout=2s").run((context) -> {
			assertThat(context.getBean(PollingJmxServerLifecycle.class).server().settings().idleTimeout()).isEqualTo(Duration.ofSeconds(2));
			ObjectName cluster = JmxNames.clusterName("dev.polling.jmxtest", "MAILABRUF_CLUSTER");
			// the connection a JDK client gets, as RMI hands it out: the server's stub from the registry, then a new client
			RMIServer rmiServer = (RMIServer) LocateRegistry.getRegistry("127.0.0.1", port).lookup("jmxrmi");
			RMIConnection connection = rmiServer.newClient(null);
			assertThat(connection.getAttribute(cluster, "InstanceId", null)).isEqualTo("jmx");
			Thread.sleep(6_000);
			// the server closed the idle connection and serves it no more, on every JDK (a JDK 17 JMXConnector then
			// fails at its next call, a JDK 25 one reconnects by itself)
			assertThatExceptionOfType(NoSuchObjectException.class).isThrownBy(() -> connection.getAttribute(cluster, "InstanceId", null));
			try (JMXConnector connector = connectWithoutHeartbeat(port)) {
				assertThat(connector.getMBeanServerConnection().getAttribute(cluster, "InstanceId")).isEqualTo("jmx");
			}
		});
	}

	@Test
	void keepsIdleConnectionsOpenUnlessAnIdleTimeoutIsSet() throws Exception {
		int port = findAvailableTcpPort();
		this.runner.withPropertyValues("polling.jmx.server.port=" + port).run((context) -> {
			assertThat(context.getBean(PollingJmxServerLifecycle.class).server().settings().idleTimeout()).isZero();
			ObjectName cluster = JmxNames.clusterName("dev.polling.jmxtest", "MAILABRUF_CLUSTER");
			try (JMXConnector connector = connectWithoutHeartbeat(port)) {
				MBeanServerConnection connection = connector.getMBeanServerConnection();
				assertThat(connection.getAttribute(cluster, "InstanceId")).isEqualTo("jmx");
				Thread.sleep(1_500);
				assertThat(connection.getAttribute(cluster, "InstanceId")).isEqualTo("jmx");
			}
		});
	}

	@Test
	void rejectsWrongCredentials() throws Exception {
		int port = findAvailableTcpPort();
		withCredentials(port).run((context) -> {
			assertThatExceptionOfType(SecurityException.class).isThrownBy(() -> connect(port, "polling", "wrong").close());
			assertThatExceptionOfType(SecurityException.class).isThrownBy(() -> connect(port, null, null).close());
		});
	}

	@Test
	void stopsTheServerOnShutdown() throws Exception {
		int port = findAvailableTcpPort();
		this.runner.withPropertyValues("polling.jmx.server.port=" + port)
			.run((context) -> connect(port, null, null).close());
		assertThatExceptionOfType(IOException.class).isThrownBy(() -> connect(port, null, null).close());
	}

	@Test
	void reportsAPortInUseWithThePropertyName() throws Exception {
		try (ServerSocket taken = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
			int port = taken.getLocalPort();
			this.runner.withPropertyValues("polling.jmx.server.port=" + port).run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).rootCause()
					.isInstanceOf(InvalidPollingConfigurationException.class)
					.hasMessageContaining("polling.jmx.server.port with value '" + port + "'")
					.hasMessageContaining("choose a free port");
			});
		}
	}

	static JMXConnector connect(int port, String username, String password) throws IOException {
		JMXServiceURL url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + port + "/jmxrmi");
		Map<String, Object> env = (username != null) ? Map.of(JMXConnector.CREDENTIALS, new String[] { username, password })
				: Map.of();
		return JMXConnectorFactory.connect(url, env);
	}

	static JMXConnector connectWithoutHeartbeat(int port) throws IOException {
		JMXServiceURL url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + port + "/jmxrmi");
		return JMXConnectorFactory.connect(url, Map.of("jmx.remote.x.client.connection.check.period", 0L));
	}

}
