package dev.polling.jdbc;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;
import java.util.stream.Collectors;
import javax.sql.DataSource;

/**
 * The SQL dialects the database parts support. Each dialect has its own versioned migrations in the
 * jar ({@link #migrationLocation()}) and its own way of doing the few things plain SQL
 * cannot say portably (an insert that tolerates a duplicate, database time arithmetic).
 */
public enum Dialect {

	/** PostgreSQL 12 or newer. */
	POSTGRESQL("postgresql"),

	/**
	 * MariaDB 10.6 or newer. Not MySQL: MySQL 8 has no {@code FOR UPDATE WAIT n}, which the JDBC
	 * coordinator uses, and no MySQL server runs in the tests, so MySQL is refused.
	 */
	MARIADB("mariadb"),

	/** H2 2.x in its default (regular) mode. */
	H2("h2");

	private final String id;

	Dialect(String id) {
		this.id = id;
	}

	/**
	 * The short, lower-case name used in resource names, e.g. {@code postgresql}.
	 * @return the id
	 */
	public String id() {
		return this.id;
	}

	/**
	 * The class path folder of this dialect's versioned migrations, for Flyway a location
	 * {@code classpath:dev/polling/jdbc/migration/<id>}.
	 * @return e.g. {@code dev/polling/jdbc/migration/postgresql}
	 */
	public String migrationLocation() {
		return "dev/polling/jdbc/migration/" + this.id;
	}

	/**
	 * Detects the dialect from the database product name of a connection of the data source.
	 * @param dataSource the data source; one connection is borrowed and closed
	 * @return the dialect
	 * @throws IllegalStateException if the database is not supported
	 * @throws DataAccessFailure if no connection can be obtained
	 */
	public static Dialect detect(DataSource dataSource) {
		Objects.requireNonNull(dataSource, "dataSource must not be null");
		try (Connection connection = dataSource.getConnection()) {
			return detect(connection);
		}
		catch (SQLException ex) {
			throw new DataAccessFailure("Could not detect the SQL dialect: obtaining a connection failed", ex);
		}
	}

	/**
	 * Detects the dialect from the database product name of an open connection.
	 * @param connection an open connection; it is not closed
	 * @return the dialect
	 * @throws IllegalStateException if the database is not supported
	 * @throws DataAccessFailure if the metadata cannot be read
	 */
	public static Dialect detect(Connection connection) {
		Objects.requireNonNull(connection, "connection must not be null");
		String product;
		try {
			DatabaseMetaData metaData = connection.getMetaData();
			product = metaData.getDatabaseProductName();
			String version = String.valueOf(metaData.getDatabaseProductVersion());
			if (version.toLowerCase(Locale.ROOT).contains("mariadb")) {
				product = "MariaDB"; // MySQL's driver against a MariaDB server names the product MySQL
			}
		}
		catch (SQLException ex) {
			throw new DataAccessFailure("Could not detect the SQL dialect: reading the database metadata failed", ex);
		}
		return fromProductName(product);
	}

	/**
	 * Maps a JDBC database product name to a dialect.
	 * @param productName as returned by {@link DatabaseMetaData#getDatabaseProductName()}
	 * @return the dialect
	 * @throws IllegalStateException if the product is not supported
	 */
	public static Dialect fromProductName(String productName) {
		String name = String.valueOf(productName).toLowerCase(Locale.ROOT);
		if (name.contains("postgres")) {
			return POSTGRESQL;
		}
		if (name.contains("mariadb")) {
			return MARIADB;
		}
		if (name.contains("mysql")) {
			throw new IllegalStateException("Database '" + productName + "' is not supported by polling's JDBC parts: MySQL has no "
					+ "'SELECT ... FOR UPDATE WAIT n', which the database coordination relies on, and polling is not tested on "
					+ "MySQL. Use PostgreSQL 12+, MariaDB 10.6+ or H2 2.x, or remove dev.polling:polling-jdbc from the "
					+ "application and coordinate over JMX");
		}
		if (name.equals("h2")) {
			return H2;
		}
		throw new IllegalStateException("Database '" + productName + "' is not supported by polling's JDBC parts; "
				+ "supported are PostgreSQL 12+, MariaDB 10.6+ and H2 2.x ("
				+ Arrays.stream(values()).map(Dialect::id).collect(Collectors.joining(", ")) + ")");
	}

	/**
	 * Whether a statement failed on a unique or primary key (PostgreSQL and H2 SQL state 23505,
	 * MariaDB errors 1062 and 1586).
	 * @param ex the failure
	 * @return whether it is a duplicate key
	 */
	public static boolean isDuplicateKey(java.sql.SQLException ex) {
		return "23505".equals(ex.getSQLState()) || ex.getErrorCode() == 1062 || ex.getErrorCode() == 1586;
	}

}
