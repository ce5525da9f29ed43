package dev.polling.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Objects;

/**
 * The database's clock, for every timestamp and age the database parts store or compare, so that
 * the clocks of the application instances never matter. Timestamps are written with
 * {@link #now()} inside SQL; ages are compared against {@link #nowMinusMillis()}.
 * <p>
 * PostgreSQL and H2 store {@code TIMESTAMP WITH TIME ZONE} from {@code CURRENT_TIMESTAMP} (on
 * PostgreSQL the start of the current transaction). MariaDB/MySQL store {@code DATETIME(6)} in UTC
 * from {@code UTC_TIMESTAMP(6)}, independent of the session time zone.
 */
public final class DatabaseTime {

	private final Dialect dialect;

	/**
	 * Creates the helper for a dialect.
	 * @param dialect the dialect
	 */
	public DatabaseTime(Dialect dialect) {
		this.dialect = Objects.requireNonNull(dialect, "dialect must not be null");
	}

	/**
	 * SQL expression for the current database time, in the type of polling's timestamp columns.
	 * @return e.g. {@code CURRENT_TIMESTAMP}
	 */
	public String now() {
		return switch (this.dialect) {
			case POSTGRESQL, H2 -> "CURRENT_TIMESTAMP";
			case MARIADB -> "UTC_TIMESTAMP(6)";
		};
	}

	/**
	 * SQL expression for the current database time minus a number of milliseconds given as one
	 * {@code long} bind parameter.
	 * @return an expression containing exactly one {@code ?}
	 */
	public String nowMinusMillis() {
		return switch (this.dialect) {
			case POSTGRESQL -> "(CURRENT_TIMESTAMP - CAST(? AS BIGINT) * INTERVAL '1 millisecond')";
			case MARIADB -> "(UTC_TIMESTAMP(6) - INTERVAL (CAST(? AS SIGNED) * 1000) MICROSECOND)";
			case H2 -> "DATEADD(MILLISECOND, -CAST(? AS BIGINT), CURRENT_TIMESTAMP)";
		};
	}

	/**
	 * SQL expression for the current database time plus a number of milliseconds given as one
	 * {@code long} bind parameter (lease ends, retry times).
	 * @return an expression containing exactly one {@code ?}
	 */
	public String nowPlusMillis() {
		return switch (this.dialect) {
			case POSTGRESQL -> "(CURRENT_TIMESTAMP + CAST(? AS BIGINT) * INTERVAL '1 millisecond')";
			case MARIADB -> "(UTC_TIMESTAMP(6) + INTERVAL (CAST(? AS SIGNED) * 1000) MICROSECOND)";
			case H2 -> "DATEADD(MILLISECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP)";
		};
	}

	/**
	 * Reads the current database time.
	 * @param connection an open connection
	 * @return the database's current time
	 * @throws DataAccessFailure if the query fails
	 */
	public Instant currentTime(Connection connection) {
		try (PreparedStatement statement = connection.prepareStatement("SELECT " + now());
				ResultSet result = statement.executeQuery()) {
			result.next();
			return read(result, 1);
		}
		catch (SQLException ex) {
			throw new DataAccessFailure("Could not read the database time", ex);
		}
	}

	/**
	 * Reads a timestamp column written by {@link #now()} as an instant.
	 * @param result the result set on the row
	 * @param column the column index
	 * @return the instant
	 * @throws SQLException if the column cannot be read
	 */
	public Instant read(ResultSet result, int column) throws SQLException {
		if (this.dialect == Dialect.MARIADB) {
			return result.getObject(column, LocalDateTime.class).toInstant(ZoneOffset.UTC);
		}
		return result.getObject(column, OffsetDateTime.class).toInstant();
	}

}
