package dev.polling.jdbc.builder;

import java.util.Objects;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.TableNames;

/**
 * The settings every database part is built with: its {@link Dialect} (detected from one
 * connection at {@code build()} unless set) and its {@link TableNames}.
 *
 * @param <B> the builder itself, returned by every setter
 */
public abstract class PartBuilder<B extends PartBuilder<B>> {

	private @Nullable Dialect dialect;

	private TableNames tables = TableNames.defaults();

	/** For the builders of the parts. */
	protected PartBuilder() {
	}

	/**
	 * Sets the dialect instead of detecting it from one connection at {@code build()}.
	 * @param dialect the dialect
	 * @return this builder
	 */
	public B dialect(Dialect dialect) {
		this.dialect = Objects.requireNonNull(dialect, "dialect must not be null");
		return self();
	}

	/**
	 * The dialect that was set, else the one the given detection finds.
	 * @param detect detects the dialect from one connection
	 * @return the dialect
	 */
	protected final Dialect dialectOr(Supplier<Dialect> detect) {
		return (this.dialect != null) ? this.dialect : detect.get();
	}

	/**
	 * Sets the table names (default prefix {@value TableNames#DEFAULT_PREFIX}).
	 * @param tables the table names
	 * @return this builder
	 */
	public B tables(TableNames tables) {
		this.tables = Objects.requireNonNull(tables, "tables must not be null");
		return self();
	}

	/**
	 * The table names that were set.
	 * @return the table names
	 */
	protected final TableNames tableNames() {
		return this.tables;
	}

	/**
	 * This builder, as its own type.
	 * @return this builder
	 */
	@SuppressWarnings("unchecked")
	protected final B self() {
		return (B) this;
	}

}
