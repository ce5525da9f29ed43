package dev.polling.jdbc.test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.h2.api.Trigger;

/**
 * Real database errors and delays on demand: a trigger on a table makes the database itself refuse
 * inserts of rows whose {@code payload} column has a chosen value, with a chosen SQLSTATE, or hold
 * them for a while, for as long as the value is listed in the table {@code polling_test_fault}. The
 * error is raised by the server (a PL/pgSQL {@code RAISE}, a MariaDB {@code SIGNAL}, an H2 Java
 * trigger), so the library sees it exactly as it would see a deadlock or serialization failure; the
 * delay keeps the inserting transaction open with its locks, as a slow statement would.
 */
public final class Faults {

	/** SQLSTATE 40001, serialization failure (the class of deadlock victims). */
	public static final String SERIALIZATION_FAILURE = "40001";

	/** SQLSTATE 23514, a check constraint violation: a permanent error. */
	public static final String CHECK_VIOLATION = "23514";

	private static final String CONTROL_TABLE = "CREATE TABLE IF NOT EXISTS polling_test_fault (payload VARCHAR(1000) "
			+ "PRIMARY KEY, sql_state CHAR(5), sleep_ms INTEGER NOT NULL DEFAULT 0)";

	private Faults() {
	}

	/**
	 * Installs the fault trigger on a table with a {@code payload} column (once per table).
	 * @param database the database
	 * @param table the table
	 */
	public static void install(TestDatabase database, String table) {
		String trigger = "polling_test_fault_" + table;
		switch (database.dialect()) {
			case POSTGRESQL -> database.execute(CONTROL_TABLE,
					"CREATE OR REPLACE FUNCTION polling_test_fault_check() RETURNS trigger AS $$ "
							+ "DECLARE s CHAR(5); d INTEGER; BEGIN "
							+ "SELECT sql_state, sleep_ms INTO s, d FROM polling_test_fault WHERE payload = NEW.payload; "
							+ "IF d > 0 THEN PERFORM pg_sleep(d / 1000.0); END IF; "
							+ "IF s IS NOT NULL THEN RAISE EXCEPTION 'injected fault for payload %', NEW.payload "
							+ "USING ERRCODE = s; END IF; RETURN NEW; END $$ LANGUAGE plpgsql",
					"DROP TRIGGER IF EXISTS " + trigger + " ON " + table,
					"CREATE TRIGGER " + trigger + " BEFORE INSERT ON " + table
							+ " FOR EACH ROW EXECUTE FUNCTION polling_test_fault_check()");
			case MARIADB -> database.execute(CONTROL_TABLE,
					"DROP TRIGGER IF EXISTS " + trigger,
					"CREATE TRIGGER " + trigger + " BEFORE INSERT ON " + table + " FOR EACH ROW BEGIN "
							+ "DECLARE s CHAR(5); DECLARE d INTEGER; "
							+ "SET s = (SELECT sql_state FROM polling_test_fault WHERE payload = NEW.payload); "
							+ "SET d = (SELECT sleep_ms FROM polling_test_fault WHERE payload = NEW.payload); "
							+ "IF d > 0 THEN DO SLEEP(d / 1000.0); END IF; "
							+ "IF s = '40001' THEN SIGNAL SQLSTATE '40001' SET MESSAGE_TEXT = 'injected fault'; "
							+ "ELSEIF s = '23514' THEN SIGNAL SQLSTATE '23514' SET MESSAGE_TEXT = 'injected fault'; "
							+ "ELSEIF s IS NOT NULL THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'injected fault'; "
							+ "END IF; END");
			case H2 -> database.execute(CONTROL_TABLE,
					"DROP TRIGGER IF EXISTS " + trigger,
					"CREATE TRIGGER " + trigger + " BEFORE INSERT ON " + table + " FOR EACH ROW CALL \""
							+ H2FaultTrigger.class.getName() + "\"");
		}
	}

	/**
	 * Makes inserts of rows with this payload fail with the SQLSTATE until {@link #clear}.
	 * @param database the database
	 * @param payload the payload value
	 * @param sqlState the SQLSTATE to raise
	 */
	public static void fail(TestDatabase database, String payload, String sqlState) {
		database.execute("INSERT INTO polling_test_fault (payload, sql_state) VALUES ('" + payload.replace("'", "''")
				+ "', '" + sqlState + "')");
	}

	/**
	 * Makes inserts of rows with this payload wait before they go through, until {@link #clear}.
	 * @param database the database
	 * @param payload the payload value
	 * @param millis how long each insert waits
	 */
	public static void delay(TestDatabase database, String payload, int millis) {
		database.execute("INSERT INTO polling_test_fault (payload, sleep_ms) VALUES ('" + payload.replace("'", "''")
				+ "', " + millis + ")");
	}

	/**
	 * Lets every insert through again.
	 * @param database the database
	 */
	public static void clear(TestDatabase database) {
		database.execute("DELETE FROM polling_test_fault");
	}

	/** The H2 side of the fault trigger. */
	public static final class H2FaultTrigger implements Trigger {

		private int payloadIndex = -1;

		@Override
		public void init(Connection connection, String schemaName, String triggerName, String tableName,
				boolean before, int type) throws SQLException {
			try (PreparedStatement statement = connection.prepareStatement("SELECT ORDINAL_POSITION FROM "
					+ "INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND COLUMN_NAME = 'PAYLOAD'")) {
				statement.setString(1, schemaName);
				statement.setString(2, tableName);
				try (ResultSet result = statement.executeQuery()) {
					if (result.next()) {
						this.payloadIndex = result.getInt(1) - 1;
					}
				}
			}
		}

		@Override
		public void fire(Connection connection, Object[] oldRow, Object[] newRow) throws SQLException {
			if (newRow == null || this.payloadIndex < 0) {
				return;
			}
			try (PreparedStatement statement = connection
				.prepareStatement("SELECT sql_state, sleep_ms FROM polling_test_fault WHERE payload = ?")) {
				statement.setString(1, String.valueOf(newRow[this.payloadIndex]));
				try (ResultSet result = statement.executeQuery()) {
					if (result.next()) {
						if (result.getInt(2) > 0) {
							try {
								Thread.sleep(result.getInt(2));
							}
							catch (InterruptedException ex) {
								Thread.currentThread().interrupt();
							}
						}
						if (result.getString(1) != null) {
							throw new SQLException("injected fault for payload " + newRow[this.payloadIndex],
									result.getString(1));
						}
					}
				}
			}
		}

	}

}
