package dev.polling.jdbc.test;

import dev.polling.jdbc.Dialect;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Assumptions;

/**
 * Hands out fresh databases on real servers, each server started at most once per JVM and stopped
 * when the JVM ends.
 * <ul>
 * <li>PostgreSQL 17 from embedded binaries (zonky) by default; from Testcontainers with
 * {@code -Dpolling.test.postgres=testcontainers}, or automatically when the embedded binaries
 * cannot start and a Docker engine is available.</li>
 * <li>MariaDB from a private {@code mariadbd} process on a free port (see {@link MariaDbServer});
 * from Testcontainers when no {@code mariadbd} is installed but Docker is available. With neither,
 * MariaDB tests are skipped with the reason, or fail when {@code -Dpolling.test.require-mariadb=true}
 * (CI sets it).</li>
 * <li>H2 in memory.</li>
 * </ul>
 */
public final class TestDatabases {

	/** System property: set to {@code true} to fail instead of skipping when MariaDB is unavailable. */
	public static final String REQUIRE_MARIADB = "polling.test.require-mariadb";

	/** System property: {@code embedded} (default) or {@code testcontainers}. */
	public static final String POSTGRES_PROVIDER = "polling.test.postgres";

	private static final AtomicInteger counter = new AtomicInteger();

	private TestDatabases() {
	}

	/**
	 * A fresh database of the dialect.
	 * @param dialect the dialect
	 * @return the database
	 */
	public static TestDatabase create(Dialect dialect) {
		return switch (dialect) {
			case POSTGRESQL -> postgresql();
			case MARIADB -> mariadb();
			case H2 -> h2();
		};
	}

	/**
	 * A fresh PostgreSQL database.
	 * @return the database
	 */
	public static TestDatabase postgresql() {
		return PostgresServers.shared().createDatabase(nextName());
	}

	/**
	 * A fresh MariaDB database, or an aborted (skipped) test when no MariaDB can be started and
	 * {@value #REQUIRE_MARIADB} is not {@code true}.
	 * @return the database
	 */
	public static TestDatabase mariadb() {
		MariaDbServers.Availability availability = MariaDbServers.shared();
		if (availability.server() == null) {
			String reason = "MariaDB tests skipped: " + availability.reason()
					+ ". Install MariaDB (e.g. apt-get install mariadb-server) or start a Docker engine to run them.";
			if (Boolean.getBoolean(REQUIRE_MARIADB)) {
				throw new IllegalStateException(reason.replace("tests skipped", "required (" + REQUIRE_MARIADB
						+ "=true) but unavailable"));
			}
			System.err.println("[polling] " + reason);
			Assumptions.abort(reason);
		}
		return availability.server().createDatabase(nextName());
	}

	/**
	 * A fresh in-memory H2 database, kept until the JVM ends.
	 * @return the database
	 */
	public static TestDatabase h2() {
		String name = nextName();
		return new TestDatabase("H2 (in memory)", Dialect.H2,
				"jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000", "sa", "");
	}

	private static String nextName() {
		return "polling_test_" + counter.incrementAndGet();
	}

}
