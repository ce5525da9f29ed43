package dev.polling.jdbc.internal;

import dev.polling.jdbc.Dialect;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * The retention purge of finished rows: deletes in batches, each in a short transaction of its
 * own, until a batch comes back short. On PostgreSQL rows another transaction holds are skipped, so
 * purges on several instances at once never wait for each other.
 */
public final class Purge {

	/** The default rows per batch. */
	public static final int DEFAULT_BATCH_SIZE = 1000;

	private Purge() {
	}

	/**
	 * Deletes the rows matching the condition in batches.
	 * @param dataSource where to borrow connections
	 * @param dialect the dialect
	 * @param table the table (with an {@code id} primary key)
	 * @param condition the rows to delete, with exactly one {@code ?}: the retention in milliseconds
	 * @param retention how long finished rows are kept, positive
	 * @param batchSize rows per batch, 1 to 100,000
	 * @return how many rows were deleted
	 */
	public static int run(DataSource dataSource, Dialect dialect, String table, String condition, Duration retention,
			int batchSize) {
		Objects.requireNonNull(retention, "retention must not be null");
		if (retention.isNegative() || retention.isZero()) {
			throw new IllegalArgumentException("retention must be positive but was " + retention
					+ ": how long finished rows are kept, e.g. 7d");
		}
		if (batchSize < 1 || batchSize > 100_000) {
			throw new IllegalArgumentException("batchSize must be between 1 and 100000 but was " + batchSize
					+ ": e.g. " + DEFAULT_BATCH_SIZE);
		}
		String sql = switch (dialect) {
			// ARRAY(...) runs the locking pick once, whatever the statistics (see LeasedRows)
			case POSTGRESQL -> "DELETE FROM " + table + " WHERE id = ANY(ARRAY(SELECT id FROM " + table + " WHERE " + condition
					+ " LIMIT " + batchSize + " FOR UPDATE SKIP LOCKED))";
			case MARIADB, H2 -> "DELETE FROM " + table + " WHERE " + condition + DialectSql.limit(dialect, String.valueOf(batchSize));
		};
		int total = 0;
		int deleted;
		do {
			deleted = Sql.inTransaction(dataSource, "purge finished rows of " + table, (connection) -> {
				try (PreparedStatement statement = connection.prepareStatement(sql)) {
					statement.setLong(1, retention.toMillis());
					return statement.executeUpdate();
				}
			});
			total += deleted;
		}
		while (deleted == batchSize);
		return total;
	}

}
