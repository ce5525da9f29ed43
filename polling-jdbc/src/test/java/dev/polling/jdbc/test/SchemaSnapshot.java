package dev.polling.jdbc.test;

import dev.polling.jdbc.Dialect;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * What a database's polling tables look like, read from the JDBC metadata: every column (type,
 * size, nullability, default) and every index (columns in order, uniqueness), plus on PostgreSQL
 * each index's definition (partial indexes' predicates). Two databases whose snapshots are equal
 * have the same tables for polling's purposes.
 */
public final class SchemaSnapshot {

	private static final Pattern H2_GENERATED_SUFFIX = Pattern.compile("(primary_key|_index)_[0-9a-z]+$");

	private SchemaSnapshot() {
	}

	/**
	 * The snapshot of the tables whose lower-case names start with {@code polling_}, except those
	 * the filter excludes.
	 * @param database the database
	 * @param exclude tables to leave out (lower-case names), e.g. a migration tool's history table
	 * @return sorted lines, one per column, index column and index definition
	 */
	public static List<String> of(TestDatabase database, Predicate<String> exclude) {
		try (Connection connection = database.connect()) {
			DatabaseMetaData metaData = connection.getMetaData();
			String catalog = connection.getCatalog();
			TreeSet<String> lines = new TreeSet<>();
			for (String table : tables(metaData, catalog)) {
				String name = table.toLowerCase(Locale.ROOT);
				if (!name.startsWith("polling_") || exclude.test(name)) {
					continue;
				}
				columns(metaData, catalog, table, name, lines);
				indexes(metaData, catalog, table, name, lines, database.dialect() == Dialect.H2);
			}
			if (database.dialect() == Dialect.POSTGRESQL) {
				indexDefinitions(connection, exclude, lines);
			}
			return List.copyOf(lines);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not read the schema of " + database, ex);
		}
	}

	private static List<String> tables(DatabaseMetaData metaData, String catalog) throws SQLException {
		List<String> tables = new ArrayList<>();
		try (ResultSet result = metaData.getTables(catalog, null, "%", new String[] { "TABLE" })) {
			while (result.next()) {
				tables.add(result.getString("TABLE_NAME"));
			}
		}
		return tables;
	}

	private static void columns(DatabaseMetaData metaData, String catalog, String table, String name,
			TreeSet<String> lines) throws SQLException {
		try (ResultSet result = metaData.getColumns(catalog, null, table, "%")) {
			while (result.next()) {
				lines.add(name + " column " + result.getString("COLUMN_NAME").toLowerCase(Locale.ROOT) + " "
						+ result.getString("TYPE_NAME") + "(" + result.getInt("COLUMN_SIZE") + ") nullable="
						+ result.getString("IS_NULLABLE") + " default=" + result.getString("COLUMN_DEF") + " position="
						+ result.getInt("ORDINAL_POSITION"));
			}
		}
	}

	private static void indexes(DatabaseMetaData metaData, String catalog, String table, String name,
			TreeSet<String> lines, boolean h2) throws SQLException {
		try (ResultSet result = metaData.getIndexInfo(catalog, null, table, false, false)) {
			while (result.next()) {
				String index = result.getString("INDEX_NAME");
				if (index == null) {
					continue;
				}
				String indexName = index.toLowerCase(Locale.ROOT);
				if (h2) {
					// H2 numbers the indexes of constraints across the database: PRIMARY_KEY_3, ..._UNIQUE_INDEX_A
					indexName = H2_GENERATED_SUFFIX.matcher(indexName).replaceFirst("$1_#");
				}
				lines.add(name + " index " + indexName + " unique=" + !result.getBoolean("NON_UNIQUE")
						+ " " + result.getInt("ORDINAL_POSITION") + ":"
						+ String.valueOf(result.getString("COLUMN_NAME")).toLowerCase(Locale.ROOT));
			}
		}
	}

	private static void indexDefinitions(Connection connection, Predicate<String> exclude, TreeSet<String> lines)
			throws SQLException {
		try (Statement statement = connection.createStatement();
				ResultSet result = statement.executeQuery(
						"SELECT tablename, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename LIKE 'polling\\_%'")) {
			while (result.next()) {
				if (!exclude.test(result.getString(1))) {
					lines.add(result.getString(1) + " definition " + result.getString(2));
				}
			}
		}
	}

}
