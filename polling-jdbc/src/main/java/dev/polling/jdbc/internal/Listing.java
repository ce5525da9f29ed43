package dev.polling.jdbc.internal;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import dev.polling.jdbc.Dialect;

/**
 * The operator's listings of one table (work queue, delivery guard, jobs): a page of the rows in a
 * state, optionally filtered by two name columns (queue and business key, destination and
 * idempotency key, ...), after an id, by id ascending (keyset paging, no offset), and one row by its
 * id. Each read runs in a short transaction of its own.
 *
 * @param <E> the entry a row is read as
 * @param dataSource the data source
 * @param dialect the dialect
 * @param table the table
 * @param columns the columns the reader reads, in its order
 * @param rows what the rows are, for error messages, e.g. "messages"
 * @param reader reads the current row of a result
 */
public record Listing<E>(DataSource dataSource, Dialect dialect, String table, String columns, String rows,
		Reader<E> reader) {

	/**
	 * One page of the rows in a state.
	 * @param page the state, filters and page
	 * @return the page, possibly empty
	 */
	public List<E> page(Page page) {
		return query(sql(page), (statement) -> {
			int index = 1;
			statement.setString(index++, page.state());
			if (page.first() != null) {
				statement.setString(index++, page.first());
			}
			if (page.second() != null) {
				statement.setString(index++, page.second());
			}
			statement.setLong(index++, page.afterId());
			statement.setInt(index, page.limit());
		});
	}

	/**
	 * The SQL of {@link #page(Page)}, for plan checks.
	 * @param page the state, filters and page
	 * @return the SQL
	 */
	public String sql(Page page) {
		return "SELECT " + this.columns + " FROM " + this.table + " WHERE state = ?"
				+ ((page.first() != null) ? " AND " + page.firstColumn() + " = ?" : "")
				+ ((page.second() != null) ? " AND " + page.secondColumn() + " = ?" : "") + " AND id > ? ORDER BY id"
				+ DialectSql.limit(this.dialect, "?");
	}

	/**
	 * One row.
	 * @param id the id
	 * @return the row, if it exists
	 */
	public Optional<E> entry(long id) {
		return query("SELECT " + this.columns + " FROM " + this.table + " WHERE id = ?",
				(statement) -> statement.setLong(1, id))
			.stream()
			.findFirst();
	}

	private List<E> query(String sql, Binder binder) {
		return Sql.inTransaction(this.dataSource, "read " + this.rows + " of " + this.table, (connection) -> {
			List<E> entries = new ArrayList<>();
			try (PreparedStatement statement = connection.prepareStatement(sql)) {
				binder.bind(statement);
				try (ResultSet result = statement.executeQuery()) {
					while (result.next()) {
						entries.add(this.reader.read(result));
					}
				}
			}
			return entries;
		});
	}

	/**
	 * A page of a listing: the rows in a state, of the given names in two columns where they are not
	 * null, with an id greater than {@code afterId}, at most {@code limit}.
	 *
	 * @param state the state
	 * @param firstColumn the first filter's column
	 * @param first its value, or {@code null} for any
	 * @param secondColumn the second filter's column
	 * @param second its value, or {@code null} for any
	 * @param afterId only rows with a greater id
	 * @param limit the most rows
	 */
	public record Page(String state, String firstColumn, @Nullable String first, String secondColumn,
			@Nullable String second, long afterId, int limit) {
	}

	/**
	 * Reads a row.
	 *
	 * @param <E> the entry
	 */
	@FunctionalInterface
	public interface Reader<E> {

		/**
		 * Reads the current row.
		 * @param result the result, on a row
		 * @return the entry
		 * @throws SQLException if reading fails
		 */
		E read(ResultSet result) throws SQLException;

	}

	@FunctionalInterface
	private interface Binder {

		void bind(PreparedStatement statement) throws SQLException;

	}

}
