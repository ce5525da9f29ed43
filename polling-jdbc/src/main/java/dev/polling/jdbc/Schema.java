package dev.polling.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The schema scripts shipped in the jar, one per {@link Dialect} at
 * {@code dev/polling/jdbc/schema-<dialect>.sql}. Every statement is idempotent
 * ({@code CREATE ... IF NOT EXISTS}), so {@link #create} can run at every start of every instance.
 * Applications that manage their schema with Flyway or Liquibase copy the script instead.
 */
public final class Schema {

	private static final Logger logger = LoggerFactory.getLogger(Schema.class);

	private Schema() {
	}

	/**
	 * The script's statements with the table prefix applied, without comments and terminators.
	 * @param dialect the dialect
	 * @param tables the table names
	 * @return the statements in order
	 */
	public static List<String> statements(Dialect dialect, TableNames tables) {
		Objects.requireNonNull(dialect, "dialect must not be null");
		Objects.requireNonNull(tables, "tables must not be null");
		String script = tables.apply(read(dialect.schemaResource()));
		List<String> statements = new ArrayList<>();
		StringBuilder current = new StringBuilder();
		for (String line : script.split("\\R")) {
			String trimmed = line.strip();
			if (trimmed.isEmpty() || trimmed.startsWith("--")) {
				continue;
			}
			if (trimmed.endsWith(";")) {
				current.append(trimmed, 0, trimmed.length() - 1);
				statements.add(current.toString().strip());
				current.setLength(0);
			}
			else {
				current.append(trimmed).append('\n');
			}
		}
		if (!current.toString().isBlank()) {
			statements.add(current.toString().strip());
		}
		return List.copyOf(statements);
	}

	/**
	 * Creates the tables that do not exist yet, on a connection borrowed from the data source in
	 * auto-commit mode. Tolerates another instance creating them at the same time.
	 * @param dataSource the data source
	 * @param dialect the dialect, see {@link Dialect#detect(DataSource)}
	 * @param tables the table names
	 * @throws DataAccessFailure if a statement fails twice
	 */
	public static void create(DataSource dataSource, Dialect dialect, TableNames tables) {
		Objects.requireNonNull(dataSource, "dataSource must not be null");
		List<String> statements = statements(dialect, tables);
		try {
			execute(dataSource, statements);
		}
		catch (SQLException first) {
			// two instances starting at once may collide in the catalog (PostgreSQL's CREATE TABLE
			// IF NOT EXISTS is not race-free); the second attempt finds the objects in place
			logger.debug("Creating polling's schema failed once, retrying", first);
			try {
				execute(dataSource, statements);
			}
			catch (SQLException second) {
				second.addSuppressed(first);
				throw new DataAccessFailure("Could not create polling's tables with " + dialect.schemaResource(),
						second);
			}
		}
		logger.debug("Polling schema in place ({}, prefix '{}')", dialect.id(), tables.prefix());
	}

	private static void execute(DataSource dataSource, List<String> statements) throws SQLException {
		try (Connection connection = dataSource.getConnection()) {
			if (!connection.getAutoCommit()) {
				connection.setAutoCommit(true);
			}
			try (Statement statement = connection.createStatement()) {
				for (String sql : statements) {
					statement.execute(sql);
				}
			}
		}
	}

	private static String read(String resource) {
		ClassLoader loader = Schema.class.getClassLoader();
		try (InputStream in = loader.getResourceAsStream(resource)) {
			if (in == null) {
				throw new IllegalStateException("Schema script " + resource + " is missing from the class path");
			}
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not read schema script " + resource, ex);
		}
	}

}
