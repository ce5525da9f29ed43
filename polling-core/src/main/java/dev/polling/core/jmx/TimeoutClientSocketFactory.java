package dev.polling.core.jmx;

import java.io.IOException;
import java.io.Serializable;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.rmi.server.RMIClientSocketFactory;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * Client sockets with a connect timeout and a read timeout, optionally always connecting to a fixed
 * host. Used by the peer client for the registry look-up (so a hung or blackholed peer frees its
 * thread), and embedded by {@link PollingJmxServer} in its stubs so that clients connect to the
 * advertised host whatever {@code java.rmi.server.hostname} says, with bounded reads.
 * Value-equal instances share RMI connections.
 */
public final class TimeoutClientSocketFactory implements RMIClientSocketFactory, Serializable {

	private static final long serialVersionUID = 1L;

	private final @Nullable String host;

	private final int connectTimeoutMillis;

	private final int readTimeoutMillis;

	/**
	 * @param host the host to connect to instead of the one RMI asks for, or null to keep it
	 * @param connectTimeoutMillis connect timeout, 0 for none
	 * @param readTimeoutMillis read timeout (SO_TIMEOUT), 0 for none
	 */
	public TimeoutClientSocketFactory(@Nullable String host, int connectTimeoutMillis, int readTimeoutMillis) {
		this.host = host;
		this.connectTimeoutMillis = connectTimeoutMillis;
		this.readTimeoutMillis = readTimeoutMillis;
	}

	@Override
	public Socket createSocket(String requestedHost, int port) throws IOException {
		Socket socket = new BoundedTimeoutSocket(this.readTimeoutMillis);
		try {
			socket.setTcpNoDelay(true);
			socket.setSoTimeout(this.readTimeoutMillis);
			socket.connect(new InetSocketAddress((this.host != null) ? this.host : requestedHost, port), this.connectTimeoutMillis);
			return socket;
		}
		catch (IOException | RuntimeException ex) {
			socket.close();
			throw ex;
		}
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
		public synchronized void setSoTimeout(int timeout) throws java.net.SocketException {
			if (this.boundMillis > 0 && (timeout == 0 || timeout > this.boundMillis)) {
				timeout = this.boundMillis;
			}
			super.setSoTimeout(timeout);
		}

	}

	@Override
	public boolean equals(Object obj) {
		return obj instanceof TimeoutClientSocketFactory other && Objects.equals(this.host, other.host)
				&& this.connectTimeoutMillis == other.connectTimeoutMillis && this.readTimeoutMillis == other.readTimeoutMillis;
	}

	@Override
	public int hashCode() {
		return Objects.hash(this.host, this.connectTimeoutMillis, this.readTimeoutMillis);
	}

}
