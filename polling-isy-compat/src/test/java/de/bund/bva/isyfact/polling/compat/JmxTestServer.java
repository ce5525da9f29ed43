package de.bund.bva.isyfact.polling.compat;

import java.io.IOException;
import java.net.ServerSocket;
import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.rmi.server.UnicastRemoteObject;

import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;
import javax.management.StandardMBean;
import javax.management.remote.JMXConnectorServer;
import javax.management.remote.JMXConnectorServerFactory;
import javax.management.remote.JMXServiceURL;

/** A JMX connector server on a free local port, as another instance (own MBean server) or as this JVM (platform). */
final class JmxTestServer implements AutoCloseable {

	final MBeanServer mbeanServer;

	final int port;

	private final Registry registry;

	private final JMXConnectorServer connector;

	private JmxTestServer(MBeanServer mbeanServer) throws IOException {
		this.mbeanServer = mbeanServer;
		this.port = freePort();
		this.registry = LocateRegistry.createRegistry(this.port);
		JMXServiceURL url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://localhost:" + this.port + "/jmxrmi");
		this.connector = JMXConnectorServerFactory.newJMXConnectorServer(url, null, mbeanServer);
		this.connector.start();
	}

	/** Another instance: its own MBean server. */
	static JmxTestServer other() throws IOException {
		return new JmxTestServer(MBeanServerFactory.newMBeanServer());
	}

	/** This JVM: the platform MBean server. */
	static JmxTestServer platform() throws IOException {
		return new JmxTestServer(java.lang.management.ManagementFactory.getPlatformMBeanServer());
	}

	static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

	static ObjectName isyName(String clusterName) throws Exception {
		return new ObjectName("de.bund.bva.isyfact.polling:type=PollingStatus,name=\"Polling-Aktivitaet-" + clusterName + "\"");
	}

	/** Publishes an isy-polling status MBean answering the given milliseconds since the last activity. */
	void publish(String clusterName, long zeitraumMillis) throws Exception {
		this.mbeanServer.registerMBean(new StandardMBean(new Status(zeitraumMillis), StatusMBean.class), isyName(clusterName));
	}

	@Override
	public void close() throws Exception {
		this.connector.stop();
		UnicastRemoteObject.unexportObject(this.registry, true);
	}

	public interface StatusMBean {

		long getZeitraumLetztePollingAktivitaet();

		java.util.Date getZeitpunktLetztePollingAktivitaet();

	}

	public static final class Status implements StatusMBean {

		private final long zeitraum;

		Status(long zeitraum) {
			this.zeitraum = zeitraum;
		}

		@Override
		public long getZeitraumLetztePollingAktivitaet() {
			return this.zeitraum;
		}

		@Override
		public java.util.Date getZeitpunktLetztePollingAktivitaet() {
			return new java.util.Date(System.currentTimeMillis() - this.zeitraum);
		}

	}

}
