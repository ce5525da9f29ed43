package dev.polling.core.jmx;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;

import javax.management.MBeanServerConnection;
import javax.management.remote.JMXConnectionNotification;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import javax.net.ssl.SSLContext;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.polling.core.PeerDefinition;

/**
 * The cached JMX connection to one peer, shared by all requests to it. A connection that turns out
 * dead is replaced; a request only ever drops the connection it used itself, never one that
 * replaced it meanwhile ({@link #discard}).
 */
final class PeerConnection {

	private static final Logger logger = LoggerFactory.getLogger(PeerConnection.class);

	private final PeerDefinition peer;

	private final @Nullable SSLContext tls;

	private final AtomicReference<@Nullable Lease> current = new AtomicReference<>();

	private final ReentrantLock connectLock = new ReentrantLock();

	PeerConnection(PeerDefinition peer, @Nullable SSLContext tls) {
		this.peer = peer;
		this.tls = tls;
	}

	/**
	 * The cached connection if it is still open, or a new one. Waits for another request's connect
	 * to this peer no longer than until {@code deadline} ({@link System#nanoTime()}).
	 * @param timeout the peer timeout, for the sockets of the registry look-up
	 */
	Lease acquire(long deadline, Duration timeout) throws IOException, InterruptedException {
		Lease lease = this.current.get();
		if (lease != null && !lease.isClosed()) {
			return lease;
		}
		if (!this.connectLock.tryLock(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
			throw new SocketTimeoutException("another request's connect to the peer took the whole peer timeout");
		}
		try {
			lease = this.current.get();
			if (lease != null && !lease.isClosed()) {
				return lease;
			}
			lease = connect(timeout);
			this.current.set(lease);
			return lease;
		}
		finally {
			this.connectLock.unlock();
		}
	}

	/** Closes the lease and forgets it, if it is still the cached one (a newer connection stays). */
	void discard(Lease lease) {
		this.current.compareAndSet(lease, null);
		lease.close();
	}

	/** Closes the cached connection. */
	void close() {
		Lease lease = this.current.getAndSet(null);
		if (lease != null) {
			lease.close();
		}
	}

	private Lease connect(Duration timeout) throws IOException {
		int timeoutMillis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
		Map<String, Object> env = new HashMap<>();
		if (this.peer.username() != null) {
			env.put(JMXConnector.CREDENTIALS, new String[] { this.peer.username(), this.peer.password() });
		}
		// Registry look-up with timeouts: a hung or blackholed peer fails here instead of after 60-130 s.
		env.put("com.sun.jndi.rmi.factory.socket", new TimeoutClientSocketFactory(null, timeoutMillis, timeoutMillis, this.tls != null, this.tls));
		// No heartbeat thread per connection; a request that finds the connection dead replaces it.
		env.put("jmx.remote.x.client.connection.check.period", 0L);
		JMXServiceURL url = new JMXServiceURL(this.peer.serviceUrl());
		// stubs deserialised during the connect pick up this peer's TLS context
		JMXConnector connector = TimeoutClientSocketFactory.withClientTls(this.tls, () -> JMXConnectorFactory.connect(url, env));
		Lease lease;
		try {
			lease = new Lease(connector, connector.getMBeanServerConnection());
		}
		catch (IOException | RuntimeException ex) {
			closeQuietly(connector);
			throw ex;
		}
		// The JDK closes a connector itself when a check after a failed request fails too.
		connector.addConnectionNotificationListener((notification, handback) -> {
			if (JMXConnectionNotification.CLOSED.equals(notification.getType())
					|| JMXConnectionNotification.FAILED.equals(notification.getType())) {
				lease.markClosed();
			}
		}, null, null);
		return lease;
	}

	private static void closeQuietly(JMXConnector connector) {
		try {
			connector.close();
		}
		catch (IOException | RuntimeException ex) {
			logger.trace("Closing a JMX connector failed", ex);
		}
	}

	/** One connection to the peer: open until closed by a request, by the client, or by the JDK. */
	static final class Lease {

		private final JMXConnector connector;

		private final MBeanServerConnection connection;

		private final long connectedAt = System.nanoTime();

		private volatile boolean closed;

		private volatile @Nullable Thread closedBy;

		Lease(JMXConnector connector, MBeanServerConnection connection) {
			this.connector = connector;
			this.connection = connection;
		}

		MBeanServerConnection connection() {
			return this.connection;
		}

		/** Whether the connection was made before the given {@link System#nanoTime()}. */
		boolean isOlderThan(long nanoTime) {
			return this.connectedAt - nanoTime < 0;
		}

		boolean isClosed() {
			return this.closed;
		}

		/** Whether another thread closed the connection (a request it failed for, the JDK, the client). */
		boolean isClosedByAnotherThread() {
			return this.closed && this.closedBy != Thread.currentThread();
		}

		private void markClosed() {
			if (!this.closed) {
				this.closedBy = Thread.currentThread();
				this.closed = true;
			}
		}

		private void close() {
			markClosed();
			closeQuietly(this.connector);
		}

	}

}
