package dev.polling.core.jmx;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectInputStream;
import java.io.Serializable;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.rmi.server.RMIClientSocketFactory;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

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
 *
 * <p>Deadline: the read timeout in a stub is the server's call timeout (30 s by default), longer
 * than a caller's peer timeout. A peer client that runs a request with {@link #withDeadline} makes
 * every connect and read of these sockets on that thread end by the deadline, so its worker thread
 * is free when the caller stops waiting. The check is made before each read, as RMI reads a call's
 * answer on the calling thread and hands a pooled connection to one call at a time.
 */
public final class TimeoutClientSocketFactory implements RMIClientSocketFactory, Serializable {

	private static final long serialVersionUID = 2L;

	private static final ThreadLocal<@Nullable SSLContext> CONNECTING_TLS = new ThreadLocal<>();

	/** The {@link System#nanoTime()} by which this thread's connects and reads must end, if any. */
	private static final ThreadLocal<@Nullable Long> DEADLINE = new ThreadLocal<>();

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

	/**
	 * Runs {@code action} so that connects and reads of these sockets on this thread end by
	 * {@code deadline} (a {@link System#nanoTime()}) with a {@link SocketTimeoutException}.
	 */
	static <T, E extends Exception> T withDeadline(long deadline, ThrowingSupplier<T, E> action) throws E {
		Long previous = DEADLINE.get();
		DEADLINE.set(deadline);
		try {
			return action.get();
		}
		finally {
			if (previous != null) {
				DEADLINE.set(previous);
			}
			else {
				DEADLINE.remove();
			}
		}
	}

	/** Milliseconds left until this thread's deadline (at least 1), 0 once it has passed, -1 without one. */
	static int millisLeft() {
		Long deadline = DEADLINE.get();
		if (deadline == null) {
			return -1;
		}
		long left = deadline - System.nanoTime();
		if (left <= 0) {
			return 0;
		}
		return (int) Math.min(Integer.MAX_VALUE, Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
	}

	@Override
	public Socket createSocket(String requestedHost, int port) throws IOException {
		String target = (this.host != null) ? this.host : requestedHost;
		int left = millisLeft();
		if (left == 0) {
			throw new SocketTimeoutException("connect to " + target + ":" + port + " not tried: the peer timeout has passed");
		}
		Socket socket = new BoundedTimeoutSocket(this.readTimeoutMillis);
		try {
			socket.setTcpNoDelay(true);
			socket.setSoTimeout(this.readTimeoutMillis);
			socket.connect(new InetSocketAddress(target, port), (left > 0) ? bound(this.connectTimeoutMillis, left) : this.connectTimeoutMillis);
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
	 * responses); this socket keeps every read timeout at or below the bound, and before each read
	 * shortens it to what is left until the reading thread's deadline ({@link #withDeadline}).
	 */
	private static final class BoundedTimeoutSocket extends Socket {

		private final int boundMillis;

		/** The read timeout asked for (by RMI or the factory), within the bound. */
		private int requestedMillis;

		/** The read timeout the socket has now. */
		private int appliedMillis;

		private @Nullable InputStream in;

		BoundedTimeoutSocket(int boundMillis) {
			this.boundMillis = boundMillis;
		}

		@Override
		public synchronized void setSoTimeout(int timeout) throws SocketException {
			this.requestedMillis = bound(timeout, this.boundMillis);
			apply(this.requestedMillis);
		}

		/** The timeout asked for, not one shortened for a deadline (RMI saves and restores it). */
		@Override
		public synchronized int getSoTimeout() {
			return this.requestedMillis;
		}

		@Override
		public synchronized InputStream getInputStream() throws IOException {
			InputStream plain = super.getInputStream(); // fails as usual on a closed or unconnected socket
			if (this.in == null) {
				this.in = new DeadlineInputStream(plain, this);
			}
			return this.in;
		}

		synchronized void beforeRead() throws IOException {
			int left = millisLeft();
			if (left == 0) {
				throw new SocketTimeoutException("Read timed out: the peer timeout has passed");
			}
			apply((left > 0) ? bound(this.requestedMillis, left) : this.requestedMillis);
		}

		private void apply(int timeout) throws SocketException {
			if (timeout != this.appliedMillis) {
				super.setSoTimeout(timeout);
				this.appliedMillis = timeout;
			}
		}

	}

	/** The socket's input, checking the reading thread's deadline before each read. */
	private static final class DeadlineInputStream extends FilterInputStream {

		private final BoundedTimeoutSocket socket;

		DeadlineInputStream(InputStream in, BoundedTimeoutSocket socket) {
			super(in);
			this.socket = socket;
		}

		@Override
		public int read() throws IOException {
			this.socket.beforeRead();
			return super.read();
		}

		@Override
		public int read(byte[] b, int off, int len) throws IOException {
			this.socket.beforeRead();
			return super.read(b, off, len);
		}

	}

	static int bound(int timeout, int boundMillis) {
		return (boundMillis > 0 && (timeout == 0 || timeout > boundMillis)) ? boundMillis : timeout;
	}

}
