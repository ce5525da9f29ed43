package dev.polling.benchmarks;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import javax.sql.DataSource;

/**
 * Server time per statement from {@code pg_stat_statements}, where the server has it (the
 * embedded binaries do not; a server started with {@code shared_preload_libraries=pg_stat_statements}
 * and {@code pg_stat_statements.track_planning=on}, given to a harness as
 * {@code -Dbench.postgres.url=...}, does): planning and execution time per processed message of
 * each statement, to see where a path spends the database's CPU.
 */
final class StatementProfile {

	private StatementProfile() {
	}

	/** Whether the server has the extension installed in the database. */
	static boolean available(DataSource dataSource) {
		try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
				ResultSet result = statement.executeQuery("SELECT COUNT(*) FROM pg_extension WHERE extname = 'pg_stat_statements'")) {
			result.next();
			return result.getInt(1) == 1;
		}
		catch (SQLException ex) {
			return false;
		}
	}

	static void reset(DataSource dataSource) throws SQLException {
		try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
			statement.execute("SELECT pg_stat_statements_reset()");
		}
	}

	/** Prints the statements that took the most server time, per message of the run. */
	static void print(DataSource dataSource, int messages) throws SQLException {
		try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
				ResultSet result = statement.executeQuery("SELECT calls, total_plan_time, total_exec_time, rows, "
						+ "regexp_replace(query, '\\s+', ' ', 'g') FROM pg_stat_statements "
						+ "WHERE query NOT LIKE '%pg_stat_statements%' ORDER BY total_plan_time + total_exec_time DESC LIMIT 10")) {
			double total = 0;
			StringBuilder lines = new StringBuilder();
			while (result.next()) {
				double plan = result.getDouble(2) * 1000 / messages;
				double exec = result.getDouble(3) * 1000 / messages;
				total += plan + exec;
				String query = result.getString(5);
				lines.append(String.format(Locale.ROOT, "    %8d calls %7.1f µs plan + %7.1f µs exec per message  %s%n",
						result.getLong(1), plan, exec, query.substring(0, Math.min(150, query.length()))));
			}
			System.out.printf(Locale.ROOT, "  top statements, %.1f µs server time per message:%n%s", total, lines);
		}
	}

}
