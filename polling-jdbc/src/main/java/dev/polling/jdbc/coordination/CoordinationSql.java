package dev.polling.jdbc.coordination;

import dev.polling.jdbc.DatabaseTime;
import dev.polling.jdbc.Dialect;
import java.sql.Connection;
import java.sql.SQLException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The statements of {@link JdbcCoordinator} on one table and dialect: making sure a cluster's row
 * exists, the plain and the locking read, the holder's renewal, the write of a decision, the
 * release, and the fenced read of the holder.
 */
final class CoordinationSql {

	private static final Logger logger = LoggerFactory.getLogger(JdbcCoordinator.class);

	final String ensure;

	final String exists;

	final String lock;

	final String read;

	final @Nullable String renew;

	final String update;

	final String release;

	final String holder;

	CoordinationSql(Dialect dialect, String table, DatabaseTime time, int lockTimeoutSeconds) {
		this.ensure = switch (dialect) {
			case POSTGRESQL -> "INSERT INTO " + table + " (cluster_id, epoch) VALUES (?, ?) ON CONFLICT (cluster_id) DO NOTHING";
			case MARIADB -> "INSERT IGNORE INTO " + table + " (cluster_id, epoch) VALUES (?, ?)";
			case H2 -> "INSERT INTO " + table + " (cluster_id, epoch) VALUES (?, ?)";
		};
		this.exists = "SELECT 1 FROM " + table + " WHERE cluster_id = ?";
		// how long to wait for a row another transaction holds: PostgreSQL honours the JDBC query timeout
		// (set on the statement); MariaDB and H2 wait for their own lock timeouts (50 s, 10 s) regardless,
		// so they are told in the statement
		String wait = (dialect == Dialect.POSTGRESQL) ? "" : " WAIT " + lockTimeoutSeconds;
		this.lock = "SELECT holder, epoch, last_run, " + time.now() + " FROM " + table + " WHERE cluster_id = ? FOR UPDATE"
				+ wait;
		// the moment of the write: PostgreSQL's CURRENT_TIMESTAMP is the transaction's start, before the wait
		// for the row, so a renewal that waited would be recorded up to the lock timeout too old and a peer
		// could take over that much earlier than the holder expects (readers keep the transaction start as
		// "now", which errs the other way: a row looks younger than it is)
		String written = (dialect == Dialect.POSTGRESQL) ? "clock_timestamp()" : time.now();
		this.update = "UPDATE " + table + " SET holder = ?, epoch = ?, last_run = " + written + " WHERE cluster_id = ?";
		// a standby's refusal needs no lock: a plain read that shows a live holder refuses, only a row that
		// looks free (or this instance's) is decided under the row lock
		this.read = "SELECT holder, epoch, last_run, " + time.now() + " FROM " + table + " WHERE cluster_id = ?";
		// the holder's renewal on PostgreSQL: one auto-committed statement that matches only while the row
		// still names this hold (holder and epoch), returning the age of the run before; on MariaDB and H2
		// a statement's lock wait is bounded only by the WAIT clause of the locking read, so they renew there
		this.renew = (dialect == Dialect.POSTGRESQL) ? "UPDATE " + table + " c SET last_run = clock_timestamp() FROM " + table
				+ " p WHERE c.cluster_id = ? AND c.holder = ? AND c.epoch = ? AND p.cluster_id = c.cluster_id"
				+ " RETURNING p.last_run, clock_timestamp()" : null;
		this.release = "UPDATE " + table + " SET holder = NULL WHERE cluster_id = ? AND holder = ? AND epoch = ?";
		// a shared lock (H2 has none: an exclusive one), so that a takeover waits for the fenced transaction
		this.holder = "SELECT holder, epoch FROM " + table + " WHERE cluster_id = ?" + switch (dialect) {
			case POSTGRESQL -> " FOR SHARE";
			case MARIADB -> " LOCK IN SHARE MODE WAIT " + lockTimeoutSeconds;
			case H2 -> " FOR UPDATE WAIT " + lockTimeoutSeconds;
		};
	}

	/** Quietly: on a connection the failure broke, this fails too and must not hide that failure. */
	static void restoreAutoCommit(Connection connection, boolean autoCommit) {
		try {
			connection.setAutoCommit(autoCommit);
		}
		catch (SQLException ex) {
			logger.debug("Could not restore auto-commit; the pool discards a broken connection", ex);
		}
	}

	static void rollbackQuietly(Connection connection) {
		try {
			connection.rollback();
		}
		catch (SQLException ex) {
			logger.debug("Rollback failed", ex);
		}
	}

}
