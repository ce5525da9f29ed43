package dev.polling.jdbc.test;

import dev.polling.jdbc.Dialect;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import org.jspecify.annotations.Nullable;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * The PostgreSQL server of this JVM, started on first use.
 */
final class PostgresServers {

	private static @Nullable DatabaseServer shared;

	private PostgresServers() {
	}

	static synchronized DatabaseServer shared() {
		if (shared == null) {
			shared = start();
		}
		return shared;
	}

	private static DatabaseServer start() {
		String provider = System.getProperty(TestDatabases.POSTGRES_PROVIDER, "embedded");
		if (provider.equals("testcontainers")) {
			return startContainer();
		}
		if (!provider.equals("embedded")) {
			throw new IllegalArgumentException(TestDatabases.POSTGRES_PROVIDER + " is '" + provider
					+ "': use 'embedded' (default) or 'testcontainers'");
		}
		try {
			return startEmbedded();
		}
		catch (IOException | RuntimeException ex) {
			if (DockerClientFactory.instance().isDockerAvailable()) {
				return startContainer();
			}
			throw new IllegalStateException("Embedded PostgreSQL did not start and no Docker engine is available", ex);
		}
	}

	private static DatabaseServer startEmbedded() throws IOException {
		// durability is irrelevant for tests: fsync off keeps commit-heavy tests fast
		EmbeddedPostgres postgres = EmbeddedPostgres.builder()
			.setServerConfig("fsync", "off")
			.setServerConfig("synchronous_commit", "off")
			.setServerConfig("full_page_writes", "off")
			.setServerConfig("max_connections", "200")
			.start();
		return new AdminServer("PostgreSQL 17 (embedded)", postgres.getJdbcUrl("postgres", "postgres"), "postgres",
				"");
	}

	private static DatabaseServer startContainer() {
		PostgreSQLContainer container = new PostgreSQLContainer("postgres:17-alpine")
			.withCommand("postgres", "-c", "fsync=off", "-c", "max_connections=200");
		container.start();
		Runtime.getRuntime().addShutdownHook(new Thread(container::stop, "polling-test-postgres-stop"));
		return new AdminServer("PostgreSQL 17 (Testcontainers)", container.getJdbcUrl(), container.getUsername(),
				container.getPassword());
	}

	/** Creates databases with {@code CREATE DATABASE} through the administrative database. */
	private record AdminServer(String label, String adminUrl, String username, String password)
			implements DatabaseServer {

		@Override
		public TestDatabase createDatabase(String name) {
			TestDatabase admin = new TestDatabase(this.label, Dialect.POSTGRESQL, this.adminUrl, this.username,
					this.password);
			admin.execute("CREATE DATABASE " + name);
			int slash = this.adminUrl.lastIndexOf('/');
			int query = this.adminUrl.indexOf('?', slash);
			String url = this.adminUrl.substring(0, slash + 1) + name
					+ ((query >= 0) ? this.adminUrl.substring(query) : "");
			return new TestDatabase(this.label, Dialect.POSTGRESQL, url, this.username, this.password);
		}

	}

}
