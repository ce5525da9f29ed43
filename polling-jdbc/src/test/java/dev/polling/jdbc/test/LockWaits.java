package dev.polling.jdbc.test;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * A data source whose connections wait at most a short time for a lock (PostgreSQL
 * {@code lock_timeout}, MariaDB {@code lock_wait_timeout} and {@code innodb_lock_wait_timeout}, H2
 * {@code LOCK_TIMEOUT}), so code that would queue behind another transaction's lock fails with the
 * database's lock-timeout error instead of waiting.
 */
public final class LockWaits {

	private LockWaits() {
	}

	/**
	 * New connections to the database that give up waiting for a lock after the time given.
	 * @param database the database
	 * @param wait the longest wait for a lock (whole seconds on MariaDB, at least 1)
	 * @return the data source
	 */
	public static DataSource bounded(TestDatabase database, Duration wait) {
		DataSource target = database.newDataSource();
		String[] settings = switch (database.dialect()) {
			case POSTGRESQL -> new String[] { "SET lock_timeout = '" + wait.toMillis() + "ms'" };
			case MARIADB -> {
				long seconds = Math.max(1, wait.toSeconds());
				yield new String[] { "SET SESSION lock_wait_timeout = " + seconds,
						"SET SESSION innodb_lock_wait_timeout = " + seconds };
			}
			case H2 -> new String[] { "SET LOCK_TIMEOUT " + wait.toMillis() };
		};
		return (DataSource) Proxy.newProxyInstance(LockWaits.class.getClassLoader(), new Class<?>[] { DataSource.class },
				(proxy, method, args) -> {
					Object result = method.invoke(target, args);
					if (result instanceof Connection connection) {
						apply(connection, settings);
					}
					return result;
				});
	}

	private static void apply(Connection connection, String[] settings) throws SQLException {
		try (Statement statement = connection.createStatement()) {
			for (String setting : settings) {
				statement.execute(setting);
			}
		}
	}

}
