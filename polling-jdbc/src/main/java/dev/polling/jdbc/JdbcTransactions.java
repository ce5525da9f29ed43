package dev.polling.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Plain-JDBC transactions bound to the current thread, for applications without a transaction
 * manager: {@link #inTransaction} runs work in a transaction on one connection of the data source,
 * and while it runs, {@link #getConnection()} hands out that connection, so that every database
 * part built with {@code connections(transactions)} joins it. The queue workers use it to commit a
 * handler's own work and its message's completion together:
 * <pre>{@code
 * JdbcTransactions transactions = JdbcTransactions.of(dataSource);
 * WorkQueue queue = WorkQueue.builder(dataSource).connections(transactions).build();
 * QueueWorkers workers = QueueWorkers.builder(queue)
 *     .transactions(transactions)
 *     .subscribe("orders", (message) -> insertOrder(transactions.connection(), message.payload()))
 *     .build();
 * }</pre>
 * Outside {@code inTransaction}, {@link #getConnection()} borrows a connection per call (auto-commit,
 * as {@link ConnectionProvider#of(DataSource)}).
 */
public final class JdbcTransactions implements ConnectionProvider, TransactionRunner {

	private final DataSource dataSource;

	private final ThreadLocal<@Nullable Connection> current = new ThreadLocal<>();

	private JdbcTransactions(DataSource dataSource) {
		this.dataSource = dataSource;
	}

	/**
	 * Transactions on a data source.
	 * @param dataSource the data source
	 * @return the transactions
	 */
	public static JdbcTransactions of(DataSource dataSource) {
		return new JdbcTransactions(Objects.requireNonNull(dataSource, "dataSource must not be null"));
	}

	/**
	 * Runs the work in a transaction: commits when it returns, rolls back when it throws (and
	 * rethrows). Inside a transaction of this thread, joins it.
	 * @param work the work
	 * @throws DataAccessFailure if the transaction cannot be begun or committed
	 */
	@Override
	public void inTransaction(Runnable work) {
		Objects.requireNonNull(work, "work must not be null");
		if (this.current.get() != null) {
			work.run();
			return;
		}
		Connection connection;
		try {
			connection = this.dataSource.getConnection();
		}
		catch (SQLException ex) {
			throw new DataAccessFailure("Could not begin a transaction: obtaining a connection failed", ex);
		}
		try {
			connection.setAutoCommit(false);
			this.current.set(connection);
			try {
				work.run();
			}
			catch (RuntimeException | Error ex) {
				try {
					connection.rollback();
				}
				catch (SQLException rollback) {
					ex.addSuppressed(rollback);
				}
				throw ex;
			}
			connection.commit();
		}
		catch (SQLException ex) {
			throw new DataAccessFailure("Could not commit the transaction", ex);
		}
		finally {
			this.current.remove();
			close(connection);
		}
	}

	/**
	 * The connection of this thread's transaction, for the work's own SQL.
	 * @return the connection
	 * @throws IllegalStateException outside {@link #inTransaction}
	 */
	public Connection connection() {
		Connection connection = this.current.get();
		if (connection == null) {
			throw new IllegalStateException("No transaction on this thread: call connection() inside "
					+ "JdbcTransactions.inTransaction (the queue workers' handlers run inside it)");
		}
		return connection;
	}

	@Override
	public Connection getConnection() throws SQLException {
		Connection connection = this.current.get();
		return (connection != null) ? connection : this.dataSource.getConnection();
	}

	@Override
	public void releaseConnection(Connection connection) throws SQLException {
		if (connection != this.current.get()) {
			connection.close();
		}
	}

	private static void close(Connection connection) {
		try {
			connection.setAutoCommit(true);
		}
		catch (SQLException ex) {
			// closed below either way
		}
		try {
			connection.close();
		}
		catch (SQLException ex) {
			// the transaction is over; a pool discards a broken connection
		}
	}

	@Override
	public String toString() {
		return "JdbcTransactions.of(" + this.dataSource + ")";
	}

}
