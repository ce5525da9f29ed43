package dev.polling.console.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;

import javax.sql.DataSource;

import dev.polling.console.ConsoleProblemSource;
import dev.polling.console.ConsoleProblems;
import dev.polling.jdbc.Schema;
import dev.polling.jdbc.TableNames;

/**
 * Whether polling's tables are at the schema version of the polling-jdbc this instance runs: behind
 * (someone restored an old database, or the tables are managed by hand and a migration was not
 * applied) or ahead (a newer polling version upgraded them during a rolling upgrade: this instance is
 * the old one). One read of the version table, at most once a minute. Nothing is reported when the
 * version table does not exist (tables managed without it) or cannot be read (the sections report
 * the database as unavailable).
 */
public final class SchemaVersionCheck implements ConsoleProblemSource {

	static final Duration EVERY = Duration.ofMinutes(1);

	private final DataSource dataSource;

	private final TableNames tables;

	private final int latest;

	private long readAt;

	private Integer recorded;

	private boolean read;

	/**
	 * Creates the check.
	 * @param dataSource the data source of polling's tables
	 * @param tables their names
	 */
	public SchemaVersionCheck(DataSource dataSource, TableNames tables) {
		this(dataSource, tables, Schema.latestVersion());
	}

	SchemaVersionCheck(DataSource dataSource, TableNames tables, int latest) {
		this.dataSource = dataSource;
		this.tables = tables;
		this.latest = latest;
	}

	@Override
	public List<ConsoleProblems.Problem> problems() {
		Integer version = recorded();
		if (version == null || version == this.latest) {
			return List.of();
		}
		String table = this.tables.schemaVersion();
		if (version < this.latest) {
			return List.of(new ConsoleProblems.Problem("error", "database", "schema-behind",
					"Polling's tables are at schema version " + version + " (" + table + "), behind version " + this.latest
							+ " of the polling-jdbc this instance runs",
					"Apply the missing migrations: restart with polling.jdbc.initialize-schema=always, or run them with your migration "
							+ "tool (docs/database.md); until then the queue, delivery and jobs may fail on missing columns."));
		}
		return List.of(new ConsoleProblems.Problem("warning", "database", "schema-ahead",
				"Polling's tables are at schema version " + version + " (" + table + "), newer than version " + this.latest
						+ " of the polling-jdbc this instance runs: a newer polling version upgraded them",
				"Finish the rolling upgrade: run the newer polling version on this instance too."));
	}

	private synchronized Integer recorded() {
		long now = System.nanoTime();
		if (!this.read || now - this.readAt >= EVERY.toNanos()) {
			this.recorded = readVersion();
			this.readAt = now;
			this.read = true;
		}
		return this.recorded;
	}

	private Integer readVersion() {
		try (Connection connection = this.dataSource.getConnection();
				PreparedStatement statement = connection.prepareStatement("SELECT MAX(version) FROM " + this.tables.schemaVersion());
				ResultSet result = statement.executeQuery()) {
			if (!result.next()) {
				return null;
			}
			int version = result.getInt(1);
			return result.wasNull() ? null : version;
		}
		catch (SQLException ex) {
			return null; // no version table, or the database is down (the sections say so)
		}
	}

}
