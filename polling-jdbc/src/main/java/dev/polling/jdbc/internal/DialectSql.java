package dev.polling.jdbc.internal;

import dev.polling.jdbc.Dialect;
import java.sql.SQLException;

/**
 * The SQL that differs between the dialects and is shared by several database parts, in one place:
 * how a statement is limited to n rows, and how each driver reports a duplicate key. Statements
 * whose whole shape differs per dialect (the claims, the upserts) stay with their part, built once
 * at construction.
 */
public final class DialectSql {

	private DialectSql() {
	}

	/**
	 * The clause that limits a statement to {@code rows} rows, with a leading space: {@code LIMIT n}
	 * on PostgreSQL and MariaDB, {@code FETCH FIRST n ROWS ONLY} on H2 (whose {@code DELETE} and
	 * locking {@code SELECT} do not take {@code LIMIT}).
	 * @param dialect the dialect
	 * @param rows the row count, a number or {@code ?}
	 * @return the clause
	 */
	public static String limit(Dialect dialect, String rows) {
		return (dialect == Dialect.H2) ? " FETCH FIRST " + rows + " ROWS ONLY" : " LIMIT " + rows;
	}

	/**
	 * Whether a statement failed because it would have duplicated a unique key: SQLSTATE 23505
	 * (PostgreSQL, H2), MariaDB's ER_DUP_ENTRY (1062) or ER_DUP_ENTRY_WITH_KEY_NAME (1586), whose
	 * SQLSTATE is the unspecific 23000.
	 * @param ex the failure
	 * @return whether it is a duplicate key
	 */
	public static boolean isDuplicateKey(SQLException ex) {
		return Dialect.isDuplicateKey(ex);
	}

	/**
	 * Whether a statement failed on a duplicate key and the transaction goes on: MariaDB (InnoDB) and
	 * H2 roll back only the failed statement. PostgreSQL aborts the whole transaction, so a part that
	 * must go on there avoids the error instead ({@code ON CONFLICT DO NOTHING}) and this answers
	 * {@code false}: the failure is a real one.
	 * @param dialect the dialect
	 * @param ex the failure
	 * @return whether the caller may treat it as a duplicate and continue in the same transaction
	 */
	public static boolean isDuplicateKeyKeepingTransaction(Dialect dialect, SQLException ex) {
		return dialect != Dialect.POSTGRESQL && isDuplicateKey(ex);
	}

}
