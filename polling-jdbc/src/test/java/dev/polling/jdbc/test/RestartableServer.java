package dev.polling.jdbc.test;

import dev.polling.jdbc.Dialect;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Optional;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;

/**
 * A database server of a test's own (not the JVM's shared one) that the test stops and starts
 * again, on the same port and data directory, as an operations team restarts or loses a database:
 * the server process is shut down (PostgreSQL: {@code pg_ctl stop -m fast}, which ends every
 * session; MariaDB: SIGTERM, a clean shutdown), connections fail until {@link #start()} brings it
 * back, and the data is still there. Close it to stop it for good and delete its files.
 * <pre>{@code
 * try (RestartableServer server = RestartableServer.create(Dialect.POSTGRESQL)) {
 *     TestDatabase database = server.createDatabase("outage");
 *     ...
 *     server.stop();
 *     server.start();
 * }
 * }</pre>
 */
public abstract sealed class RestartableServer implements AutoCloseable {

	private boolean running = true;

	/**
	 * Starts a server of its own for the dialect: embedded PostgreSQL, or a private {@code mariadbd}
	 * (the test is skipped when none is installed, or fails with
	 * {@code -D}{@value TestDatabases#REQUIRE_MARIADB}{@code =true}).
	 * @param dialect {@link Dialect#POSTGRESQL} or {@link Dialect#MARIADB}
	 * @return the running server
	 */
	public static RestartableServer create(Dialect dialect) {
		return switch (dialect) {
			case POSTGRESQL -> new Postgres();
			case MARIADB -> new MariaDb(MariaDbServer.start(mariaDbBinaries()));
			case H2 -> throw new IllegalArgumentException("H2 runs in memory: there is no server to stop");
		};
	}

	/**
	 * Creates an empty database on the running server.
	 * @param name the database name
	 * @return the database
	 */
	public abstract TestDatabase createDatabase(String name);

	/**
	 * Shuts the server process down and waits until it has exited.
	 */
	public final synchronized void stop() {
		if (this.running) {
			stopProcess();
			this.running = false;
		}
	}

	/**
	 * Starts the server again on the same port and data directory and waits until it accepts
	 * connections.
	 */
	public final synchronized void start() {
		if (!this.running) {
			startProcess();
			this.running = true;
		}
	}

	/**
	 * Whether the server process runs.
	 * @return {@code true} unless stopped
	 */
	public final synchronized boolean isRunning() {
		return this.running;
	}

	abstract void stopProcess();

	abstract void startProcess();

	@Override
	public abstract void close();

	private static MariaDbServer.Binaries mariaDbBinaries() {
		Optional<MariaDbServer.Binaries> binaries = MariaDbServer.Binaries.find();
		if (binaries.isEmpty()) {
			String reason = "no mariadbd binary found (searched " + MariaDbServer.Binaries.searchPath() + ")";
			if (Boolean.getBoolean(TestDatabases.REQUIRE_MARIADB)) {
				throw new IllegalStateException("MariaDB required (" + TestDatabases.REQUIRE_MARIADB
						+ "=true) but unavailable: " + reason);
			}
			Assumptions.abort("MariaDB tests skipped: " + reason);
		}
		return binaries.get();
	}

	/** Embedded PostgreSQL 17 on a fixed port and a data directory that survives a stop. */
	static final class Postgres extends RestartableServer {

		private final Path home;

		private final int port;

		private @Nullable EmbeddedPostgres postgres;

		Postgres() {
			try {
				this.home = Files.createTempDirectory("polling-restartable-pg-");
				try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
					this.port = socket.getLocalPort();
				}
			}
			catch (IOException ex) {
				throw new UncheckedIOException("Could not prepare a PostgreSQL data directory", ex);
			}
			startProcess();
		}

		@Override
		public TestDatabase createDatabase(String name) {
			String label = "PostgreSQL 17 (embedded, restartable, port " + this.port + ")";
			String admin = "jdbc:postgresql://localhost:" + this.port + "/postgres";
			new TestDatabase(label, Dialect.POSTGRESQL, admin, "postgres", "").execute("CREATE DATABASE " + name);
			return new TestDatabase(label, Dialect.POSTGRESQL, "jdbc:postgresql://localhost:" + this.port + "/" + name,
					"postgres", "");
		}

		@Override
		void startProcess() {
			try {
				// the data directory is kept (no clean-up) and initialized only when it has no postgresql.conf
				this.postgres = EmbeddedPostgres.builder()
					.setDataDirectory(this.home.resolve("data"))
					.setCleanDataDirectory(false)
					.setPort(this.port)
					.setServerConfig("fsync", "off")
					.setServerConfig("synchronous_commit", "off")
					.setServerConfig("full_page_writes", "off")
					.setServerConfig("max_connections", "100")
					.start();
			}
			catch (IOException ex) {
				throw new UncheckedIOException("Could not start PostgreSQL on port " + this.port, ex);
			}
		}

		@Override
		void stopProcess() {
			EmbeddedPostgres running = this.postgres;
			this.postgres = null;
			if (running != null) {
				try {
					running.close();
				}
				catch (IOException ex) {
					throw new UncheckedIOException("Could not stop PostgreSQL on port " + this.port, ex);
				}
			}
		}

		@Override
		public void close() {
			stop();
			delete(this.home);
		}

	}

	/** A private mariadbd. */
	static final class MariaDb extends RestartableServer {

		private final MariaDbServer server;

		MariaDb(MariaDbServer server) {
			this.server = server;
		}

		@Override
		public TestDatabase createDatabase(String name) {
			return this.server.createDatabase(name);
		}

		@Override
		void stopProcess() {
			this.server.stop();
		}

		@Override
		void startProcess() {
			this.server.restart();
		}

		@Override
		public void close() {
			this.server.stopAndDelete();
		}

	}

	private static void delete(Path home) {
		try (Stream<Path> files = Files.walk(home)) {
			files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
		}
		catch (IOException ex) {
			// best effort: the temp folder is disposable
		}
	}

}
