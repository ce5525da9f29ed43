package dev.polling.core.jmx;

import java.io.IOException;
import java.io.Serializable;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.rmi.NoSuchObjectException;
import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.rmi.server.RMIClientSocketFactory;
import java.rmi.server.RMIServerSocketFactory;
import java.rmi.server.UnicastRemoteObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.remote.JMXConnectionNotification;
import javax.management.remote.JMXServiceURL;
import javax.management.remote.MBeanServerForwarder;
import javax.management.remote.rmi.RMIConnectorServer;
import javax.management.remote.rmi.RMIJRMPServerImpl;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;

import org.jspecify.annotations.Nullable;

import dev.polling.core.PeerDefinition;
import dev.polling.core.test.FaultyPeers;

/**
 * A JMX connector server built in the test from the JDK's parts, the way the JDK's own agent builds
 * one (plain sockets, no call timeout in its stubs), so that a test can set what
 * {@link PollingJmxServer} does not offer: the server-side idle timeout that closes a client's
 * connection ({@code jmx.remote.x.server.connection.timeout}, 120 s in the JDK), or sockets a test
 * can hold up. Registry and connector share one loopback port; the stubs connect to 127.0.0.1.
 */
final class BareJmxServer implements AutoCloseable {

	private final MBeanServer mbeanServer = MBeanServerFactory.newMBeanServer();

	private final Registry registry;

	private final RMIConnectorServer connectorServer;

	private final int port;

	private final LoopbackServerSocketFactory ssf;

	private final BlockingQueue<String> closedConnections = new LinkedBlockingQueue<>();

	private BareJmxServer(int port, @Nullable Duration idleTimeout, RMIClientSocketFactory csf, @Nullable SSLContext tls)
			throws IOException {
		LoopbackServerSocketFactory ssf = new LoopbackServerSocketFactory(tls);
		this.ssf = ssf;
		this.registry = LocateRegistry.createRegistry(port, csf, ssf);
		this.port = ssf.port;
		Map<String, Object> env = new HashMap<>();
		if (idleTimeout != null) {
			env.put("jmx.remote.x.server.connection.timeout", idleTimeout.toMillis());
		}
		RMIJRMPServerImpl rmiServer = new RMIJRMPServerImpl(port, csf, ssf, env);
		this.connectorServer = new RMIConnectorServer(new JMXServiceURL("rmi", "127.0.0.1", this.port), env, rmiServer,
				this.mbeanServer);
		this.connectorServer.addNotificationListener((notification, handback) -> {
			if (JMXConnectionNotification.CLOSED.equals(notification.getType())
					|| JMXConnectionNotification.FAILED.equals(notification.getType())) {
				this.closedConnections.add(((JMXConnectionNotification) notification).getConnectionId());
			}
		}, null, null);
		this.connectorServer.start();
		try {
			this.registry.bind("jmxrmi", rmiServer.toStub());
		}
		catch (java.rmi.AlreadyBoundException ex) {
			throw new IOException(ex);
		}
	}

	/** A server on a free port whose connections idle for {@code idleTimeout} are closed by the server. */
	static BareJmxServer start(@Nullable Duration idleTimeout) throws IOException {
		return new BareJmxServer(0, idleTimeout, new LoopbackClientSocketFactory(), null);
	}

	/**
	 * A TLS server with the given context whose connections idle for {@code idleTimeout} are closed;
	 * its stubs carry this library's TLS socket factory (no timeouts).
	 */
	static BareJmxServer startTls(@Nullable Duration idleTimeout, SSLContext context) throws IOException {
		return new BareJmxServer(0, idleTimeout, new TimeoutClientSocketFactory("127.0.0.1", 0, 0, true, null), context);
	}

	/** A plain server on the given port (0 for a free one). */
	static BareJmxServer start(int port, @Nullable Duration idleTimeout) throws IOException {
		return new BareJmxServer(port, idleTimeout, new LoopbackClientSocketFactory(), null);
	}

	/** A TLS server on the given port (0 for a free one). */
	static BareJmxServer startTls(int port, @Nullable Duration idleTimeout, SSLContext context) throws IOException {
		return new BareJmxServer(port, idleTimeout, new TimeoutClientSocketFactory("127.0.0.1", 0, 0, true, null), context);
	}

	/** A server whose stubs create their sockets with the given factory. */
	static BareJmxServer start(int port, @Nullable Duration idleTimeout, RMIClientSocketFactory csf) throws IOException {
		return new BareJmxServer(port, idleTimeout, csf, null);
	}

	/**
	 * Puts a forwarder between the clients connecting from now on and the MBean server, so a test
	 * can hold up or fail what clients ask.
	 */
	void forwardThrough(MBeanServerForwarder forwarder) {
		this.connectorServer.setMBeanServerForwarder(forwarder);
	}

	MBeanServer mbeanServer() {
		return this.mbeanServer;
	}

	int port() {
		return this.port;
	}

	PeerDefinition asPeer(String id) {
		return PeerDefinition.of(id, "127.0.0.1", this.port);
	}

	/** Waits until the server has closed (or lost) a client connection; returns its id, or null after 10 s. */
	@Nullable String awaitClosedConnection() throws InterruptedException {
		return this.closedConnections.poll(10, TimeUnit.SECONDS);
	}

	@Override
	public void close() {
		try {
			this.registry.unbind("jmxrmi");
		}
		catch (Exception ex) {
			// best effort
		}
		try {
			this.connectorServer.stop();
		}
		catch (IOException ex) {
			// best effort
		}
		try {
			UnicastRemoteObject.unexportObject(this.registry, true);
		}
		catch (NoSuchObjectException ex) {
			// already gone
		}
	}

	/**
	 * Closes the server and every connection it accepted, as the end of its process would. (A
	 * connector server closed inside a running JVM keeps serving the connections RMI already holds,
	 * answering "no such object" on them.)
	 */
	void kill() throws InterruptedException {
		close();
		this.ssf.closeAccepted();
		// the listening socket is closed by RMI's accept thread once it wakes up: wait until the port is free
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (System.nanoTime() - deadline < 0) {
			try (ServerSocket probe = new ServerSocket(this.port, 1, InetAddress.getLoopbackAddress())) {
				return;
			}
			catch (IOException ex) {
				Thread.sleep(10);
			}
		}
		throw new IllegalStateException("port " + this.port + " still in use after the server was closed");
	}

	/** Plain client sockets to 127.0.0.1 without any timeout, like the JDK's default stubs. */
	static class LoopbackClientSocketFactory implements RMIClientSocketFactory, Serializable {

		private static final long serialVersionUID = 1L;

		@Override
		public Socket createSocket(String host, int port) throws IOException {
			Socket socket = new Socket();
			socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
			return socket;
		}

		@Override
		public boolean equals(Object obj) {
			return obj != null && obj.getClass() == getClass();
		}

		@Override
		public int hashCode() {
			return getClass().hashCode();
		}

	}

	/** Listens on loopback, over TLS when given a context; identity equality, so each server gets its own listener. */
	private static final class LoopbackServerSocketFactory implements RMIServerSocketFactory {

		private final @Nullable SSLContext tls;

		volatile int port;

		LoopbackServerSocketFactory(@Nullable SSLContext tls) {
			this.tls = tls;
		}

		private final List<Socket> accepted = new ArrayList<>();

		@Override
		public ServerSocket createServerSocket(int port) throws IOException {
			ServerSocket listener = new ServerSocket(port, 50, InetAddress.getLoopbackAddress()) {

				@Override
				public Socket accept() throws IOException {
					Socket socket = super.accept();
					synchronized (LoopbackServerSocketFactory.this.accepted) {
						LoopbackServerSocketFactory.this.accepted.add(socket);
					}
					if (LoopbackServerSocketFactory.this.tls == null) {
						return socket;
					}
					SSLSocket ssl = (SSLSocket) LoopbackServerSocketFactory.this.tls.getSocketFactory()
						.createSocket(socket, null, socket.getPort(), true);
					ssl.setUseClientMode(false);
					return ssl;
				}

			};
			this.port = listener.getLocalPort();
			return listener;
		}

		void closeAccepted() {
			FaultyPeers.closeAll(this.accepted);
		}

	}

}
