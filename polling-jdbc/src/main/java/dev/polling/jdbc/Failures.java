package dev.polling.jdbc;

import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * Tells database errors that go away by themselves (the connection dropped, the server restarts, a
 * deadlock or serialization failure rolled the transaction back, a lock or statement timeout) from
 * those that come back on every attempt (a constraint violation, a syntax error, a missing table).
 */
public final class Failures {

	private Failures() {
	}

	/**
	 * Whether the failure, or an exception it was caused by, is a transient database error.
	 * @param failure the failure
	 * @return {@code true} if trying again later may succeed
	 */
	public static boolean isTransient(@Nullable Throwable failure) {
		return anyCause(failure, (sql) -> isTransient(sql));
	}

	/**
	 * Whether the failure, or an exception it was caused by, says that the database cannot be
	 * reached (no connection, connection lost, server shutting down).
	 * @param failure the failure
	 * @return {@code true} for a connection failure
	 */
	public static boolean isConnectionFailure(@Nullable Throwable failure) {
		return anyCause(failure, (sql) -> isConnectionFailure(sql));
	}

	/**
	 * Whether the failure, or an exception it was caused by, shows that the database itself cannot be
	 * reached (refused or lost connection, server shutting down or starting up). Unlike
	 * {@link #isConnectionFailure}, a connection pool that only timed out waiting for a free
	 * connection (an {@link java.sql.SQLTransientConnectionException} without SQLState, as HikariCP
	 * throws when all its connections are busy) is no such evidence; when the pool timed out because
	 * the database refused new connections, it carries that failure as its cause and SQLState.
	 * @param failure the failure
	 * @return {@code true} if the database is unreachable
	 */
	public static boolean isUnreachable(@Nullable Throwable failure) {
		return anyCause(failure, (sql) -> {
			boolean busyPool = sql instanceof java.sql.SQLTransientConnectionException pool && pool.getSQLState() == null;
			return !busyPool && isConnectionFailure(sql);
		});
	}

	/**
	 * Whether the failure or one of its causes is an I/O failure or a database error that passes the
	 * test.
	 */
	private static boolean anyCause(@Nullable Throwable failure, Predicate<SQLException> test) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof SQLException sql && test.test(sql)) {
				return true;
			}
			if (cause instanceof java.io.IOException) {
				return true;
			}
			if (cause.getCause() == cause) {
				break;
			}
		}
		return false;
	}

	private static boolean isTransient(SQLException ex) {
		if (isConnectionFailure(ex) || ex instanceof SQLTransientException) {
			return true;
		}
		String state = ex.getSQLState();
		int code = ex.getErrorCode();
		if (state != null) {
			// 40: transaction rolled back (deadlock, serialization failure); 53: insufficient resources
			// (too many connections); 57014: statement cancelled (timeout); 55P03: lock not available
			if (state.startsWith("40") || state.startsWith("53") || state.equals("57014") || state.equals("55P03")
					|| state.equals("HYT00") || state.equals("HYT01")) {
				return true;
			}
		}
		// MariaDB: 1205 lock wait timeout, 1213 deadlock, 1040 too many connections, 1969/3024 statement
		// timeout; H2: 50200 lock timeout, 40001 deadlock, 57014 cancelled
		return code == 1205 || code == 1213 || code == 1040 || code == 1969 || code == 3024 || code == 50200;
	}

	private static boolean isConnectionFailure(SQLException ex) {
		if (ex instanceof SQLRecoverableException || ex instanceof java.sql.SQLNonTransientConnectionException
				|| ex instanceof java.sql.SQLTransientConnectionException) {
			return true;
		}
		String state = ex.getSQLState();
		int code = ex.getErrorCode();
		// 08: connection exception; 57P01-57P03: server shutting down or not yet accepting connections
		if (state != null && (state.startsWith("08") || state.equals("57P01") || state.equals("57P02")
				|| state.equals("57P03"))) {
			return true;
		}
		// MariaDB: 2002/2003 cannot connect, 2006 gone away, 2013 lost connection, 1927 connection killed,
		// 1053 server shutdown; H2: 90067 connection broken, 90098 database closed
		return code == 2002 || code == 2003 || code == 2006 || code == 2013 || code == 1927 || code == 1053
				|| code == 90067 || code == 90098;
	}

}
