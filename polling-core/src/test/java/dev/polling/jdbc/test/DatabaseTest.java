package dev.polling.jdbc.test;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/**
 * Base of a test written once and run on every database: put the tests in an abstract subclass
 * and add one concrete class per database that only says which one, e.g.
 * <pre>{@code
 * abstract class InboxContractTest extends DatabaseTest { @Test void ... { database() ... } }
 * class PostgresInboxTest extends InboxContractTest {
 *     PostgresInboxTest() { super(Dialect.POSTGRESQL); }
 * }
 * }</pre>
 * Each concrete class gets a fresh database (see {@link TestDatabases}) before its first test and
 * shows up under its own name in the test reports. MariaDB classes are skipped (with the reason)
 * when no MariaDB can be started.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class DatabaseTest {

	private final dev.polling.jdbc.Dialect dialect;

	private @Nullable TestDatabase database;

	/**
	 * Creates the test for one database.
	 * @param dialect which database to run on
	 */
	protected DatabaseTest(dev.polling.jdbc.Dialect dialect) {
		this.dialect = dialect;
	}

	@BeforeAll
	final void createDatabase() {
		this.database = TestDatabases.create(this.dialect);
	}

	/**
	 * The fresh database of this test class.
	 * @return the database
	 */
	protected final TestDatabase database() {
		if (this.database == null) {
			throw new IllegalStateException("database() is available from @BeforeAll methods of subclasses on");
		}
		return this.database;
	}

}
