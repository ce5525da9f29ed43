package dev.polling.jdbc;

/**
 * The outcome of an operator's bulk retry ("retry all N dead messages of queue X"): it runs only
 * if the number of DEAD messages it finds, counted under lock in its own transaction, is the number
 * the operator confirmed; otherwise nothing is retried and the operator is shown the new count to
 * confirm again.
 *
 * @param confirmed the count the operator confirmed
 * @param found the DEAD messages the bulk retry found (and locked)
 * @param retried the messages retried: {@code found} if applied, else 0
 */
public record BulkRetry(long confirmed, long found, long retried) {

	/**
	 * Whether the count was still the confirmed one, so that every DEAD message found was retried.
	 * @return {@code true} if applied, {@code false} if the count had changed and nothing was retried
	 */
	public boolean applied() {
		return this.confirmed == this.found;
	}

}
