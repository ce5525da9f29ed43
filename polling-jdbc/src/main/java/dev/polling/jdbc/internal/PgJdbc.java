package dev.polling.jdbc.internal;

import java.sql.Connection;
import java.sql.SQLException;
import org.postgresql.PGConnection;
import org.postgresql.jdbc.PreferQueryMode;

/**
 * What this library uses of PostgreSQL's own JDBC driver (pgjdbc), an optional dependency: the
 * class is only touched when {@link #PRESENT} says the driver is on the class path.
 */
final class PgJdbc {

	/** Whether pgjdbc is on the class path. */
	static final boolean PRESENT = isPresent();

	private PgJdbc() {
	}

	private static boolean isPresent() {
		try {
			Class.forName("org.postgresql.PGConnection", false, PgJdbc.class.getClassLoader());
			return true;
		}
		catch (ClassNotFoundException | LinkageError ex) {
			return false;
		}
	}

	/** Whether the connection (or what a pool wraps) is pgjdbc's. */
	static boolean isPgConnection(Connection connection) throws SQLException {
		return connection.isWrapperFor(PGConnection.class);
	}

	/**
	 * Whether the connection sends the statements of one execution in the extended protocol with one
	 * Sync at the end (any query mode but {@code simple}, which sends them one by one): the server
	 * then runs them, in auto-commit mode, as one implicit transaction.
	 */
	static boolean sendsOneExecutionAsOneTransaction(Connection connection) throws SQLException {
		return connection.unwrap(PGConnection.class).getPreferQueryMode() != PreferQueryMode.SIMPLE;
	}

	/**
	 * Sets the connection's prepare threshold to 0 (statements created from now on run as unnamed
	 * statements, planned at each execution with its parameters) and answers what restores it.
	 */
	static Sql.Planning neverPrepareOnServer(Connection connection) throws SQLException {
		PGConnection pg = connection.unwrap(PGConnection.class);
		int before = pg.getPrepareThreshold();
		if (before == 0) {
			return Sql.Planning.NONE;
		}
		pg.setPrepareThreshold(0);
		return () -> pg.setPrepareThreshold(before);
	}

}
