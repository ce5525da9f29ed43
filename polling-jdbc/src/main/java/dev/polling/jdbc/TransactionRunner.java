package dev.polling.jdbc;

/**
 * Runs a handler and the message's completion in one transaction, so that the handler's database
 * work commits together with {@code DONE} and rolls back when the fence rejects the completion.
 * The work throws to signal a rollback. The Spring Boot starter uses a {@code TransactionTemplate}.
 */
@FunctionalInterface
public interface TransactionRunner {

	/** No transaction: the handler's work and the completion commit separately. */
	TransactionRunner NONE = Runnable::run;

	/**
	 * Runs the work in a transaction, committing when it returns and rolling back when it throws
	 * (and rethrowing).
	 * @param work the work
	 */
	void inTransaction(Runnable work);

}
