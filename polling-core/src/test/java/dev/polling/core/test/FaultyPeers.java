package dev.polling.core.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Sockets that misbehave like dead peers; close them after the test. */
public final class FaultyPeers implements AutoCloseable {

	private final List<AutoCloseable> resources = new ArrayList<>();

	/** A port on which nothing listens: connections are refused. */
	public int refusingPort() {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * A port that answers whatever it receives with an HTTP 400 and closes, as an HTTP server does
	 * with a request line it cannot parse.
	 */
	public int httpPort() {
		return acceptingPort("http-peer", (accepted) -> {
			try (accepted) {
				accepted.getInputStream().read(new byte[64]);
				accepted.getOutputStream().write("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
					.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
				accepted.getOutputStream().flush();
			}
		});
	}

	/** A port that accepts TCP connections and never sends a byte. */
	public int hungPort() {
		return acceptingPort("hung-peer", (accepted) -> {
			synchronized (this.resources) {
				this.resources.add(accepted);
			}
		});
	}

	/**
	 * A port whose listen backlog is full and which never accepts, so further SYNs are dropped:
	 * a connect hangs as against a blackholed host.
	 */
	public int blackholedPort() {
		ServerSocket server = listening(1);
		try {
			for (int i = 0; i < 8; i++) {
				SocketChannel channel = SocketChannel.open();
				channel.configureBlocking(false);
				channel.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort()));
				synchronized (this.resources) {
					this.resources.add(channel);
				}
			}
			return server.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** A port whose daemon thread accepts every connection and hands it to the handler, until the port is closed. */
	private int acceptingPort(String threadName, Accepted handler) {
		ServerSocket server = listening(50);
		Thread acceptor = new Thread(() -> {
			while (!server.isClosed()) {
				try {
					handler.handle(server.accept());
				}
				catch (IOException ex) {
					// a client that went away, or the port closed (which ends the loop)
				}
			}
		}, threadName);
		acceptor.setDaemon(true);
		acceptor.start();
		return server.getLocalPort();
	}

	/** A server socket on loopback with the listen backlog, closed at close. */
	private ServerSocket listening(int backlog) {
		try {
			ServerSocket server = new ServerSocket(0, backlog, InetAddress.getLoopbackAddress());
			synchronized (this.resources) {
				this.resources.add(server);
			}
			return server;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private interface Accepted {

		void handle(Socket accepted) throws IOException;

	}

	@Override
	public void close() {
		closeAll(this.resources);
	}

	/** Closes each of the resources (best effort) and empties the list, holding its lock. */
	public static void closeAll(List<? extends AutoCloseable> resources) {
		synchronized (resources) {
			for (AutoCloseable resource : resources) {
				try {
					resource.close();
				}
				catch (Exception ex) {
					// best effort
				}
			}
			resources.clear();
		}
	}

	/** A latch that blocked MBean getters wait on; released at close. */
	public static final class Gate implements AutoCloseable {

		private final CountDownLatch latch = new CountDownLatch(1);

		private final CountDownLatch entered = new CountDownLatch(1);

		/** Waits until some thread is blocked at the gate. */
		public boolean awaitEntered() throws InterruptedException {
			return this.entered.await(10, TimeUnit.SECONDS);
		}

		public void await() {
			this.entered.countDown();
			try {
				this.latch.await(10, TimeUnit.MINUTES);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

		@Override
		public void close() {
			this.latch.countDown();
		}

	}

}
