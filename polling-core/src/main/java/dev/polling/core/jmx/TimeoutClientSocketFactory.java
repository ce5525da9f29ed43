package dev.polling.core.jmx;

import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.Serializable;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.rmi.server.RMIClientSocketFactory;
import java.util.Objects;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

import org.jspecify.annotations.Nullable;

/**
 * Client sockets with a connect timeout and a read timeout, optionally always connecting to a fixed
 * host, optionally over TLS. Used by the peer client for the registry look-up (so a hung or
 * blackholed peer frees its thread), and embedded by {@link PollingJmxServer} in its stubs so that
 * clients connect to the advertised host whatever {@code java.rmi.server.hostname} says, with
 * bounded reads.
 *
 * <p>TLS: the client's {@link SSLContext} cannot travel inside a stub. A stub's factory takes the
 * context of the peer client that is connecting on the current thread when the stub is
 * deserialised ({@link #withClientTls}), or the JVM's default context otherwise. Value-equal
 * instances (including the same context) share RMI connections.
 */
public final class TimeoutClientSocketFactory implements RMIClientSocketFactory, Serializable {

	private static final long serialVersionUID = 2L;

	private static final ThreadLocal<@Nullable SSLContext> CONNECTING_TLS = new ThreadLocal<>();

	private final @Nullable String host;

	private final int connectTimeoutMillis;

	private final int readTimeoutMillis;

	private final boolean tls;

	private transient @Nullable SSLContext sslContext;

	/**
	 * Plain sockets.
	 * @param host the host to connect to instead of the one RMI asks for, or null to keep it
	 * @param connectTimeoutMillis connect timeout, 0 for none
	 * @param readTimeoutMillis read timeout (SO_TIMEOUT), 0 for none
	 */
	public TimeoutClientSocketFactory(@Nullable String host, int connectTimeoutMillis, int readTimeoutMillis) {
		this(host, connectTimeoutMillis, readTimeoutMillis, false, null);
	}

	/**
	 * Sockets that are TLS when {@code tls} is set, with the given context or (when null) the one of
	 * the connecting peer client or the JVM default.
	 */
	TimeoutClientSocketFactory(@Nullable String host, int connectTimeoutMillis, int readTimeoutMillis, boolean tls,
			@Nullable SSLContext sslContext) {
		this.host = host;
		this.connectTimeoutMillis = connectTimeoutMillis;
		this.readTimeoutMillis = readTimeoutMillis;
		this.tls = tls;
		this.sslContext = sslContext;
	}

	/**
	 * Runs {@code action} (a JMX connect) so that TLS stubs deserialised meanwhile on this thread use
	 * {@code context}.
	 */
	static <T, E extends Exception> T withClientTls(@Nullable SSLContext context, ThrowingSupplier<T, E> action) throws E {
		SSLContext previous = CONNECTING_TLS.get();
		CONNECTING_TLS.set(context);
		try {
			return action.get();
		}
		finally {
			CONNECTING_TLS.set(previous);
		}
	}

	@Override
	public Socket createSocket(String requestedHost, int port) throws IOException {
		String target = (this.host != null) ? this.host : requestedHost;
		Socket socket = new BoundedTimeoutSocket(this.readTimeoutMillis);
		try {
			socket.setTcpNoDelay(true);
			socket.setSoTimeout(this.readTimeoutMillis);
			socket.connect(new InetSocketAddress(target, port), this.connectTimeoutMillis);
			if (!this.tls) {
				return socket;
			}
			SSLContext context = (this.sslContext != null) ? this.sslContext : defaultContext();
			SSLSocket ssl = (SSLSocket) context.getSocketFactory().createSocket(socket, target, port, true);
			SSLParameters parameters = ssl.getSSLParameters();
			parameters.setEndpointIdentificationAlgorithm("HTTPS");
			ssl.setSSLParameters(parameters);
			ssl.setSoTimeout(this.readTimeoutMillis);
			ssl.startHandshake();
			// a layered TLS socket passes setSoTimeout on to the bounded socket beneath it
			return ssl;
		}
		catch (IOException | RuntimeException ex) {
			socket.close();
			throw ex;
		}
	}

	private static SSLContext defaultContext() throws IOException {
		try {
			return SSLContext.getDefault();
		}
		catch (java.security.NoSuchAlgorithmException ex) {
			throw new IOException("No default TLS context: " + ex.getMessage(), ex);
		}
	}

	private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
		in.defaultReadObject();
		if (this.tls) {
			this.sslContext = CONNECTING_TLS.get();
		}
	}

	@Override
	public boolean equals(Object obj) {
		return obj instanceof TimeoutClientSocketFactory other && Objects.equals(this.host, other.host)
				&& this.connectTimeoutMillis == other.connectTimeoutMillis && this.readTimeoutMillis == other.readTimeoutMillis
				&& this.tls == other.tls && this.sslContext == other.sslContext;
	}

	@Override
	public int hashCode() {
		return Objects.hash(this.host, this.connectTimeoutMillis, this.readTimeoutMillis, this.tls,
				System.identityHashCode(this.sslContext));
	}

	/** A supplier that may throw. */
	@FunctionalInterface
	interface ThrowingSupplier<T, E extends Exception> {

		T get() throws E;

	}

	/**
	 * RMI sets its own read timeouts on the sockets it gets (60 s for the handshake, none for
	 * responses); this socket keeps every read timeout at or below the bound.
	 */
	private static final class BoundedTimeoutSocket extends Socket {

		private final int boundMillis;

		BoundedTimeoutSocket(int boundMillis) {
			this.boundMillis = boundMillis;
		}

		@Override
		public synchronized void setSoTimeout(int timeout) throws SocketException {
			super.setSoTimeout(bound(timeout, this.boundMillis));
		}

	}

	static int bound(int timeout, int boundMillis) {
		return (boundMillis > 0 && (timeout == 0 || timeout > boundMillis)) ? boundMillis : timeout;
	}

}
