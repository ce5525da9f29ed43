package dev.polling.core.jmx;

import dev.polling.core.JmxNames;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.rmi.NoSuchObjectException;
import java.rmi.UnmarshalException;
import java.rmi.registry.LocateRegistry;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;

import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.InstanceNotFoundException;
import javax.management.MBeanServerConnection;
import javax.management.MBeanServerDelegate;
import javax.management.ObjectName;
import javax.management.Query;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import javax.management.remote.rmi.RMIConnection;
import javax.management.remote.rmi.RMIServer;

import org.assertj.core.api.AbstractThrowableAssert;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.polling.core.test.Instance;

/**
 * The polling JMX server seen by a plain JDK JMX client (not this library's peer client), against
 * a real manager that registers its cluster MBean: reads of the polling MBeans work, nothing else
 * is visible, nothing can be changed.
 */
class ReadOnlyJmxServerTest {

	private static final ObjectName CLUSTER_MBEAN = JmxNames.clusterName("dev.polling", Instance.CLUSTER);

	private static final String USER = "poller";

	private static final String PASSWORD = "secret-1";

	private Instance instance;

	private JMXConnector client;

	@AfterEach
	void close() throws Exception {
		if (this.client != null) {
			this.client.close();
		}
		if (this.instance != null) {
			this.instance.close();
		}
	}

	/** Clients with and without credentials get the same read-only view. */
	enum Access {

		WITHOUT_CREDENTIALS, WITH_CREDENTIALS

	}

	@ParameterizedTest
	@EnumSource
	void refusesToCreateAnMLetOrAnyOtherMBean(Access access) throws Exception {
		MBeanServerConnection connection = connect(access, JmxServerSettings.loopback(0));
		ObjectName mlet = new ObjectName("dev.polling:type=MLet");
		assertRefused(() -> connection.createMBean("javax.management.loading.MLet", mlet), "read-only", "createMBean");
		assertRefused(() -> connection.createMBean("javax.management.loading.MLet", new ObjectName("other:type=MLet"),
				new Object[0], new String[0]), "createMBean");
		assertThat(this.instance.server().mbeanServer().queryNames(new ObjectName("*:type=MLet"), null)).isEmpty();
	}

	@ParameterizedTest
	@EnumSource
	void refusesToUnregisterTheClusterMBeanWhichStaysRegistered(Access access) throws Exception {
		MBeanServerConnection connection = connect(access, JmxServerSettings.loopback(0));
		assertRefused(() -> connection.unregisterMBean(CLUSTER_MBEAN),
				"The polling JMX server is read-only: unregisterMBean is refused");
		assertThat(this.instance.server().mbeanServer().isRegistered(CLUSTER_MBEAN)).isTrue();
		assertThat(connection.isRegistered(CLUSTER_MBEAN)).isTrue();
	}

	@ParameterizedTest
	@EnumSource
	void refusesToSetAttributesOrInvokeOperations(Access access) throws Exception {
		MBeanServerConnection connection = connect(access, JmxServerSettings.loopback(0));
		assertRefused(() -> connection.setAttribute(CLUSTER_MBEAN, new Attribute("ElapsedMillis", 0L)), "read-only", "setAttribute");
		assertRefused(() -> connection.setAttributes(CLUSTER_MBEAN, new AttributeList(List.of(new Attribute("ElapsedMillis", 0L)))),
				"setAttributes");
		assertRefused(() -> connection.invoke(CLUSTER_MBEAN, "getElapsedMillis", new Object[0], new String[0]), "invoke");
		assertRefused(() -> connection.createMBean("javax.management.loading.MLet", new ObjectName("dev.polling:type=MLet"),
				CLUSTER_MBEAN, new Object[0], new String[0]), "createMBean");
		assertThat(connection.getAttribute(CLUSTER_MBEAN, "ElapsedMillis")).isEqualTo(Long.MAX_VALUE);
	}

	@ParameterizedTest
	@EnumSource
	void refusesNotificationListeners(Access access) throws Exception {
		MBeanServerConnection connection = connect(access, JmxServerSettings.loopback(0));
		// a listener object: refused either way, by a different part depending on the client's JDK. A JDK 17 client
		// sends a Subject[] along, which the deserialisation filter refuses before the call; a JDK 25 client sends
		// none (the JDK removed subject delegation), and the read-only view refuses the getClassLoaderFor the
		// connector asks first
		assertThatThrownBy(() -> connection.addNotificationListener(CLUSTER_MBEAN, (notification, handback) -> {
		}, null, null)).satisfiesAnyOf(
				(refused) -> assertThat(refused).isInstanceOf(UnmarshalException.class).hasMessageContaining("REJECTED"),
				(refused) -> assertThat(refused).isInstanceOf(SecurityException.class)
					.hasMessageContaining("read-only")
					.hasMessageContaining("notification listeners"));
		assertRefused(() -> connection.addNotificationListener(MBeanServerDelegate.DELEGATE_NAME, CLUSTER_MBEAN, null, null),
				"read-only", "notification listeners");
		assertRefused(() -> connection.removeNotificationListener(CLUSTER_MBEAN, CLUSTER_MBEAN), "removeNotificationListener");
		assertThat(connection.getAttribute(CLUSTER_MBEAN, "ElapsedMillis")).isEqualTo(Long.MAX_VALUE);
	}

	@ParameterizedTest
	@EnumSource
	void listsOnlyThePollingMBeansAndHidesTheMBeanServerDelegate(Access access) throws Exception {
		MBeanServerConnection connection = connect(access, JmxServerSettings.loopback(0));
		ObjectName delegate = MBeanServerDelegate.DELEGATE_NAME;
		assertThat(this.instance.server().mbeanServer().isRegistered(delegate)).isTrue();

		assertThat(connection.queryNames(null, null)).containsExactly(CLUSTER_MBEAN);
		assertThat(connection.queryMBeans(null, null)).extracting((mbean) -> mbean.getObjectName()).containsExactly(CLUSTER_MBEAN);
		assertThat(connection.queryNames(new ObjectName("JMImplementation:*"), null)).isEmpty();
		assertThat(connection.getMBeanCount()).isEqualTo(1);
		assertThat(connection.getDomains()).containsExactly("dev.polling");
		assertThat(connection.isRegistered(delegate)).isFalse();
		assertThatThrownBy(() -> connection.getAttribute(delegate, "ImplementationVersion"))
			.isInstanceOf(InstanceNotFoundException.class)
			.hasMessageContaining("see only the MBeans of [dev.polling]");
		assertThatThrownBy(() -> connection.getMBeanInfo(delegate)).isInstanceOf(InstanceNotFoundException.class);
		assertThatThrownBy(() -> connection.getObjectInstance(delegate)).isInstanceOf(InstanceNotFoundException.class);
		// an MBean that does not exist looks the same as one that is hidden
		assertThatThrownBy(() -> connection.getAttribute(new ObjectName("JMImplementation:type=Nothing"), "X"))
			.isInstanceOf(InstanceNotFoundException.class)
			.hasMessageContaining("see only the MBeans of [dev.polling]");
	}

	@ParameterizedTest
	@EnumSource
	void readsTheClusterMBean(Access access) throws Exception {
		MBeanServerConnection connection = connect(access, JmxServerSettings.loopback(0));
		assertThat(connection.getAttribute(CLUSTER_MBEAN, "ElapsedMillis")).isEqualTo(Long.MAX_VALUE);
		assertThat(connection.getAttributes(CLUSTER_MBEAN, new String[] { "InstanceId", "Holding" }).asList())
			.extracting(Attribute::getValue)
			.containsExactly("a", false);
		assertThat(connection.getMBeanInfo(CLUSTER_MBEAN).getAttributes()).isNotEmpty();
		assertThat(connection.getObjectInstance(CLUSTER_MBEAN).getObjectName()).isEqualTo(CLUSTER_MBEAN);
		assertThat(connection.isInstanceOf(CLUSTER_MBEAN, connection.getObjectInstance(CLUSTER_MBEAN).getClassName())).isTrue();
		assertThat(connection.queryNames(null, Query.eq(Query.attr("InstanceId"), Query.value("a")))).containsExactly(CLUSTER_MBEAN);
		assertThat(connection.getDefaultDomain()).isNotEmpty();

		this.instance.manager().decide(Instance.CLUSTER);
		assertThat((Long) connection.getAttribute(CLUSTER_MBEAN, "ElapsedMillis")).isLessThan(10_000L);
	}

	@Test
	void showsTheReadableDomainsItIsGivenAndTheLibraryStillRegistersLocally() throws Exception {
		MBeanServerConnection connection = connect(Access.WITHOUT_CREDENTIALS,
				JmxServerSettings.loopback(0).withReadableDomains(Set.of("de.bund.bva.test")));
		ObjectName isyName = new ObjectName("de.bund.bva.test:type=PollingStatus,name=\"Polling-Aktivitaet-X\"");
		this.instance.server().mbeanServer().registerMBean(new FakeClusterMBeans.WrongType(), isyName);
		assertThat(connection.queryNames(null, null)).containsExactly(isyName);
		assertThat(connection.isRegistered(CLUSTER_MBEAN)).isFalse();
		assertThat(this.instance.server().mbeanServer().isRegistered(CLUSTER_MBEAN)).isTrue();
	}

	@Test
	void closesAConnectionThatIdlesLongerThanTheIdleTimeout() throws Exception {
		MBeanServerConnection connection = connect(Access.WITHOUT_CREDENTIALS,
				JmxServerSettings.loopback(0).withIdleTimeout(Duration.ofMillis(300)));
		assertThat(this.instance.server().connectorIdleTimeout()).isEqualTo(300L);
		String first = this.client.getConnectionId();
		// the connection under the JDK client, as RMI hands it out, to see what the server did with it
		RMIConnection rmi = rmiConnection(this.instance.server().port());
		assertThat(rmi.getDefaultDomain(null)).isNotEmpty();
		assertThat(this.instance.server().connectionIds()).containsExactlyInAnyOrder(first, rmi.getConnectionId());

		await().atMost(Duration.ofSeconds(5)).until(() -> this.instance.server().connectionIds().isEmpty());
		// the server closed both and no longer serves them, on every JDK
		assertThatThrownBy(() -> rmi.getDefaultDomain(null)).isInstanceOf(NoSuchObjectException.class);
		// the JDK client learns it at its next call: a JDK 17 client fails (its own reconnect sends a Subject[],
		// which the deserialisation filter refuses), a JDK 25 client reconnects by itself; never on the old connection
		try {
			connection.getAttribute(CLUSTER_MBEAN, "ElapsedMillis");
			assertThat(this.client.getConnectionId()).isNotEqualTo(first);
			assertThat(this.instance.server().connectionIds()).containsExactly(this.client.getConnectionId());
		}
		catch (IOException ex) {
			assertThat(this.instance.server().connectionIds()).isEmpty();
		}
	}

	@Test
	void keepsAnIdleConnectionOpenByDefault() throws Exception {
		MBeanServerConnection connection = connect(Access.WITHOUT_CREDENTIALS, JmxServerSettings.loopback(0));
		// none at all: the JDK's own default would close an idle connection after 120 s
		assertThat(this.instance.server().connectorIdleTimeout()).isEqualTo(Long.MAX_VALUE);
		String first = this.client.getConnectionId();
		Thread.sleep(1_000);
		assertThat(this.instance.server().connectionIds()).containsExactly(first);
		assertThat(connection.getAttribute(CLUSTER_MBEAN, "ElapsedMillis")).isEqualTo(Long.MAX_VALUE);
		assertThat(this.client.getConnectionId()).isEqualTo(first);
	}

	@Test
	void readsTheDefaultDomainAndNoIdleTimeoutUnlessTold() {
		JmxServerSettings settings = new JmxServerSettings("127.0.0.1", 0, null, null, null, false, Duration.ofSeconds(30), false);
		assertThat(settings.readableDomains()).containsExactly("dev.polling");
		assertThat(settings.idleTimeout()).isZero();
		assertThat(settings.withIdleTimeout(Duration.ofMinutes(10)).withCredentials(USER, PASSWORD).idleTimeout())
			.isEqualTo(Duration.ofMinutes(10));
		assertThat(settings.withReadableDomains(Set.of("b.x", "a.x")).withPortableStubs(true).toString())
			.contains("readableDomains=[a.x, b.x]", "idleTimeout=never");
		assertThatIllegalArgumentException().isThrownBy(() -> settings.withReadableDomains(Set.of()))
			.withMessageContaining("no readable domain");
		assertThatIllegalArgumentException().isThrownBy(() -> settings.withReadableDomains(Set.of("dev.*")))
			.withMessageContaining("'dev.*'");
		assertThatIllegalArgumentException().isThrownBy(() -> settings.withIdleTimeout(Duration.ofSeconds(-1)))
			.withMessageContaining("negative");
	}

	/** A connection made the way the JDK client makes it: the server's stub from the registry, then a new client. */
	private static RMIConnection rmiConnection(int port) throws Exception {
		RMIServer server = (RMIServer) LocateRegistry.getRegistry("127.0.0.1", port).lookup("jmxrmi");
		return server.newClient(null);
	}

	/** Starts an instance whose manager registers the cluster MBean, and connects a plain JDK client to its server. */
	private MBeanServerConnection connect(Access access, JmxServerSettings settings) throws Exception {
		boolean credentials = access == Access.WITH_CREDENTIALS;
		this.instance = Instance.start("a", credentials ? settings.withCredentials(USER, PASSWORD) : settings);
		this.instance.connect(List.of(), UnaryOperator.identity());
		Map<String, Object> env = new HashMap<>();
		if (credentials) {
			env.put(JMXConnector.CREDENTIALS, new String[] { USER, PASSWORD });
		}
		// no heartbeat: the connection stays idle between calls
		env.put("jmx.remote.x.client.connection.check.period", 0L);
		this.client = JMXConnectorFactory.connect(new JMXServiceURL(this.instance.server().serviceUrl()), env);
		return this.client.getMBeanServerConnection();
	}

	/** The call is refused with a SecurityException whose message names each of the fragments. */
	private static void assertRefused(ThrowingCallable call, String... fragments) {
		AbstractThrowableAssert<?, ? extends Throwable> refused = assertThatThrownBy(call).isInstanceOf(SecurityException.class);
		for (String fragment : fragments) {
			refused.hasMessageContaining(fragment);
		}
	}

}
