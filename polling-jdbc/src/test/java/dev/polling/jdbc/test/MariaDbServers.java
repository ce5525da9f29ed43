package dev.polling.jdbc.test;

import dev.polling.jdbc.Dialect;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.mariadb.MariaDBContainer;

/**
 * The MariaDB server of this JVM, started on first use: a private {@code mariadbd} process when one
 * is installed, else a Testcontainers container when Docker is available, else none (with the
 * reason).
 */
final class MariaDbServers {

	private static @Nullable Availability shared;

	private MariaDbServers() {
	}

	static synchronized Availability shared() {
		if (shared == null) {
			shared = start();
		}
		return shared;
	}

	private static Availability start() {
		Optional<MariaDbServer.Binaries> binaries = MariaDbServer.Binaries.find();
		if (binaries.isPresent()) {
			return new Availability(MariaDbServer.start(binaries.get()), "");
		}
		if (DockerClientFactory.instance().isDockerAvailable()) {
			return new Availability(startContainer(), "");
		}
		return new Availability(null, "no mariadbd binary found (searched " + MariaDbServer.Binaries.searchPath()
				+ ", or set -D" + MariaDbServer.Binaries.BIN_DIR + "=<dir>) and no Docker engine available");
	}

	private static DatabaseServer startContainer() {
		MariaDBContainer container = new MariaDBContainer("mariadb:11.4").withUsername("root").withPassword("");
		container.start();
		Runtime.getRuntime().addShutdownHook(new Thread(container::stop, "polling-test-mariadb-stop"));
		String base = "jdbc:mariadb://" + container.getHost() + ":" + container.getMappedPort(3306) + "/";
		return (name) -> {
			TestDatabase admin = new TestDatabase("MariaDB (Testcontainers)", Dialect.MARIADB, base, "root", "");
			admin.execute("CREATE DATABASE " + name);
			return new TestDatabase(admin.name(), Dialect.MARIADB, base + name, "root", "");
		};
	}

	/**
	 * A server, or why there is none.
	 *
	 * @param server the server
	 * @param reason why there is no server
	 */
	record Availability(@Nullable DatabaseServer server, String reason) {
	}

}
