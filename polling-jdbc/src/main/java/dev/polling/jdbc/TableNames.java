package dev.polling.jdbc;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Names of polling's tables: a common prefix (default {@value #DEFAULT_PREFIX}) followed by the
 * table's role, e.g. {@code polling_inbox}. The prefix is written into SQL unquoted, so it is
 * restricted to letters, digits and underscores, starts with a letter or underscore and has at most
 * {@value #MAX_PREFIX_LENGTH} characters (room for the longest table and index names within every
 * supported database's identifier limit).
 *
 * @param prefix the table name prefix, may be empty
 */
public record TableNames(String prefix) {

	/** The default prefix. */
	public static final String DEFAULT_PREFIX = "polling_";

	/** The longest accepted prefix. */
	public static final int MAX_PREFIX_LENGTH = 30;

	private static final Pattern VALID_PREFIX = Pattern.compile("([A-Za-z_][A-Za-z0-9_]*)?");

	/** The placeholder for the prefix in the schema scripts. */
	static final String PLACEHOLDER = "${prefix}";

	/**
	 * Validates the prefix.
	 * @param prefix the table name prefix
	 */
	public TableNames {
		Objects.requireNonNull(prefix, "table prefix must not be null; use \"\" for none or the default \""
				+ DEFAULT_PREFIX + "\"");
		if (prefix.length() > MAX_PREFIX_LENGTH || !VALID_PREFIX.matcher(prefix).matches()) {
			throw new IllegalArgumentException("table prefix '" + prefix + "' is invalid: use at most "
					+ MAX_PREFIX_LENGTH + " letters, digits or underscores, starting with a letter or underscore "
					+ "(default \"" + DEFAULT_PREFIX + "\")");
		}
	}

	/**
	 * The default names, prefix {@value #DEFAULT_PREFIX}.
	 * @return the default names
	 */
	public static TableNames defaults() {
		return new TableNames(DEFAULT_PREFIX);
	}

	/**
	 * The inbox table.
	 * @return e.g. {@code polling_inbox}
	 */
	public String inbox() {
		return this.prefix + "inbox";
	}

	/**
	 * The coordination table: one row per cluster coordinated through the database.
	 * @return the table name
	 */
	public String coordination() {
		return this.prefix + "coordination";
	}

	/**
	 * The work queue table.
	 * @return e.g. {@code polling_queue}
	 */
	public String queue() {
		return this.prefix + "queue";
	}

	/**
	 * The table of business keys with open messages in the work queue: one row per queue and key,
	 * counting its open messages; the lock that orders enqueues and completions of one key.
	 * @return e.g. {@code polling_queue_key}
	 */
	public String queueKey() {
		return this.prefix + "queue_key";
	}

	/**
	 * The scheduled jobs table.
	 * @return e.g. {@code polling_job}
	 */
	public String job() {
		return this.prefix + "job";
	}

	/**
	 * The delivery guard table.
	 * @return e.g. {@code polling_delivery}
	 */
	public String delivery() {
		return this.prefix + "delivery";
	}

	/**
	 * The table recording the applied schema versions (see {@link Schema#migrate}).
	 * @return e.g. {@code polling_schema_version}
	 */
	public String schemaVersion() {
		return this.prefix + "schema_version";
	}

	/**
	 * Replaces the prefix placeholder in SQL text.
	 * @param sql text containing {@code ${prefix}}
	 * @return the text with the prefix
	 */
	String apply(String sql) {
		return sql.replace(PLACEHOLDER, this.prefix);
	}

}
