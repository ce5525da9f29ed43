package dev.polling.jdbc;

import java.sql.SQLException;

/**
 * Unchecked wrapper for a {@link SQLException} raised by the database parts. The message says what
 * polling was doing; the cause carries the driver's error code and SQL state.
 */
public class DataAccessFailure extends RuntimeException {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates a failure.
	 * @param message what was being done
	 * @param cause the driver's exception
	 */
	public DataAccessFailure(String message, SQLException cause) {
		super(message + ": " + cause.getMessage() + " (SQLState " + cause.getSQLState() + ", error code "
				+ cause.getErrorCode() + ")", cause);
	}

	@Override
	public synchronized SQLException getCause() {
		return (SQLException) super.getCause();
	}

}
