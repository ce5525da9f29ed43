package dev.polling.shedlock;

import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.test.RestartableServer;
import dev.polling.jdbc.test.TestDatabase;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;

/**
 * {@link ShedLockContractTest} on PostgreSQL 17 (embedded, a server of the test's own that it stops
 * and restarts) through ShedLock's {@link JdbcTemplateLockProvider} in its recommended configuration,
 * {@code usingDbTime()}.
 */
class PostgresShedLockTest extends ShedLockContractTest {

	private @Nullable RestartableServer server;

	private @Nullable TestDatabase database;

	@Override
	void startStore() {
		this.server = RestartableServer.create(Dialect.POSTGRESQL);
		this.database = this.server.createDatabase("shedlock");
		// ShedLock's table, as its documentation gives it for PostgreSQL
		this.database.execute("CREATE TABLE shedlock (name VARCHAR(64) PRIMARY KEY, lock_until TIMESTAMP NOT NULL, "
				+ "locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL)");
	}

	@Override
	void closeStore() {
		if (this.server != null) {
			this.server.close();
		}
	}

	@Override
	void stopServer() {
		this.server.stop();
	}

	@Override
	void restartServer() {
		this.server.start();
	}

	@Override
	void forgetLock(String lockName) {
		this.database.execute("DELETE FROM shedlock WHERE name = '" + lockName.replace("'", "''") + "'");
	}

	@Override
	void forgetAllLocks() {
		this.database.execute("TRUNCATE shedlock");
	}

	@Override
	LockProvider newProvider() {
		// a data source of its own (a new connection per request), as another application instance has
		return new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder()
			.withJdbcTemplate(new JdbcTemplate(this.database.newDataSource()))
			.usingDbTime()
			.build());
	}

	@Override
	LockProvider newOwnerBlindProvider() {
		// the default owner (locked_by) is the host name, the same for every instance in this JVM
		return newProvider();
	}

	@Override
	String describedAs() {
		return "JdbcTemplateLockProvider";
	}

}
