package dev.polling.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * Where the database parts get the connection for an operation that belongs to the caller's
 * transaction, and how they give it back. The default {@link #of(DataSource)} borrows a connection
 * from the data source and closes it afterwards; a framework plugs in its transaction-bound
 * connection instead (the Spring Boot starter uses {@code DataSourceUtils}, so calls made inside a
 * {@code @Transactional} method join that transaction).
 */
public interface ConnectionProvider {

	/**
	 * Returns the connection to use for one operation.
	 * @return an open connection
	 * @throws SQLException if none can be obtained
	 */
	Connection getConnection() throws SQLException;

	/**
	 * Gives back a connection obtained from {@link #getConnection()}.
	 * @param connection the connection
	 * @throws SQLException if releasing fails
	 */
	void releaseConnection(Connection connection) throws SQLException;

	/**
	 * A provider that borrows a fresh connection from the data source for every operation and closes
	 * it afterwards. Without a surrounding transaction manager, each operation then runs in the
	 * connection's own (usually auto-commit) transaction.
	 * @param dataSource the data source
	 * @return the provider
	 */
	static ConnectionProvider of(DataSource dataSource) {
		Objects.requireNonNull(dataSource, "dataSource must not be null");
		return new ConnectionProvider() {

			@Override
			public Connection getConnection() throws SQLException {
				return dataSource.getConnection();
			}

			@Override
			public void releaseConnection(Connection connection) throws SQLException {
				connection.close();
			}

			@Override
			public String toString() {
				return "ConnectionProvider.of(" + dataSource + ")";
			}

		};
	}

	/**
	 * A provider that always hands out the given connection and never closes it; the caller owns its
	 * transaction and its life cycle.
	 * @param connection an open connection
	 * @return the provider
	 */
	static ConnectionProvider of(Connection connection) {
		Objects.requireNonNull(connection, "connection must not be null");
		return new ConnectionProvider() {

			@Override
			public Connection getConnection() {
				return connection;
			}

			@Override
			public void releaseConnection(Connection released) {
				// owned by the caller
			}

			@Override
			public String toString() {
				return "ConnectionProvider.of(" + connection + ")";
			}

		};
	}

}
