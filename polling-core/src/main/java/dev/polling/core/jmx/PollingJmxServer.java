package dev.polling.core.jmx;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.rmi.NoSuchObjectException;
import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.rmi.server.RMIClientSocketFactory;
import java.rmi.server.RMIServerSocketFactory;
import java.rmi.server.UnicastRemoteObject;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.remote.JMXAuthenticator;
import javax.management.remote.JMXConnectorServer;
import javax.management.remote.JMXPrincipal;
import javax.management.remote.JMXServiceURL;
import javax.management.remote.rmi.RMIConnectorServer;
import javax.management.remote.rmi.RMIJRMPServerImpl;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.security.auth.Subject;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.polling.core.PollingSettings;

/**
 * A JMX connector server for the polling MBeans: RMI registry and RMI objects on one port, bound
 * to one address (loopback by default), serving a dedicated MBean server that holds only what is
 * registered in it (not the platform MBeans), with optional password authentication and a
 * deserialisation filter. Several can run in one JVM. Peers reach it at
 * {@code service:jmx:rmi:///jndi/rmi://host:port/jmxrmi}, the JDK agent's convention.
 *
 * <p>Remote clients, authenticated or not, get a read-only view: they may read the MBeans of the
 * {@linkplain JmxServerSettings#readableDomains() readable domains} ({@code getAttribute(s)},
 * {@code getMBeanInfo}, {@code getObjectInstance}, {@code isInstanceOf}, {@code isRegistered},
 * queries, {@code getMBeanCount}, {@code getDomains}, {@code getDefaultDomain}) and see no other
 * MBean (a read of one fails with {@link javax.management.InstanceNotFoundException}, queries leave
 * it out). Everything else is refused with a {@link SecurityException}: {@code createMBean}
 * (so no {@code MLet} class loading), {@code unregisterMBean}, {@code setAttribute(s)},
 * {@code invoke}, notification listeners. The library registers its MBeans locally, through
 * {@link #mbeanServer()}, which is not restricted.
 *
 * <p>Idle client connections are kept open unless {@link JmxServerSettings#idleTimeout()} is set
 * (the JDK's own default would close them after two minutes).
 */
public final class PollingJmxServer implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(PollingJmxServer.class);

	/** The domain remote clients may read unless told otherwise: this library's default JMX domain. */
	public static final String DEFAULT_READABLE_DOMAIN = PollingSettings.DEFAULT_JMX_DOMAIN;

	/** The connector server's environment key for the idle time after which it closes a client connection. */
	static final String IDLE_TIMEOUT = "jmx.remote.x.server.connection.timeout";

	/** What a client may send: JMX's own types, strings, numbers, collections. Everything else is rejected. */
	static final String SERIAL_FILTER = "maxdepth=20;maxarray=100000;java.lang.*;java.util.*;javax.management.*;"
			+ "javax.management.openmbean.*;javax.management.remote.*;java.rmi.*;!*";

	private final JmxServerSettings settings;

	private final MBeanServer mbeanServer;

	private final Registry registry;

	private final RMIConnectorServer connectorServer;

	private final int port;

	private final String host;

	private final @Nullable ServerTls tls;

	private PollingJmxServer(JmxServerSettings settings, MBeanServer mbeanServer, @Nullable ServerTls tls) throws IOException {
		this.settings = settings;
		this.mbeanServer = mbeanServer;
		this.tls = tls;
		InetAddress bind = InetAddress.getByName(settings.bindAddress());
		this.host = resolveHost(settings, bind);
		BoundServerSocketFactory ssf = new BoundServerSocketFactory(bind, tls);
		int callTimeout = (int) Math.min(Integer.MAX_VALUE, settings.callTimeout().toMillis());
		RMIClientSocketFactory csf;
		if (tls != null) {
			csf = new TimeoutClientSocketFactory(this.host, callTimeout, callTimeout, true, null);
		}
		else {
			csf = settings.portableStubs() ? null : new TimeoutClientSocketFactory(this.host, callTimeout, callTimeout);
		}
		// Registry and connector use the same factories and port, so RMI shares one listening socket.
		this.registry = LocateRegistry.createRegistry(settings.port(), csf, ssf);
		try {
			this.port = ssf.boundPort();
			Map<String, Object> env = new HashMap<>();
			env.put(RMIConnectorServer.CREDENTIALS_FILTER_PATTERN, "java.lang.String;!*");
			env.put(RMIConnectorServer.SERIAL_FILTER_PATTERN, SERIAL_FILTER);
			// Long.MAX_VALUE: no idle timeout at all (the JDK would close a connection idle for 120 s)
			env.put(IDLE_TIMEOUT, settings.idleTimeout().isZero() ? Long.MAX_VALUE : Math.max(1, settings.idleTimeout().toMillis()));
			if (settings.username() != null) {
				env.put(JMXConnectorServer.AUTHENTICATOR, new PasswordAuthenticator(settings.username(), settings.password()));
			}
			RMIJRMPServerImpl rmiServer = new RMIJRMPServerImpl(settings.port(), csf, ssf, env);
			this.connectorServer = new RMIConnectorServer(new JMXServiceURL("rmi", this.host, this.port), env, rmiServer, mbeanServer);
			this.connectorServer.setMBeanServerForwarder(ReadOnlyForwarder.create(settings.readableDomains()));
			this.connectorServer.start();
			this.registry.bind("jmxrmi", rmiServer.toStub());
		}
		catch (Exception ex) {
			unexport();
			throw (ex instanceof IOException io) ? io : new IOException("Could not start the polling JMX server: " + ex.getMessage(), ex);
		}
		logger.info("Polling JMX server listening on {}:{} (advertised as {}), authentication {}, TLS {}, read-only for domains {}",
				settings.bindAddress(), this.port, this.host, (settings.username() != null) ? "on" : "off",
				(tls == null) ? "off" : tls.requireClientAuth() ? "on with client certificates" : "on", settings.readableDomains());
	}

	/** Starts a server with a new dedicated MBean server. */
	public static PollingJmxServer start(JmxServerSettings settings) throws IOException {
		return new PollingJmxServer(settings, MBeanServerFactory.newMBeanServer(), null);
	}

	/** Starts a server for the given MBean server. */
	public static PollingJmxServer start(JmxServerSettings settings, MBeanServer mbeanServer) throws IOException {
		return new PollingJmxServer(settings, mbeanServer, null);
	}

	/**
	 * Starts a server for the given MBean server, over TLS when {@code tls} is given (registry and
	 * objects alike; clients need this library and a context that trusts the server's certificate,
	 * see {@link dev.polling.core.PollingManager.Builder#peerTls}).
	 */
	public static PollingJmxServer start(JmxServerSettings settings, MBeanServer mbeanServer, @Nullable ServerTls tls)
			throws IOException {
		if (tls != null && settings.portableStubs()) {
			throw new IllegalArgumentException("JMX server: TLS cannot be combined with portable stubs; turn one of them off");
		}
		return new PollingJmxServer(settings, mbeanServer, tls);
	}

	/** Whether the server speaks TLS. */
	public boolean isTls() {
		return this.tls != null;
	}

	/**
	 * TLS of the server.
	 * @param context the server's context (its key material, and trust for client certificates)
	 * @param requireClientAuth whether clients must present a certificate the context trusts
	 */
	public record ServerTls(SSLContext context, boolean requireClientAuth) {

		public ServerTls {
			java.util.Objects.requireNonNull(context, "TLS context must not be null");
		}

	}

	/**
	 * The MBean server itself, for registering the polling MBeans in this JVM; remote clients see
	 * only a read-only view of it.
	 */
	public MBeanServer mbeanServer() {
		return this.mbeanServer;
	}

	/** The port of registry and objects. */
	public int port() {
		return this.port;
	}

	/** The host peers connect to. */
	public String host() {
		return this.host;
	}

	/** The URL peers use: {@code service:jmx:rmi:///jndi/rmi://host:port/jmxrmi}. */
	public String serviceUrl() {
		String h = (this.host.indexOf(':') >= 0) ? "[" + this.host + "]" : this.host;
		return "service:jmx:rmi:///jndi/rmi://" + h + ":" + this.port + "/jmxrmi";
	}

	public JmxServerSettings settings() {
		return this.settings;
	}

	/**
	 * The ids of the client connections open now ({@link JMXConnectorServer#getConnectionIds()}): one per
	 * connected JMX client, however many TCP sockets its RMI transport uses.
	 * @return the ids, a copy
	 */
	public Set<String> connectionIds() {
		return Set.of(this.connectorServer.getConnectionIds());
	}

	/** The idle timeout the connector server was given, in ms ({@link Long#MAX_VALUE}: none). */
	@Nullable Object connectorIdleTimeout() {
		return this.connectorServer.getAttributes().get(IDLE_TIMEOUT);
	}

	@Override
	public void close() {
		try {
			this.registry.unbind("jmxrmi");
		}
		catch (Exception ex) {
			logger.trace("Unbinding the polling JMX server failed", ex);
		}
		try {
			this.connectorServer.stop();
		}
		catch (IOException ex) {
			logger.debug("Stopping the polling JMX server failed", ex);
		}
		unexport();
	}

	private void unexport() {
		try {
			UnicastRemoteObject.unexportObject(this.registry, true);
		}
		catch (NoSuchObjectException ex) {
			logger.trace("Registry already unexported", ex);
		}
	}

	private static String resolveHost(JmxServerSettings settings, InetAddress bind) throws UnknownHostException {
		if (settings.advertisedHost() != null) {
			return settings.advertisedHost();
		}
		if (bind.isAnyLocalAddress()) {
			return InetAddress.getLocalHost().getHostName();
		}
		return bind.getHostAddress();
	}

	/** Server sockets bound to one address, TLS or plain. Identity equality: each server gets its own listener. */
	private static final class BoundServerSocketFactory implements RMIServerSocketFactory {

		private final InetAddress bind;

		private final @Nullable ServerTls tls;

		private volatile int boundPort = -1;

		BoundServerSocketFactory(InetAddress bind, @Nullable ServerTls tls) {
			this.bind = bind;
			this.tls = tls;
		}

		@Override
		public ServerSocket createServerSocket(int port) throws IOException {
			ServerSocket socket;
			if (this.tls != null) {
				SSLServerSocket ssl = (SSLServerSocket) this.tls.context().getServerSocketFactory().createServerSocket(port, 50, this.bind);
				ssl.setNeedClientAuth(this.tls.requireClientAuth());
				socket = ssl;
			}
			else {
				socket = new ServerSocket(port, 50, this.bind);
			}
			this.boundPort = socket.getLocalPort();
			return socket;
		}

		int boundPort() {
			if (this.boundPort < 0) {
				throw new IllegalStateException("The polling JMX server socket was not created");
			}
			return this.boundPort;
		}

	}

	/** Checks user and password in constant time. */
	private static final class PasswordAuthenticator implements JMXAuthenticator {

		private final String username;

		private final byte[] password;

		PasswordAuthenticator(String username, @Nullable String password) {
			this.username = username;
			this.password = (password != null) ? password.getBytes(StandardCharsets.UTF_8) : new byte[0];
		}

		@Override
		public Subject authenticate(Object credentials) {
			if (credentials instanceof String[] pair && pair.length == 2 && pair[0] != null && pair[1] != null) {
				boolean userOk = MessageDigest.isEqual(this.username.getBytes(StandardCharsets.UTF_8), pair[0].getBytes(StandardCharsets.UTF_8));
				boolean passwordOk = MessageDigest.isEqual(this.password, pair[1].getBytes(StandardCharsets.UTF_8));
				if (userOk && passwordOk) {
					return new Subject(true, Set.of(new JMXPrincipal(pair[0])), Set.of(), Set.of());
				}
			}
			throw new SecurityException("Authentication failed: wrong username or password");
		}

	}

}
