package dev.polling.shedlock;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;

/**
 * A {@code redis-server} process of the test's own on a free loopback port, without persistence
 * ({@code --save "" --appendonly no}), that the test stops (through its own process handle) and
 * starts again on the same port. When no {@code redis-server} is installed the test is skipped,
 * or fails with {@code -Dpolling.test.require-redis=true} (CI sets it).
 */
final class RedisServerProcess implements AutoCloseable {

	/** System property: set to {@code true} to fail instead of skipping when redis-server is missing. */
	static final String REQUIRE_REDIS = "polling.test.require-redis";

	private static final List<Path> CANDIDATES = List.of(Path.of("/usr/bin/redis-server"), Path.of("/usr/local/bin/redis-server"));

	private final Path binary;

	private final int port;

	private @Nullable Process process;

	private RedisServerProcess(Path binary, int port) {
		this.binary = binary;
		this.port = port;
	}

	/**
	 * Starts a server, or aborts the test (skipped) when none is installed, unless required.
	 * @return the running server
	 */
	static RedisServerProcess start() {
		Path binary = CANDIDATES.stream().filter(Files::isExecutable).findFirst().orElse(null);
		if (binary == null) {
			String reason = "no redis-server binary found (searched " + CANDIDATES + ")";
			if (Boolean.getBoolean(REQUIRE_REDIS)) {
				throw new IllegalStateException("Redis required (" + REQUIRE_REDIS + "=true) but unavailable: " + reason
						+ "; install it, e.g. apt-get install redis-server");
			}
			Assumptions.abort("Redis tests skipped: " + reason + ". Install redis-server to run them.");
		}
		RedisServerProcess server = new RedisServerProcess(binary, freePort());
		server.startProcess();
		return server;
	}

	int port() {
		return this.port;
	}

	synchronized void startProcess() {
		if (this.process != null) {
			return;
		}
		try {
			this.process = new ProcessBuilder(this.binary.toString(), "--port", String.valueOf(this.port), "--bind", "127.0.0.1",
					"--save", "", "--appendonly", "no")
				.redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.DISCARD)
				.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start " + this.binary, ex);
		}
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		while (System.nanoTime() < deadline) {
			if (!this.process.isAlive()) {
				throw new IllegalStateException(this.binary + " exited with " + this.process.exitValue() + " on port " + this.port);
			}
			try (Socket socket = new Socket()) {
				socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), this.port), 200);
				return;
			}
			catch (IOException ex) {
				sleep(50);
			}
		}
		throw new IllegalStateException(this.binary + " did not accept connections on port " + this.port + " within 20 s");
	}

	/** Stops the process (SIGTERM, SIGKILL after 10 s) and waits until it has exited. */
	synchronized void stopProcess() {
		Process running = this.process;
		this.process = null;
		if (running == null) {
			return;
		}
		running.destroy();
		try {
			if (!running.waitFor(10, TimeUnit.SECONDS)) {
				running.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@Override
	public void close() {
		stopProcess();
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
