package dev.polling.jdbc.test;

import dev.polling.jdbc.Dialect;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.UserPrincipal;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.awaitility.Awaitility;

/**
 * A private MariaDB server for tests: {@code mariadb-install-db} makes a data directory in a temp
 * folder, {@code mariadbd} serves it on a free loopback port without grant tables (user
 * {@code root}, no password), and a shutdown hook stops the process by its handle and deletes the
 * folder. {@link #stop()} and {@link #restart()} stop the process and start it again on the same port
 * and data directory (a database outage). When running as root, the folder is handed to the {@code mysql} user and the server runs
 * as that user ({@code mariadbd} refuses to run as root). Durability settings are relaxed for
 * speed.
 */
final class MariaDbServer implements DatabaseServer {

	private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(90);

	private final String baseUrl;

	private final List<String> command;

	private final Path home;

	private final int port;

	private Process process;

	private MariaDbServer(List<String> command, Path home, int port) throws IOException {
		this.baseUrl = "jdbc:mariadb://127.0.0.1:" + port + "/";
		this.command = List.copyOf(command);
		this.home = home;
		this.port = port;
		this.process = launch();
	}

	static MariaDbServer start(Binaries binaries) {
		try {
			Path home = Files.createTempDirectory("polling-mariadb-");
			Path data = home.resolve("data");
			boolean root = "root".equals(System.getProperty("user.name"));
			if (root) {
				giveToMysqlUser(home);
			}
			List<String> install = new ArrayList<>(List.of(binaries.installDb().toString(), "--no-defaults",
					"--datadir=" + data, "--skip-test-db", "--auth-root-authentication-method=normal"));
			if (root) {
				install.add("--user=mysql");
			}
			runToCompletion(install, home.resolve("install.log"));
			int port = freePort();
			List<String> command = new ArrayList<>(List.of(binaries.server().toString(), "--no-defaults",
					"--datadir=" + data, "--port=" + port, "--bind-address=127.0.0.1",
					"--socket=" + home.resolve("mariadb.sock"), "--pid-file=" + home.resolve("mariadb.pid"),
					"--log-error=" + home.resolve("error.log"), "--skip-grant-tables", "--skip-name-resolve",
					"--innodb-buffer-pool-size=128M", "--innodb-flush-log-at-trx-commit=0", "--innodb-doublewrite=0",
					"--sync-binlog=0", "--max-connections=200"));
			if (root) {
				command.add("--user=mysql");
			}
			MariaDbServer server = new MariaDbServer(command, home, port);
			Runtime.getRuntime().addShutdownHook(new Thread(server::stopAndDelete, "polling-test-mariadb-stop"));
			return server;
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start mariadbd", ex);
		}
	}

	/** Starts mariadbd on this server's port and data directory and waits until it accepts connections. */
	private Process launch() throws IOException {
		Process started = new ProcessBuilder(this.command).redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.appendTo(this.home.resolve("stdout.log").toFile()))
			.start();
		Awaitility.await("mariadbd (pid " + started.pid() + ") accepting connections on port " + this.port)
			.atMost(STARTUP_TIMEOUT)
			.pollInterval(Duration.ofMillis(200))
			.until(() -> {
				if (!started.isAlive()) {
					throw new IllegalStateException("mariadbd exited with " + started.exitValue() + ": "
							+ tail(this.home.resolve("error.log")));
				}
				return canConnect(this.baseUrl);
			});
		return started;
	}

	/** Shuts the server process down (SIGTERM, a clean shutdown) and waits until it has exited. */
	synchronized void stop() {
		stop(this.process);
	}

	/** Starts the server process again on the same port and data directory. */
	synchronized void restart() {
		if (this.process.isAlive()) {
			throw new IllegalStateException("mariadbd (pid " + this.process.pid() + ") is running: stop() it first");
		}
		try {
			this.process = launch();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not restart mariadbd", ex);
		}
	}

	String describe() {
		return "MariaDB (local mariadbd, pid " + this.process.pid() + ", port " + this.port + ")";
	}

	synchronized void stopAndDelete() {
		stop(this.process);
		try (Stream<Path> files = Files.walk(this.home)) {
			files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
		}
		catch (IOException ex) {
			// best effort: the temp folder is disposable
		}
	}

	@Override
	public TestDatabase createDatabase(String name) {
		TestDatabase admin = new TestDatabase("MariaDB (local mariadbd)", Dialect.MARIADB, this.baseUrl, "root", "");
		admin.execute("CREATE DATABASE " + name);
		return new TestDatabase(admin.name(), Dialect.MARIADB, this.baseUrl + name, "root", "");
	}

	private static boolean canConnect(String url) {
		try (Connection connection = DriverManager.getConnection(url, "root", "")) {
			return connection.isValid(2);
		}
		catch (SQLException ex) {
			return false;
		}
	}

	private static void stop(Process process) {
		process.destroy();
		try {
			if (!process.waitFor(30, TimeUnit.SECONDS)) {
				process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static void runToCompletion(List<String> command, Path log) throws IOException {
		Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
		try {
			if (!process.waitFor(STARTUP_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
				process.destroyForcibly();
				throw new IllegalStateException(command.get(0) + " did not finish within " + STARTUP_TIMEOUT);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while running " + command.get(0), ex);
		}
		if (process.exitValue() != 0) {
			throw new IllegalStateException(String.join(" ", command) + " failed with exit code "
					+ process.exitValue() + ": " + tail(log));
		}
	}

	private static void giveToMysqlUser(Path home) throws IOException {
		UserPrincipalLookupService lookup = home.getFileSystem().getUserPrincipalLookupService();
		UserPrincipal user = lookup.lookupPrincipalByName("mysql");
		GroupPrincipal group = lookup.lookupPrincipalByGroupName("mysql");
		PosixFileAttributeView view = Files.getFileAttributeView(home, PosixFileAttributeView.class);
		view.setOwner(user);
		view.setGroup(group);
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
	}

	private static String tail(Path log) {
		try {
			List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
			return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
		}
		catch (IOException ex) {
			return "(no log at " + log + ")";
		}
	}

	/**
	 * The installed MariaDB programs.
	 *
	 * @param server {@code mariadbd} (or {@code mysqld})
	 * @param installDb {@code mariadb-install-db} (or {@code mysql_install_db})
	 */
	record Binaries(Path server, Path installDb) {

		/** System property naming the only directory to search, instead of PATH and the usual places. */
		static final String BIN_DIR = "polling.test.mariadb.bin-dir";

		static Optional<Binaries> find() {
			Optional<Path> server = locate("mariadbd", "mysqld");
			Optional<Path> installDb = locate("mariadb-install-db", "mysql_install_db");
			if (server.isEmpty() || installDb.isEmpty()) {
				return Optional.empty();
			}
			return Optional.of(new Binaries(server.get(), installDb.get()));
		}

		static Set<Path> searchPath() {
			Set<Path> dirs = new LinkedHashSet<>();
			String configured = System.getProperty(BIN_DIR);
			if (configured != null && !configured.isBlank()) {
				// an explicit installation is the only one searched
				dirs.add(Path.of(configured));
				return dirs;
			}
			for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
				if (!dir.isBlank()) {
					dirs.add(Path.of(dir));
				}
			}
			for (String dir : List.of("/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin",
					"/usr/local/mysql/bin", "/opt/homebrew/bin", "/opt/homebrew/opt/mariadb/bin")) {
				dirs.add(Path.of(dir));
			}
			return dirs;
		}

		private static Optional<Path> locate(String... names) {
			for (String name : names) {
				for (Path dir : searchPath()) {
					Path candidate = dir.resolve(name);
					if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
						return Optional.of(candidate);
					}
				}
			}
			return Optional.empty();
		}

	}

}
