package dev.polling.jdbc.inbox;

/**
 * The answer of {@link Inbox#receive}: whether a message is seen for the first time.
 */
public enum Receipt {

	/** First receipt: the key is now recorded (when the caller's transaction commits). Process it. */
	NEW,

	/** The key was recorded before by a committed transaction, or earlier in this one. Skip it. */
	DUPLICATE;

	/**
	 * Whether the message should be processed.
	 * @return {@code true} for {@link #NEW}
	 */
	public boolean isNew() {
		return this == NEW;
	}

}
