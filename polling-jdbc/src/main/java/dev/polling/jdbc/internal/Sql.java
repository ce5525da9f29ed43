package dev.polling.jdbc.internal;

import dev.polling.jdbc.ConnectionProvider;
import dev.polling.jdbc.DataAccessFailure;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.SQLTransactionRollbackException;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.WeakHashMap;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs work in a short transaction of its own on a connection borrowed from a data source, never
 * in the caller's transaction: claims, lease renewals and recoveries must commit at once.
 */
public final class Sql {

	private static final Logger logger = LoggerFactory.getLogger(Sql.class);

	private static final int ATTEMPTS = 3;

	private Sql() {
	}

	/**
	 * Work on a connection.
	 * @param <T> the result type
	 */
	@FunctionalInterface
	public interface Work<T> {

		/**
		 * Does the work.
		 * @param connection the connection, in a transaction
		 * @return the result
		 * @throws SQLException on failure
		 */
		T run(Connection connection) throws SQLException;

	}

	/**
	 * Runs work in its own transaction and commits it; a deadlock or serialization failure (the
	 * database rolled the transaction back) is retried up to three times.
	 * @param <T> the result type
	 * @param dataSource where to borrow the connection
	 * @param what what is being done, for the failure message
	 * @param work the work
	 * @return the work's result
	 * @throws DataAccessFailure if the database fails
	 */
	public static <T> T inTransaction(DataSource dataSource, String what, Work<T> work) {
		return inTransaction(dataSource, what, true, work);
	}

	/**
	 * Like {@link #inTransaction(DataSource, String, Work)}, optionally without planning each
	 * statement per execution: for work whose statements are safe on a generic plan, or plan
	 * themselves where they are not ({@link #planForActualParameters} around their creation).
	 * @param <T> the result type
	 * @param dataSource where to borrow the connection
	 * @param what what is being done, for the failure message
	 * @param planEachStatement whether every statement of the work is planned per execution
	 * @param work the work
	 * @return the work's result
	 * @throws DataAccessFailure if the database fails
	 */
	public static <T> T inTransaction(DataSource dataSource, String what, boolean planEachStatement, Work<T> work) {
		return inTransaction(dataSource, what, planEachStatement, ATTEMPTS, work);
	}

	/**
	 * Like {@link #inTransaction(DataSource, String, boolean, Work)}, but never runs the work twice:
	 * for work with effects outside the database (sends), which a transaction the database rolled
	 * back would otherwise repeat. Its statements may use generic plans.
	 * @param <T> the result type
	 * @param dataSource where to borrow the connection
	 * @param what what is being done, for the failure message
	 * @param work the work
	 * @return the work's result
	 * @throws DataAccessFailure if the database fails
	 */
	public static <T> T inTransactionOnce(DataSource dataSource, String what, Work<T> work) {
		return inTransaction(dataSource, what, false, 1, work);
	}

	private static <T> T inTransaction(DataSource dataSource, String what, boolean planEachStatement, int attempts,
			Work<T> work) {
		@Nullable SQLException last = null;
		for (int attempt = 1; attempt <= attempts; attempt++) {
			try (Connection connection = dataSource.getConnection()) {
				boolean autoCommit = connection.getAutoCommit();
				if (autoCommit) {
					connection.setAutoCommit(false);
				}
				// READ COMMITTED everywhere (PostgreSQL's and H2's default): on MariaDB/InnoDB it avoids the gap
				// locks of REPEATABLE READ between claims, completions and lease recovery
				int isolation = isolationOf(connection);
				if (isolation != Connection.TRANSACTION_READ_COMMITTED) {
					connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
				}
				try {
					return commitOrRollBack(connection, planEachStatement, work);
				}
				finally {
					restore(connection, isolation, autoCommit);
				}
			}
			catch (SQLException ex) {
				if (!rolledBackByTheDatabase(ex)) {
					throw new DataAccessFailure("Could not " + what, ex);
				}
				last = ex;
				logger.debug("{}: transaction rolled back by the database (attempt {} of {})", what, attempt, attempts,
						ex);
			}
		}
		throw new DataAccessFailure((attempts == 1) ? "Could not " + what + ": the database rolled the transaction back"
				: "Could not " + what + " after " + attempts + " attempts", Objects.requireNonNull(last));
	}

	/**
	 * Runs one statement's work on a borrowed connection in auto-commit mode: the statement commits
	 * by itself, in one round trip (no transaction begun and committed around it, no settings read).
	 * For a single write that is atomic on its own; its plan may be the server's generic one. Like
	 * {@link #inTransaction}, a deadlock or serialization failure (the statement was rolled back) is
	 * retried up to three times.
	 * @param <T> the result type
	 * @param dataSource where to borrow the connection
	 * @param what what is being done, for the failure message
	 * @param work the work, one statement
	 * @return the work's result
	 * @throws DataAccessFailure if the database fails
	 */
	public static <T> T inOneStatement(DataSource dataSource, String what, Work<T> work) {
		@Nullable SQLException last = null;
		for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
			try (Connection connection = dataSource.getConnection()) {
				boolean autoCommit = connection.getAutoCommit();
				if (!autoCommit) {
					connection.setAutoCommit(true);
				}
				try {
					return work.run(connection);
				}
				finally {
					if (!autoCommit) {
						connection.setAutoCommit(false); // as the pool handed it out
					}
				}
			}
			catch (SQLException ex) {
				if (!rolledBackByTheDatabase(ex)) {
					throw new DataAccessFailure("Could not " + what, ex);
				}
				last = ex;
				logger.debug("{}: statement rolled back by the database (attempt {} of {})", what, attempt, ATTEMPTS, ex);
			}
		}
		throw new DataAccessFailure("Could not " + what + " after " + ATTEMPTS + " attempts", Objects.requireNonNull(last));
	}

	/**
	 * Runs work on a connection as one transaction: in the connection's transaction when it has one
	 * (auto-commit off, e.g. a connection bound to the caller's transaction), else in a local
	 * transaction that commits before this returns, so that several statements never commit one by
	 * one.
	 * @param <T> the result type
	 * @param connection the connection
	 * @param work the work
	 * @return the work's result
	 * @throws SQLException on failure (a local transaction is rolled back)
	 */
	public static <T> T inConnectionTransaction(Connection connection, Work<T> work) throws SQLException {
		if (!connection.getAutoCommit()) {
			return work.run(connection);
		}
		connection.setAutoCommit(false);
		try {
			return commitOrRollBack(connection, true, work);
		}
		finally {
			connection.setAutoCommit(true);
		}
	}

	/**
	 * Runs work on a connection whose auto-commit is off and commits it, or rolls it back if it
	 * fails.
	 */
	private static <T> T commitOrRollBack(Connection connection, boolean planEachStatement, Work<T> work)
			throws SQLException {
		try {
			T result;
			try (Planning planning = planEachStatement ? planForActualParameters(connection) : Planning.NONE) {
				result = work.run(connection);
			}
			connection.commit();
			return result;
		}
		catch (SQLException | RuntimeException ex) {
			rollback(connection, ex);
			throw ex;
		}
	}

	/**
	 * Undoes what {@link #planForActualParameters} changed on a connection.
	 */
	@FunctionalInterface
	public interface Planning extends AutoCloseable {

		/** Nothing to undo. */
		Planning NONE = () -> {
		};

		@Override
		void close() throws SQLException;

	}

	/**
	 * On PostgreSQL, makes the statements this library creates on the connection from now until the
	 * returned handle is closed be planned for their actual parameters and the table's current size,
	 * never with a reused generic plan. With PostgreSQL's own driver (pgjdbc) they are simply never
	 * prepared on the server (prepare threshold 0 on the connection, a client-side setting restored on
	 * close): no round trip, and nothing changes for the statements of the caller's own work. With
	 * another driver, on PostgreSQL 12 and later and in a transaction, {@code SET LOCAL plan_cache_mode
	 * = force_custom_plan} (one round trip; for the rest of that transaction). Elsewhere nothing.
	 * <p>
	 * Why: the JDBC driver prepares a statement on the server after a few executions, and the server
	 * may then reuse one generic plan for it until the table is analyzed again. A generic plan made
	 * while the queue table was nearly empty (right after deployment, or with autovacuum not yet
	 * round) can scan every ready row, or every row ever in progress, for each claim or fenced write:
	 * measured on a fresh table, single-row claims fell to 550 per second and kept falling with the
	 * backlog, against over 1,600 with plans made per execution (docs/benchmarks.md). The queue's
	 * fenced writes no longer need this (their condition leaves the primary key as the only usable
	 * index; {@code QueueOutcomes.HELD}); claims still do: on a table never analyzed and nearly empty, the
	 * generic plan of a claim (PostgreSQL 17, {@code EXPLAIN (GENERIC_PLAN)}) updates the picked rows
	 * through a sequential scan, which it would keep while the table grows.
	 * @param connection the connection
	 * @return what undoes the change, to close once the statements are created (or {@link Planning#NONE})
	 * @throws SQLException if the setting cannot be made
	 */
	public static Planning planForActualParameters(Connection connection) throws SQLException {
		DatabaseMetaData metaData = connection.getMetaData();
		if (!"PostgreSQL".equals(metaData.getDatabaseProductName())) {
			return Planning.NONE;
		}
		if (PgJdbc.PRESENT && PgJdbc.isPgConnection(connection)) {
			return PgJdbc.neverPrepareOnServer(connection);
		}
		if (!connection.getAutoCommit() && metaData.getDatabaseMajorVersion() >= 12) {
			try (Statement statement = connection.createStatement()) {
				statement.execute("SET LOCAL plan_cache_mode = force_custom_plan");
			}
		}
		return Planning.NONE;
	}

	/**
	 * Borrows a connection from the provider (joining the caller's transaction where it has one).
	 * @param connections the provider
	 * @param table the table it is for, for the failure message
	 * @return the connection
	 * @throws DataAccessFailure if none can be had
	 */
	public static Connection obtain(ConnectionProvider connections, String table) {
		try {
			return connections.getConnection();
		}
		catch (SQLException ex) {
			throw new DataAccessFailure("Could not obtain a connection for " + table, ex);
		}
	}

	/**
	 * Gives a connection from {@link #obtain} back; a failure is logged, not thrown (the work is done).
	 * @param connections the provider
	 * @param connection the connection
	 * @param table the table it was for, for the log
	 */
	public static void release(ConnectionProvider connections, Connection connection, String table) {
		try {
			connections.releaseConnection(connection);
		}
		catch (SQLException ex) {
			logger.warn("Could not release the connection used for {}", table, ex);
		}
	}

	/**
	 * {@code ?, ?, ?} for an IN list.
	 * @param count how many
	 * @return the placeholders
	 */
	public static String placeholders(int count) {
		return String.join(", ", Collections.nCopies(count, "?"));
	}

	/**
	 * The isolation level a connection has between transactions, as read from it the first time this
	 * library borrowed it (physical connections, weakly held). Reading it is a round trip with
	 * PostgreSQL's driver ({@code SHOW TRANSACTION ISOLATION LEVEL}) and every transaction of the
	 * library begins with it; the library restores the level it read after each of its transactions,
	 * and a pool resets a level its borrower changed, so the level read stays the level found.
	 */
	private static final Map<Connection, Integer> ISOLATION = Collections.synchronizedMap(new WeakHashMap<>());

	private static int isolationOf(Connection connection) throws SQLException {
		Connection physical = connection.isWrapperFor(Connection.class) ? connection.unwrap(Connection.class) : connection;
		Integer known = ISOLATION.get(physical);
		if (known != null) {
			return known;
		}
		int isolation = connection.getTransactionIsolation();
		ISOLATION.put(physical, isolation);
		return isolation;
	}

	/**
	 * Whether the transaction of the library's own open on this connection can be committed by the
	 * last statement of its work, sent with it as {@code ...; COMMIT} in one execution: PostgreSQL's
	 * own driver, not in its {@code simple} query mode. The driver then sees the transaction ended,
	 * and the {@code commit()} that follows sends nothing: one round trip less per transaction. Only
	 * for transactions the library opened itself (never a caller's).
	 * @param connection the connection, in the library's own transaction
	 * @return whether it can
	 * @throws SQLException if the connection cannot say
	 */
	public static boolean commitsWithItsLastStatement(Connection connection) throws SQLException {
		return PgJdbc.PRESENT && !connection.getAutoCommit() && PgJdbc.isPgConnection(connection)
				&& PgJdbc.sendsOneExecutionAsOneTransaction(connection);
	}

	/**
	 * Whether several statements sent in one execution on this connection run as one transaction
	 * that commits once all succeeded: PostgreSQL's own driver (pgjdbc) in auto-commit mode sends
	 * them with one Sync, which the server runs as one implicit transaction (not in its {@code simple}
	 * query mode, which sends them one by one); only where the session's isolation level is READ
	 * COMMITTED (the level the library's own transactions use).
	 * @param connection the connection
	 * @return whether it does
	 * @throws SQLException if the connection cannot say
	 */
	public static boolean runsStatementsOfOneExecutionAsOneTransaction(Connection connection) throws SQLException {
		return PgJdbc.PRESENT && connection.getAutoCommit() && PgJdbc.isPgConnection(connection)
				&& PgJdbc.sendsOneExecutionAsOneTransaction(connection)
				&& isolationOf(connection) == Connection.TRANSACTION_READ_COMMITTED;
	}

	/** A deadlock or serialization failure: the database rolled the work back, so it can run again. */
	private static boolean rolledBackByTheDatabase(SQLException ex) {
		return ex instanceof SQLTransactionRollbackException || isDeadlock(ex);
	}

	private static boolean isDeadlock(SQLException ex) {
		String state = ex.getSQLState();
		// 40001 serialization failure / deadlock (all three), 40P01 PostgreSQL deadlock, MariaDB 1213/1205
		return (state != null && state.startsWith("40")) || ex.getErrorCode() == 1213 || ex.getErrorCode() == 1205;
	}

	/**
	 * Puts the connection's settings back. On a connection the failure broke (a pool closes it at
	 * once, e.g. HikariCP answers "Connection is closed"), this fails too; that failure must not
	 * hide the one that broke it, which tells whether the database is gone.
	 */
	private static void restore(Connection connection, int isolation, boolean autoCommit) {
		try {
			if (isolation != Connection.TRANSACTION_READ_COMMITTED) {
				connection.setTransactionIsolation(isolation);
			}
			if (autoCommit) {
				connection.setAutoCommit(true);
			}
		}
		catch (SQLException ex) {
			logger.debug("Could not restore the connection's settings; the pool discards a broken connection", ex);
		}
	}

	private static void rollback(Connection connection, Exception cause) {
		try {
			connection.rollback();
		}
		catch (SQLException ex) {
			cause.addSuppressed(ex);
		}
	}

}
