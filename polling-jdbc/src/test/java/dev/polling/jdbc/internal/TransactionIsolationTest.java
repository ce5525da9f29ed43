package dev.polling.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.test.TestDatabase;
import dev.polling.jdbc.test.TestDatabases;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The library's own transactions run at READ COMMITTED whatever level the borrowed connection has
 * (MariaDB's default is REPEATABLE READ, whose gap locks deadlock claims against completions), and
 * give the connection back at its level; the level is read once per connection, so later
 * transactions on it do not pay that round trip, and still run at READ COMMITTED.
 */
class TransactionIsolationTest {

	@ParameterizedTest
	@EnumSource(Dialect.class)
	void everyTransactionRunsAtReadCommittedAndTheConnectionKeepsItsOwnLevel(Dialect dialect) throws Exception {
		TestDatabase database = TestDatabases.create(dialect);
		try (Connection connection = database.connect()) {
			connection.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
			DataSource oneConnection = borrowing(connection);
			List<String> levels = new ArrayList<>();
			for (int i = 0; i < 3; i++) {
				levels.add(Sql.inTransaction(oneConnection, "read the level", (tx) -> level(dialect, tx)));
				assertThat(connection.getTransactionIsolation()).as("the level between transactions")
					.isEqualTo(Connection.TRANSACTION_REPEATABLE_READ);
				assertThat(connection.getAutoCommit()).isTrue();
			}
			assertThat(levels).as("inside the library's transactions on %s", dialect)
				.allSatisfy((level) -> assertThat(level.replace('-', ' ').replace('_', ' ')).containsIgnoringCase("read committed"));
		}
	}

	private static String level(Dialect dialect, Connection connection) throws java.sql.SQLException {
		String sql = switch (dialect) {
			case POSTGRESQL -> "SHOW transaction_isolation";
			case MARIADB -> "SELECT @@tx_isolation";
			case H2 -> "SELECT ISOLATION_LEVEL FROM INFORMATION_SCHEMA.SESSIONS WHERE SESSION_ID = SESSION_ID()";
		};
		try (Statement statement = connection.createStatement(); ResultSet result = statement.executeQuery(sql)) {
			result.next();
			return result.getString(1);
		}
	}

	/** A data source that lends the one connection again and again, as a pool of one would. */
	private static DataSource borrowing(Connection connection) {
		Connection lent = (Connection) Proxy.newProxyInstance(TransactionIsolationTest.class.getClassLoader(),
				new Class<?>[] { Connection.class }, (proxy, method, args) -> {
					switch (method.getName()) {
						case "close" -> {
							return null;
						}
						case "isWrapperFor" -> {
							return ((Class<?>) args[0]).isInstance(connection);
						}
						case "unwrap" -> {
							return connection;
						}
						default -> {
							try {
								return method.invoke(connection, args);
							}
							catch (java.lang.reflect.InvocationTargetException ex) {
								throw ex.getCause();
							}
						}
					}
				});
		return (DataSource) Proxy.newProxyInstance(TransactionIsolationTest.class.getClassLoader(),
				new Class<?>[] { DataSource.class }, (proxy, method, args) -> {
					if (method.getName().equals("getConnection")) {
						return lent;
					}
					throw new UnsupportedOperationException(method.getName());
				});
	}

}
