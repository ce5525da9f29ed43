package dev.polling.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * Polling's tables as versioned migrations shipped in the jar, one ordered set of scripts per
 * {@link Dialect} at {@code dev/polling/jdbc/migration/<dialect>/V<n>__<name>.sql} (named as Flyway
 * expects; {@code ${prefix}} is the table prefix). Version 1 is the schema of polling 0.1.0, every
 * later version what changed since. {@link #migrate(DataSource)} applies the missing ones and
 * records each in {@code <prefix>schema_version}; with a current schema it costs one read. Every
 * statement of every script is idempotent, so a database created before the version table existed
 * (0.1.0) is upgraded by running all of them, and a run cut off half-way can run again.
 */
public final class Schema {

	private static final List<Migration> MIGRATIONS = List.of(new Migration(1, "polling_0_1_0"),
			new Migration(2, "retries_retention_key_heads"), new Migration(3, "queue_without_open_index"),
			new Migration(4, "queue_dead_index"));

	private Schema() {
	}

	/**
	 * One version of the schema.
	 *
	 * @param version the version, from 1 on
	 * @param description the script's name after {@code V<n>__}
	 */
	public record Migration(int version, String description) {

		/**
		 * The class path resource of this version's script for a dialect.
		 * @param dialect the dialect
		 * @return e.g. {@code dev/polling/jdbc/migration/postgresql/V1__polling_0_1_0.sql}
		 */
		public String resource(Dialect dialect) {
			return dialect.migrationLocation() + "/V" + this.version + "__" + this.description + ".sql";
		}

	}

	/**
	 * What {@link #migrate} found and left.
	 *
	 * @param fromVersion the version found: 0 for no polling tables, or for the tables of 0.1.0
	 * without a version table (see {@link #baseline})
	 * @param toVersion the version now in place
	 * @param baseline whether polling's tables were found without a version table (a 0.1.0
	 * database) and upgraded
	 */
	public record Outcome(int fromVersion, int toVersion, boolean baseline) {

		/**
		 * Whether a script ran.
		 * @return {@code false} if the schema was current
		 */
		public boolean migrated() {
			return this.fromVersion != this.toVersion;
		}

	}

	/**
	 * The migrations this version of polling-jdbc knows, in order.
	 * @return the migrations
	 */
	public static List<Migration> migrations() {
		return MIGRATIONS;
	}

	/**
	 * The newest schema version this version of polling-jdbc knows.
	 * @return the version
	 */
	public static int latestVersion() {
		return MIGRATIONS.get(MIGRATIONS.size() - 1).version();
	}

	/**
	 * Brings polling's tables (default names) up to {@link #latestVersion()}, detecting the dialect.
	 * @param dataSource the data source; connections are borrowed and closed
	 * @return what was found and done
	 * @throws DataAccessFailure if the database fails
	 * @throws IllegalStateException if the database is not supported, or its schema is newer than
	 * this version of polling-jdbc knows
	 * @see #migrate(DataSource, Dialect, TableNames)
	 */
	public static Outcome migrate(DataSource dataSource) {
		return migrate(dataSource, TableNames.defaults());
	}

	/**
	 * Brings polling's tables up to {@link #latestVersion()}, detecting the dialect.
	 * @param dataSource the data source; connections are borrowed and closed
	 * @param tables the table names
	 * @return what was found and done
	 * @see #migrate(DataSource, Dialect, TableNames)
	 */
	public static Outcome migrate(DataSource dataSource, TableNames tables) {
		return migrate(dataSource, Dialect.detect(dataSource), tables);
	}

	/**
	 * Brings polling's tables up to {@link #latestVersion()}: reads the version recorded in
	 * {@code <prefix>schema_version} (one query, no lock beyond a read) and returns if it is
	 * current. Otherwise takes a lock that serialises migrators of all instances (PostgreSQL: an
	 * advisory lock; MariaDB: {@code GET_LOCK}; H2: a row lock in the version table), reads the
	 * version again and applies the missing scripts in order, each recorded when done (on
	 * PostgreSQL each script and its record in one transaction). Safe to call at every start of
	 * every instance.
	 * @param dataSource the data source; connections are borrowed and closed
	 * @param dialect the dialect, see {@link Dialect#detect(DataSource)}
	 * @param tables the table names
	 * @return what was found and done
	 * @throws DataAccessFailure if the database fails
	 * @throws IllegalStateException if the schema is newer than this version of polling-jdbc knows
	 */
	public static Outcome migrate(DataSource dataSource, Dialect dialect, TableNames tables) {
		Objects.requireNonNull(dataSource, "dataSource must not be null");
		Objects.requireNonNull(dialect, "dialect must not be null");
		Objects.requireNonNull(tables, "tables must not be null");
		return new SchemaMigrator(dataSource, dialect, tables).migrate();
	}

	/**
	 * Same as {@link #migrate(DataSource, Dialect, TableNames)}: the name of the create-on-start
	 * method this replaces.
	 * @param dataSource the data source
	 * @param dialect the dialect
	 * @param tables the table names
	 * @deprecated use {@link #migrate(DataSource, Dialect, TableNames)}
	 */
	@Deprecated(since = "0.2.0")
	public static void create(DataSource dataSource, Dialect dialect, TableNames tables) {
		migrate(dataSource, dialect, tables);
	}

	/**
	 * A migration's statements with the table prefix applied, without comments and terminators.
	 * @param dialect the dialect
	 * @param migration the migration
	 * @param tables the table names
	 * @return the statements in order
	 */
	public static List<String> statements(Dialect dialect, Migration migration, TableNames tables) {
		Objects.requireNonNull(dialect, "dialect must not be null");
		Objects.requireNonNull(migration, "migration must not be null");
		Objects.requireNonNull(tables, "tables must not be null");
		String script = tables.apply(read(migration.resource(dialect)));
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
