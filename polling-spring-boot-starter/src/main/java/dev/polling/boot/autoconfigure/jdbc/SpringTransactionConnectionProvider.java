package dev.polling.boot.autoconfigure.jdbc;

import dev.polling.jdbc.ConnectionProvider;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DataSourceUtils;

/**
 * A {@link ConnectionProvider} that hands out the connection bound to the current Spring-managed
 * transaction ({@code @Transactional}, {@code TransactionTemplate}) through
 * {@link DataSourceUtils}, so that polling's operations join that transaction; outside a
 * transaction it borrows a connection and closes it after use.
 */
public final class SpringTransactionConnectionProvider implements ConnectionProvider {

	private final DataSource dataSource;

	/**
	 * Creates the provider.
	 * @param dataSource the data source the transaction manager manages
	 */
	public SpringTransactionConnectionProvider(DataSource dataSource) {
		this.dataSource = Objects.requireNonNull(dataSource, "dataSource must not be null");
	}

	@Override
	public Connection getConnection() throws SQLException {
		try {
			return DataSourceUtils.doGetConnection(this.dataSource);
		}
		catch (IllegalStateException ex) {
			throw new SQLException("Could not get a transaction-bound connection: " + ex.getMessage(), ex);
		}
	}

	@Override
	public void releaseConnection(Connection connection) throws SQLException {
		DataSourceUtils.doReleaseConnection(connection, this.dataSource);
	}

}
