package dev.polling.jdbc.test;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;
import org.opentest4j.TestAbortedException;

/**
 * Base of a test written once and run on every database: put the tests in an abstract subclass
 * and add one concrete class per database that only says which one, e.g.
 * <pre>{@code
 * abstract class InboxContractTest extends DatabaseTest { @Test void ... { database() ... } }
 * class PostgresInboxTest extends InboxContractTest {
 *     PostgresInboxTest() { super(Dialect.POSTGRESQL); }
 * }
 * }</pre>
 * Each concrete class gets a fresh database (see {@link TestDatabases}) before its first test,
 * prepared once by {@link #prepare(TestDatabase)} (tables, fixtures), and shows up under its own
 * name in the test reports. When the database is unavailable (MariaDB without {@code mariadbd} or
 * Docker), every test of the class is reported as skipped with the reason.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class DatabaseTest {

	private final dev.polling.jdbc.Dialect dialect;

	private @Nullable TestDatabase database;

	private @Nullable String unavailable;

	private final List<HikariDataSource> pools = new ArrayList<>();

	private final List<HikariDataSource> testPools = new ArrayList<>();

	private boolean preparing;

	/**
	 * Creates the test for one database.
	 * @param dialect which database to run on
	 */
	protected DatabaseTest(dev.polling.jdbc.Dialect dialect) {
		this.dialect = dialect;
	}

	@BeforeAll
	final void createDatabase() throws Exception {
		try {
			this.database = TestDatabases.create(this.dialect);
		}
		catch (TestAbortedException ex) {
			this.unavailable = ex.getMessage();
			return;
		}
		this.preparing = true;
		try {
			prepare(this.database);
		}
		finally {
			this.preparing = false;
		}
	}

	@BeforeEach
	final void skipWhenTheDatabaseIsUnavailable() {
		if (this.unavailable != null) {
			Assumptions.abort(this.unavailable);
		}
	}

	/**
	 * Prepares the fresh database once before the first test of the class; does nothing by default.
	 * @param database the database
	 * @throws Exception on failure
	 */
	protected void prepare(TestDatabase database) throws Exception {
	}

	/**
	 * A connection pool of its own on this class's database, as an application instance has; closed
	 * after the test that made it (after the last test of the class when made in {@link #prepare}).
	 * @param maximumSize the pool's maximum size
	 * @return the pool
	 */
	protected final HikariDataSource newPool(int maximumSize) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(database().url());
		config.setUsername(database().username());
		config.setPassword(database().password());
		config.setMaximumPoolSize(maximumSize);
		HikariDataSource pool = new HikariDataSource(config);
		(this.preparing ? this.pools : this.testPools).add(pool);
		return pool;
	}

	@AfterEach
	final void closeTestPools() {
		this.testPools.forEach(HikariDataSource::close);
		this.testPools.clear();
	}

	@AfterAll
	final void closePools() {
		this.pools.forEach(HikariDataSource::close);
		this.pools.clear();
	}

	/**
	 * The fresh database of this test class.
	 * @return the database
	 */
	protected final TestDatabase database() {
		if (this.database == null) {
			throw new IllegalStateException("database() is available from prepare(TestDatabase) on");
		}
		return this.database;
	}

}
