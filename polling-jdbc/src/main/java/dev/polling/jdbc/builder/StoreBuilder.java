package dev.polling.jdbc.builder;

import java.util.Objects;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import dev.polling.jdbc.Backoff;
import dev.polling.jdbc.ConnectionProvider;
import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.TableNames;

/**
 * The settings of a part that stores rows on a data source: where the writes made in the caller's
 * transaction get their connection, and the backoff before a failed row is tried again. Its own
 * short transactions (claims, dispatch rounds, recoveries) always borrow from the data source.
 *
 * @param <B> the builder itself, returned by every setter
 */
public abstract class StoreBuilder<B extends StoreBuilder<B>> extends PartBuilder<B> {

	private final DataSource dataSource;

	private @Nullable ConnectionProvider connections;

	private Backoff backoff = Backoff.defaults();

	/**
	 * For the builders of the parts.
	 * @param dataSource the data source
	 */
	protected StoreBuilder(DataSource dataSource) {
		this.dataSource = Objects.requireNonNull(dataSource, "dataSource must not be null");
	}

	/**
	 * Sets where the writes made in the caller's transaction get their connection, e.g. one bound to
	 * the current transaction (default: a connection borrowed from the data source per call).
	 * @param connections the provider
	 * @return this builder
	 */
	public B connections(ConnectionProvider connections) {
		this.connections = Objects.requireNonNull(connections, "connections must not be null");
		return self();
	}

	/**
	 * Sets the wait before a row that failed is tried again (default: {@link Backoff#defaults()}).
	 * @param backoff the backoff
	 * @return this builder
	 */
	public B backoff(Backoff backoff) {
		this.backoff = Objects.requireNonNull(backoff, "backoff must not be null");
		return self();
	}

	/**
	 * The settings, detecting the dialect from one connection of the data source if none was set.
	 * @return the settings
	 */
	protected final Store store() {
		Dialect dialect = dialectOr(() -> Dialect.detect(this.dataSource));
		ConnectionProvider provider = (this.connections != null) ? this.connections
				: ConnectionProvider.of(this.dataSource);
		return new Store(this.dataSource, provider, this.connections != null, dialect, tableNames(), this.backoff);
	}

	/**
	 * What a store was built with.
	 *
	 * @param dataSource the data source of its own transactions
	 * @param connections where the writes in the caller's transaction get their connection
	 * @param joinsCallerTransactions whether {@code connections} was set (else it borrows from the
	 * data source)
	 * @param dialect the dialect
	 * @param tables the table names
	 * @param backoff the backoff
	 */
	public record Store(DataSource dataSource, ConnectionProvider connections, boolean joinsCallerTransactions,
			Dialect dialect, TableNames tables, Backoff backoff) {
	}

}
