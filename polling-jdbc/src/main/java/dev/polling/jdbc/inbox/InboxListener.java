package dev.polling.jdbc.inbox;

/**
 * Callbacks about what an {@link Inbox} did, for metrics and logging. Every method has a no-op
 * default; exceptions thrown by a listener are logged and never reach the caller of the inbox.
 * The Spring Boot starter registers a Micrometer implementation when Micrometer is present.
 */
public interface InboxListener {

	/** A listener that does nothing. */
	InboxListener NONE = new InboxListener() {
	};

	/**
	 * Called after each successful {@link Inbox#receive}. The caller's transaction may still roll
	 * back, so a NEW receipt counted here is not necessarily a committed one.
	 * @param source the source
	 * @param receipt the answer
	 */
	default void onReceipt(String source, Receipt receipt) {
	}

	/**
	 * Called after {@link Inbox#purge} finished.
	 * @param deleted how many entries this call deleted
	 */
	default void onPurge(int deleted) {
	}

}
