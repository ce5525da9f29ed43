package dev.polling.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import javax.sql.DataSource;

/** What the database harnesses share: pools, the server version, plain statements, waiting for a count. */
final class BenchSql {

	private BenchSql() {
	}

	static HikariDataSource pool(String url, int size) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url);
		config.setMaximumPoolSize(size);
		return new HikariDataSource(config);
	}

	static String version(DataSource dataSource) throws Exception {
		try (Connection connection = dataSource.getConnection();
				Statement statement = connection.createStatement();
				ResultSet result = statement.executeQuery("SHOW server_version")) {
			result.next();
			return "PostgreSQL " + result.getString(1);
		}
	}

	/**
	 * Runs each statement on a connection of its own (auto-commit), e.g. {@code TRUNCATE} and
	 * {@code CHECKPOINT} between scenarios, so that each starts from the same state.
	 */
	static void execute(DataSource dataSource, String... sql) throws Exception {
		try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
			for (String each : sql) {
				statement.execute(each);
			}
		}
	}

	/** Polls the query (one number) every 20 ms until it reaches the expected value. */
	static void awaitCount(DataSource dataSource, String sql, long expected) throws Exception {
		try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
			while (true) {
				try (ResultSet result = statement.executeQuery(sql)) {
					result.next();
					if (result.getLong(1) >= expected) {
						return;
					}
				}
				Thread.sleep(20);
			}
		}
	}

}
