package dev.polling.jdbc.test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How many table and index rows a statement reads, as the database itself reports when it runs the
 * statement under {@code EXPLAIN ANALYZE} (PostgreSQL: rows returned plus rows removed by filters, per
 * scan node and loop; MariaDB: {@code ANALYZE FORMAT=JSON}, loops times rows per table access; H2:
 * the scan counts of {@code EXPLAIN ANALYZE}). The statement runs for real, in a transaction that
 * is rolled back. A cost that does not depend on how much else is in the table shows here as a
 * number that does not grow with it, without timing anything.
 */
public final class QueryPlans {

	private static final Pattern POSTGRES_NODE = Pattern
		.compile("(Scan|Scan Backward)[^(]*\\(.*actual time=[^ ]+ rows=(\\d+) loops=(\\d+)\\)");

	private static final Pattern POSTGRES_REMOVED = Pattern.compile("Rows Removed by (Filter|Index Recheck): (\\d+)");

	private static final Pattern MARIADB_ACCESS = Pattern.compile("\"r_loops\":\\s*(\\d+).*?\"r_rows\":\\s*([\\d.]+)",
			Pattern.DOTALL);

	private static final Pattern H2_SCANS = Pattern.compile("scanCount: (\\d+)");

	private QueryPlans() {
	}

	/**
	 * Runs the statement under {@code EXPLAIN ANALYZE} and rolls it back.
	 * @param database the database
	 * @param sql a statement without parameters
	 * @return the rows it read
	 */
	public static long rowsRead(TestDatabase database, String sql) {
		return rowsRead(database, sql, new Object[0]);
	}

	/**
	 * Runs the statement under {@code EXPLAIN ANALYZE} with parameters and rolls it back.
	 * @param database the database
	 * @param sql the statement
	 * @param parameters its parameters, in order
	 * @return the rows it read
	 */
	public static long rowsRead(TestDatabase database, String sql, Object... parameters) {
		String explain = switch (database.dialect()) {
			case POSTGRESQL -> "EXPLAIN (ANALYZE, FORMAT TEXT) ";
			case MARIADB -> "ANALYZE FORMAT=JSON ";
			case H2 -> "EXPLAIN ANALYZE ";
		};
		StringBuilder plan = new StringBuilder();
		try (Connection connection = database.connect()) {
			connection.setAutoCommit(false);
			try (PreparedStatement statement = connection.prepareStatement(explain + sql)) {
				for (int i = 0; i < parameters.length; i++) {
					statement.setObject(i + 1, parameters[i]);
				}
				try (ResultSet result = statement.executeQuery()) {
					while (result.next()) {
						plan.append(result.getString(1)).append('\n');
					}
				}
			}
			finally {
				connection.rollback();
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not explain on " + database.name() + ": " + sql, ex);
		}
		return count(database, plan.toString());
	}

	private static long count(TestDatabase database, String plan) {
		long rows = 0;
		switch (database.dialect()) {
			case POSTGRESQL -> {
				long loops = 1;
				for (String line : plan.split("\n")) {
					Matcher node = POSTGRES_NODE.matcher(line);
					if (node.find()) {
						loops = Long.parseLong(node.group(3));
						rows += Long.parseLong(node.group(2)) * loops;
					}
					else if (line.contains("->") || line.contains("(actual")) {
						loops = 1;
					}
					Matcher removed = POSTGRES_REMOVED.matcher(line);
					if (removed.find()) {
						rows += Long.parseLong(removed.group(2)) * loops;
					}
				}
			}
			case MARIADB -> {
				Matcher access = MARIADB_ACCESS.matcher(plan);
				while (access.find()) {
					rows += Math.round(Long.parseLong(access.group(1)) * Double.parseDouble(access.group(2)));
				}
			}
			case H2 -> {
				Matcher scans = H2_SCANS.matcher(plan);
				while (scans.find()) {
					rows += Long.parseLong(scans.group(1));
				}
			}
		}
		return rows;
	}

	/**
	 * The plan PostgreSQL (16 and later) makes for a statement when it plans it once for any
	 * parameters, as it does for a prepared statement it reuses ({@code EXPLAIN (GENERIC_PLAN)}).
	 * Nothing runs.
	 * @param database a PostgreSQL database
	 * @param sql the statement with {@code ?} parameters, as the library prepares it
	 * @return the plan's text
	 * @throws SQLException if the database refuses
	 */
	public static String genericPlan(TestDatabase database, String sql) throws SQLException {
		return genericPlan(database, sql, new String[0]);
	}

	/**
	 * Like {@link #genericPlan(TestDatabase, String)}, in a transaction that first runs the given
	 * settings (e.g. {@code SET LOCAL ...}, as the library's own transaction does); rolled back.
	 * @param database a PostgreSQL database
	 * @param sql the statement with {@code ?} parameters, as the library prepares it
	 * @param settings statements to run first in the same transaction
	 * @return the plan's text
	 * @throws SQLException if the database refuses
	 */
	public static String genericPlan(TestDatabase database, String sql, String... settings) throws SQLException {
		StringBuilder numbered = new StringBuilder();
		int parameter = 0;
		for (char c : sql.toCharArray()) {
			if (c == '?') {
				numbered.append('$').append(++parameter);
			}
			else {
				numbered.append(c);
			}
		}
		// the simple query protocol sends the $n as they are, as psql would; the extended one wants values
		String url = database.url() + (database.url().contains("?") ? "&" : "?") + "preferQueryMode=simple";
		StringBuilder plan = new StringBuilder();
		try (Connection connection = java.sql.DriverManager.getConnection(url, database.username(), database.password());
				java.sql.Statement statement = connection.createStatement()) {
			connection.setAutoCommit(false);
			try {
				for (String setting : settings) {
					statement.execute(setting);
				}
				try (ResultSet result = statement.executeQuery("EXPLAIN (GENERIC_PLAN) " + numbered)) {
					while (result.next()) {
						plan.append(result.getString(1)).append('\n');
					}
				}
			}
			finally {
				connection.rollback();
			}
		}
		return plan.toString();
	}

	/**
	 * Asserts that the generic plan of each statement ({@link #genericPlan}) finds its rows through the
	 * primary key and never uses the given index.
	 * @param database a PostgreSQL database
	 * @param statements the statements, with {@code ?} parameters
	 * @param primaryKey the primary key index's name
	 * @param avoided an index the plans must not use
	 * @throws SQLException if the database refuses
	 */
	public static void assertGenericPlansGoByPrimaryKey(TestDatabase database, java.util.List<String> statements,
			String primaryKey, String avoided) throws SQLException {
		for (String statement : statements) {
			String plan = genericPlan(database, statement);
			org.assertj.core.api.Assertions.assertThat(plan)
				.as("generic plan of%n%s%n%s", statement, plan)
				.contains("Index Scan using " + primaryKey)
				.doesNotContain(avoided);
		}
	}

}
