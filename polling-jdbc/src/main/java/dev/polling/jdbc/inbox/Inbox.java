package dev.polling.jdbc.inbox;

import dev.polling.jdbc.internal.DialectSql;
import dev.polling.jdbc.internal.Sql;
import dev.polling.jdbc.ConnectionProvider;
import dev.polling.jdbc.DataAccessFailure;
import dev.polling.jdbc.DatabaseTime;
import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.TableNames;
import dev.polling.jdbc.builder.PartBuilder;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransactionRollbackException;
import java.time.Duration;
import java.util.Objects;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Duplicate-proof receipt of fetched messages: {@link #receive} records a message by its source
 * and its key in that source under a unique constraint, in the caller's transaction, and answers
 * {@link Receipt#NEW} or {@link Receipt#DUPLICATE}. This is the second line of defence behind the
 * polling coordination: even when two instances fetch the same message, only one transaction can
 * record it, and if the work the message causes rolls back, the record rolls back with it.
 * <p>
 * {@code receive} never aborts the caller's transaction, whatever the outcome: on PostgreSQL it
 * uses {@code INSERT ... ON CONFLICT (source, external_key) DO NOTHING} (a caught unique violation would abort the whole
 * transaction there); on MariaDB/MySQL (InnoDB) and H2 it inserts and maps the unique violation to
 * DUPLICATE, which rolls back only that statement. A receipt racing with an uncommitted receipt of
 * the same key in another transaction waits for that transaction and then answers accordingly.
 * The database may still end a waiting transaction by its own rules, as for any insert: on
 * InnoDB, when the first transaction rolls back while two others wait for the same key, one of
 * them can be chosen as deadlock victim; under SERIALIZABLE isolation PostgreSQL can raise a
 * serialization failure. Both surface as {@link DataAccessFailure} caused by a
 * {@link SQLTransactionRollbackException}; retry the whole transaction.
 * <p>
 * Keys: {@code source} has at most {@value #MAX_SOURCE_LENGTH} and {@code externalKey} at most
 * {@value #MAX_KEY_LENGTH} characters (counted as {@link String#length()}); neither may be blank,
 * start or end with whitespace (databases disagree on trailing spaces) or contain control
 * characters. Keys compare exactly (case-sensitive). {@link InboxKeys} makes valid keys from
 * Message-IDs and content.
 * <p>
 * Thread-safe; one instance per data source and table prefix is enough.
 */
public final class Inbox {

	/** Maximum length of {@code source}, in {@code char}s. */
	public static final int MAX_SOURCE_LENGTH = 100;

	/** Maximum length of {@code externalKey}, in {@code char}s. */
	public static final int MAX_KEY_LENGTH = 255;

	/** Default number of rows {@link #purge} deletes per statement. */
	public static final int DEFAULT_PURGE_BATCH_SIZE = 1000;

	private static final Logger logger = LoggerFactory.getLogger(Inbox.class);

	private static final int PURGE_ATTEMPTS = 5;

	private final ConnectionProvider connections;

	private final Dialect dialect;

	private final TableNames tables;

	private final InboxListener listener;

	private final int purgeBatchSize;

	private final String insertSql;

	private final String containsSql;

	private final String purgeSql;

	private Inbox(Builder builder, Dialect dialect, TableNames tables) {
		this.connections = builder.connections;
		this.dialect = dialect;
		this.tables = tables;
		this.listener = builder.listener;
		this.purgeBatchSize = builder.purgeBatchSize;
		String table = this.tables.inbox();
		DatabaseTime time = new DatabaseTime(dialect);
		String insert = "INSERT INTO " + table + " (source, external_key, received_at) VALUES (?, ?, " + time.now()
				+ ")";
		this.insertSql = (dialect == Dialect.POSTGRESQL) ? insert + " ON CONFLICT (source, external_key) DO NOTHING"
				: insert;
		this.containsSql = "SELECT 1 FROM " + table + " WHERE source = ? AND external_key = ?";
		this.purgeSql = switch (dialect) {
			// ARRAY(...) runs the locking pick once, whatever the statistics (see LeasedRows)
			case POSTGRESQL -> "DELETE FROM " + table + " WHERE ctid = ANY(ARRAY(SELECT ctid FROM " + table
					+ " WHERE received_at < " + time.nowMinusMillis() + " LIMIT ? FOR UPDATE SKIP LOCKED))";
			case MARIADB, H2 -> "DELETE FROM " + table + " WHERE received_at < " + time.nowMinusMillis()
					+ DialectSql.limit(dialect, "?");
		};
	}

	/**
	 * Starts building an inbox on a data source; {@link #receive(String, String)} then borrows a
	 * connection per call (see {@link ConnectionProvider#of(DataSource)}).
	 * @param dataSource the data source
	 * @return the builder
	 */
	public static Builder builder(DataSource dataSource) {
		return new Builder(ConnectionProvider.of(dataSource));
	}

	/**
	 * Starts building an inbox on a connection provider, e.g. one bound to a transaction manager.
	 * @param connections the provider
	 * @return the builder
	 */
	public static Builder builder(ConnectionProvider connections) {
		return new Builder(Objects.requireNonNull(connections, "connections must not be null"));
	}

	/**
	 * Records the message in the transaction of the provider's connection (with the starter: the
	 * current Spring transaction) and answers whether it is new. Without a surrounding transaction
	 * the record commits at once, independent of the work the message causes.
	 * @param source where the message comes from, e.g. a mailbox name
	 * @param externalKey the message's key in that source, e.g. {@link InboxKeys#messageId}
	 * @return {@link Receipt#NEW} if this call recorded the key, {@link Receipt#DUPLICATE} if it was
	 * recorded before
	 * @throws IllegalArgumentException if source or key is invalid (see the class description)
	 * @throws DataAccessFailure if the database fails
	 */
	public Receipt receive(String source, String externalKey) {
		validate(source, externalKey);
		Connection connection = obtain();
		try {
			return insert(connection, source, externalKey);
		}
		finally {
			release(connection);
		}
	}

	/**
	 * Records the message in the transaction of the given connection and answers whether it is new.
	 * The connection stays open and its transaction usable whatever the answer.
	 * @param connection the connection whose transaction the record joins
	 * @param source where the message comes from, e.g. a mailbox name
	 * @param externalKey the message's key in that source, e.g. {@link InboxKeys#messageId}
	 * @return {@link Receipt#NEW} if this call recorded the key, {@link Receipt#DUPLICATE} if it was
	 * recorded before
	 * @throws IllegalArgumentException if source or key is invalid (see the class description)
	 * @throws DataAccessFailure if the database fails
	 */
	public Receipt receive(Connection connection, String source, String externalKey) {
		Objects.requireNonNull(connection, "connection must not be null");
		validate(source, externalKey);
		return insert(connection, source, externalKey);
	}

	/**
	 * Whether the key is recorded, as seen by the provider's connection.
	 * @param source the source
	 * @param externalKey the key
	 * @return {@code true} if recorded
	 */
	public boolean contains(String source, String externalKey) {
		validate(source, externalKey);
		Connection connection = obtain();
		try (PreparedStatement statement = connection.prepareStatement(this.containsSql)) {
			statement.setString(1, source);
			statement.setString(2, externalKey);
			try (ResultSet result = statement.executeQuery()) {
				return result.next();
			}
		}
		catch (SQLException ex) {
			throw new DataAccessFailure("Could not look up inbox key in " + this.tables.inbox(), ex);
		}
		finally {
			release(connection);
		}
	}

	/**
	 * Deletes entries received longer ago than the retention (in database time), in batches of the
	 * configured size until none is left. Safe to run on several instances at once: on PostgreSQL
	 * concurrent purges skip each other's rows, elsewhere they wait for each other, and a batch
	 * chosen as deadlock victim is retried. Call it outside a transaction: with an auto-commit
	 * connection every batch commits on its own. Keep the retention far longer than any source can
	 * deliver the same message again (a purged key is NEW again).
	 * @param retention minimum age of the entries to delete, positive
	 * @return how many entries this call deleted
	 * @throws DataAccessFailure if the database fails
	 */
	public int purge(Duration retention) {
		Objects.requireNonNull(retention, "retention must not be null");
		if (retention.isNegative() || retention.isZero()) {
			throw new IllegalArgumentException("retention must be positive but was " + retention
					+ ": pass how long received keys must be remembered, e.g. Duration.ofDays(30)");
		}
		long millis = retention.toMillis();
		int total = 0;
		int deleted;
		do {
			deleted = purgeBatch(millis);
			total += deleted;
		}
		while (deleted >= this.purgeBatchSize);
		if (total > 0) {
			logger.debug("Purged {} entries older than {} from {}", total, retention, this.tables.inbox());
		}
		notifyPurge(total);
		return total;
	}

	/**
	 * The dialect this inbox speaks.
	 * @return the dialect
	 */
	public Dialect dialect() {
		return this.dialect;
	}

	/**
	 * The table names this inbox uses.
	 * @return the names
	 */
	public TableNames tables() {
		return this.tables;
	}

	private int purgeBatch(long millis) {
		SQLException last = null;
		for (int attempt = 1; attempt <= PURGE_ATTEMPTS; attempt++) {
			Connection connection = obtain();
			try (PreparedStatement statement = connection.prepareStatement(this.purgeSql)) {
				statement.setLong(1, millis);
				statement.setInt(2, this.purgeBatchSize);
				return statement.executeUpdate();
			}
			catch (SQLTransactionRollbackException ex) {
				// deadlock or serialization failure with a concurrent purge or receipt: the statement
				// is rolled back, trying again is safe
				last = ex;
				logger.debug("Inbox purge batch rolled back (attempt {} of {}), retrying", attempt, PURGE_ATTEMPTS, ex);
			}
			catch (SQLException ex) {
				throw new DataAccessFailure("Could not purge " + this.tables.inbox(), ex);
			}
			finally {
				release(connection);
			}
		}
		throw new DataAccessFailure("Could not purge " + this.tables.inbox() + " after " + PURGE_ATTEMPTS
				+ " attempts", Objects.requireNonNull(last));
	}

	private Receipt insert(Connection connection, String source, String externalKey) {
		Receipt receipt;
		try (PreparedStatement statement = connection.prepareStatement(this.insertSql)) {
			statement.setString(1, source);
			statement.setString(2, externalKey);
			receipt = (statement.executeUpdate() == 1) ? Receipt.NEW : Receipt.DUPLICATE;
		}
		catch (SQLException ex) {
			if (!DialectSql.isDuplicateKeyKeepingTransaction(this.dialect, ex)) {
				throw new DataAccessFailure("Could not record inbox key (source '" + source + "', key length "
						+ externalKey.length() + ") in " + this.tables.inbox(), ex);
			}
			// MariaDB/InnoDB and H2 roll back only the failed statement: the transaction stays usable
			receipt = Receipt.DUPLICATE;
		}
		notifyReceipt(source, receipt);
		return receipt;
	}

	private Connection obtain() {
		return Sql.obtain(this.connections, this.tables.inbox());
	}

	private void release(Connection connection) {
		Sql.release(this.connections, connection, this.tables.inbox());
	}

	private void notifyReceipt(String source, Receipt receipt) {
		try {
			this.listener.onReceipt(source, receipt);
		}
		catch (RuntimeException ex) {
			logger.warn("Inbox listener {} failed on a receipt", this.listener, ex);
		}
	}

	private void notifyPurge(int deleted) {
		try {
			this.listener.onPurge(deleted);
		}
		catch (RuntimeException ex) {
			logger.warn("Inbox listener {} failed on a purge", this.listener, ex);
		}
	}

	static void validate(@Nullable String source, @Nullable String externalKey) {
		check("source", source, MAX_SOURCE_LENGTH, source,
				"name the source in at most " + MAX_SOURCE_LENGTH + " characters, e.g. the mailbox name");
		check("externalKey", externalKey, MAX_KEY_LENGTH, source,
				"pass InboxKeys.sha256(key) for longer keys, or InboxKeys.messageId(header) for Message-IDs");
	}

	private static void check(String name, @Nullable String value, int maxLength, @Nullable String source,
			String fix) {
		String context = (name.equals("source") || source == null) ? "" : " (source '" + source + "')";
		if (value == null) {
			throw new NullPointerException(name + " must not be null" + context);
		}
		if (value.isBlank()) {
			throw new IllegalArgumentException(name + " must not be blank but was '" + value + "'" + context
					+ ": pass the message's unique key, e.g. InboxKeys.messageId(header) or InboxKeys.sha256(content)");
		}
		if (value.length() > maxLength) {
			throw new IllegalArgumentException(name + " is " + value.length() + " characters long" + context
					+ ", the limit is " + maxLength + ": " + fix);
		}
		if (Character.isWhitespace(value.charAt(0)) || Character.isWhitespace(value.charAt(value.length() - 1))) {
			throw new IllegalArgumentException(name + " '" + InboxKeys.abbreviate(value) + "' (length "
					+ value.length() + ") starts or ends with whitespace" + context
					+ ": strip it (databases disagree on trailing spaces), e.g. with String.strip()");
		}
		for (int i = 0; i < value.length(); i++) {
			if (Character.isISOControl(value.charAt(i))) {
				throw new IllegalArgumentException(name + " (length " + value.length()
						+ ") contains the control character U+" + String.format("%04X", (int) value.charAt(i))
						+ " at index " + i + context + ": remove it or pass InboxKeys.sha256(key)");
			}
		}
	}

	/**
	 * Builds an {@link Inbox}.
	 */
	public static final class Builder extends PartBuilder<Builder> {

		private final ConnectionProvider connections;

		private InboxListener listener = InboxListener.NONE;

		private int purgeBatchSize = DEFAULT_PURGE_BATCH_SIZE;

		private Builder(ConnectionProvider connections) {
			this.connections = connections;
		}

		/**
		 * Sets the listener (default: none).
		 * @param listener the listener
		 * @return this builder
		 */
		public Builder listener(InboxListener listener) {
			this.listener = Objects.requireNonNull(listener, "listener must not be null");
			return this;
		}

		/**
		 * Sets how many rows one purge statement deletes (default {@value #DEFAULT_PURGE_BATCH_SIZE}).
		 * @param purgeBatchSize between 1 and 100,000
		 * @return this builder
		 */
		public Builder purgeBatchSize(int purgeBatchSize) {
			if (purgeBatchSize < 1 || purgeBatchSize > 100_000) {
				throw new IllegalArgumentException("purgeBatchSize must be between 1 and 100000 but was "
						+ purgeBatchSize + ": smaller batches hold locks shorter, e.g. " + DEFAULT_PURGE_BATCH_SIZE);
			}
			this.purgeBatchSize = purgeBatchSize;
			return this;
		}

		/**
		 * Builds the inbox, detecting the dialect from one connection if none was set.
		 * @return the inbox
		 * @throws DataAccessFailure if the dialect must be detected and no connection can be obtained
		 */
		public Inbox build() {
			return new Inbox(this, dialectOr(this::detect), tableNames());
		}

		private Dialect detect() {
			Connection connection;
			try {
				connection = this.connections.getConnection();
			}
			catch (SQLException ex) {
				throw new DataAccessFailure("Could not detect the SQL dialect: obtaining a connection failed", ex);
			}
			try {
				return Dialect.detect(connection);
			}
			finally {
				try {
					this.connections.releaseConnection(connection);
				}
				catch (SQLException ex) {
					logger.warn("Could not release the connection used to detect the dialect", ex);
				}
			}
		}

	}

}
