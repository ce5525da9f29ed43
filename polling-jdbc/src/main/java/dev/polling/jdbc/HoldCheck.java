package dev.polling.jdbc;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Checks, inside a transaction, that this instance still holds what entitles it to write (a
 * cluster, the dispatcher role), and keeps it so until the transaction ends. A write made under a
 * hold runs the check first in the same transaction: if another instance has taken over, the check
 * throws and the transaction rolls back, so the stale holder's write never commits (fencing). See
 * {@link dev.polling.jdbc.coordination.JdbcCoordinator#assertStillHolder}.
 */
@FunctionalInterface
public interface HoldCheck {

	/** No check: for writes that need no hold. */
	HoldCheck NONE = (connection) -> {
	};

	/**
	 * Checks the hold on the connection, in its current transaction.
	 * @param connection the connection of the transaction that writes under the hold
	 * @throws dev.polling.jdbc.coordination.LostHoldException if the hold is lost
	 * @throws SQLException if the check cannot be made
	 */
	void assertStillHolder(Connection connection) throws SQLException;

}
