package dev.polling.jdbc.test;

import dev.polling.jdbc.Dialect;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * One fresh, empty database on a real server, made by {@link TestDatabases}.
 *
 * @param name display name, e.g. {@code PostgreSQL 17 (embedded)}
 * @param dialect the dialect
 * @param url the JDBC URL
 * @param username the user
 * @param password the password
 */
public record TestDatabase(String name, Dialect dialect, String url, String username, String password) {

	/**
	 * A new, non-pooling data source: every {@code getConnection()} opens a physical connection. Two
	 * calls give two independent data sources, as two application instances would have.
	 * @return the data source
	 */
	public DataSource newDataSource() {
		return new SimpleDataSource(this.url, this.username, this.password);
	}

	/**
	 * Opens a connection.
	 * @return a new connection in auto-commit mode
	 * @throws SQLException if connecting fails
	 */
	public Connection connect() throws SQLException {
		return DriverManager.getConnection(this.url, this.username, this.password);
	}

	/**
	 * Runs statements in auto-commit mode.
	 * @param sql the statements
	 */
	public void execute(String... sql) {
		try (Connection connection = connect(); Statement statement = connection.createStatement()) {
			for (String each : sql) {
				statement.execute(each);
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Failed on " + this.name + ": " + String.join("; ", sql), ex);
		}
	}

	/**
	 * Runs a query that answers one number.
	 * @param sql the query
	 * @return the number in the first column of the first row
	 */
	public long queryForLong(String sql) {
		try (Connection connection = connect();
				Statement statement = connection.createStatement();
				var result = statement.executeQuery(sql)) {
			result.next();
			return result.getLong(1);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Failed on " + this.name + ": " + sql, ex);
		}
	}

	/**
	 * Runs a query that answers one text.
	 * @param sql the query
	 * @return the text in the first column of the first row, or null without a row
	 */
	public String queryForString(String sql) {
		try (Connection connection = connect();
				Statement statement = connection.createStatement();
				var result = statement.executeQuery(sql)) {
			return result.next() ? result.getString(1) : null;
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Failed on " + this.name + ": " + sql, ex);
		}
	}

	@Override
	public String toString() {
		return this.name + " " + this.url;
	}

	private static final class SimpleDataSource extends PlainDataSource {

		private final String url;

		private final String username;

		private final String password;

		SimpleDataSource(String url, String username, String password) {
			this.url = Objects.requireNonNull(url);
			this.username = username;
			this.password = password;
		}

		@Override
		public Connection getConnection() throws SQLException {
			return DriverManager.getConnection(this.url, this.username, this.password);
		}

		@Override
		public Connection getConnection(String user, String pass) throws SQLException {
			return DriverManager.getConnection(this.url, user, pass);
		}

		@Override
		public String toString() {
			return "SimpleDataSource(" + this.url + ")";
		}

	}

}
