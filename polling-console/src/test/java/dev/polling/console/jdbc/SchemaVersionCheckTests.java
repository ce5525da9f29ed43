package dev.polling.console.jdbc;

import java.sql.Connection;
import java.sql.Statement;

import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

import dev.polling.console.ConsoleProblems;
import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.Schema;
import dev.polling.jdbc.TableNames;

import static org.assertj.core.api.Assertions.assertThat;

/** The schema version problem on a real (H2) database: none when current, an error when behind, a warning when ahead, none without a version table. */
class SchemaVersionCheckTests {

	private final TableNames tables = TableNames.defaults();

	@Test
	void currentTablesAreNoProblemAndTablesBehindOrAheadAre() throws Exception {
		JdbcDataSource dataSource = h2("schema-current");
		Schema.migrate(dataSource, Dialect.H2, this.tables);
		int latest = Schema.latestVersion();
		assertThat(new SchemaVersionCheck(dataSource, this.tables).problems()).isEmpty();

		// this instance's library knows one version more than the tables have: behind
		assertThat(new SchemaVersionCheck(dataSource, this.tables, latest + 1).problems()).singleElement().satisfies((p) -> {
			assertThat(p.severity()).isEqualTo("error");
			assertThat(p.code()).isEqualTo("schema-behind");
			assertThat(p.title()).isEqualTo("Polling's tables are at schema version " + latest + " (" + this.tables.schemaVersion()
					+ "), behind version " + (latest + 1) + " of the polling-jdbc this instance runs");
			assertThat(p.fix()).contains("polling.jdbc.initialize-schema=always");
		});

		// a newer polling version recorded a newer version: this instance is the old one
		try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
			statement.executeUpdate("UPDATE " + this.tables.schemaVersion() + " SET version = " + (latest + 1) + " WHERE version = " + latest);
		}
		assertThat(new SchemaVersionCheck(dataSource, this.tables).problems()).extracting(ConsoleProblems.Problem::code)
			.containsExactly("schema-ahead");
	}

	@Test
	void withoutAVersionTableNothingIsClaimed() {
		assertThat(new SchemaVersionCheck(h2("schema-none"), this.tables).problems()).isEmpty();
	}

	private static JdbcDataSource h2(String name) {
		JdbcDataSource dataSource = new JdbcDataSource();
		dataSource.setURL("jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1");
		dataSource.setUser("sa");
		return dataSource;
	}

}
