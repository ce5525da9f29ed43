package dev.polling.console.jdbc;

import java.util.List;
import java.util.function.Supplier;

import dev.polling.console.ConsoleSection.Outcome;
import dev.polling.jdbc.BulkRetry;

/**
 * The console's side of "retry all dead of queue/destination X": runs the admin API's bulk retry
 * with the count the operator confirmed and words its outcome (done, the new count to confirm, bad
 * input) the same way for the work queue and the delivery guard.
 */
final class BulkRetries {

	static final String RETRY_DEAD = "retry-dead";

	private BulkRetries() {
	}

	/**
	 * Runs a bulk retry.
	 * @param action the action asked for ({@value #RETRY_DEAD} is the only one)
	 * @param parts what the entries are, e.g. "queue messages" (for an unknown action)
	 * @param group the queue or destination
	 * @param confirmedCount the count the operator confirmed
	 * @param retry the admin API's bulk retry
	 * @param forget what makes the section read its counts again
	 * @param words the wording: "Queue", "dead message", "dead messages", "of queue"
	 * @return 200 done, 409 with the new count (nothing retried), 400 for bad input
	 */
	static Outcome run(String action, String parts, String group, long confirmedCount, Supplier<BulkRetry> retry, Runnable forget,
			Words words) {
		if (!RETRY_DEAD.equals(action)) {
			return new Outcome(400, "Unknown bulk action '" + action + "' for " + parts, List.of(RETRY_DEAD));
		}
		BulkRetry result;
		try {
			result = retry.get();
		}
		catch (IllegalArgumentException | NullPointerException ex) {
			return new Outcome(400, String.valueOf(ex.getMessage()), List.of());
		}
		finally {
			forget.run();
		}
		if (!result.applied()) {
			return new Outcome(409, words.group() + " " + group + " has " + result.found() + " " + words.of(result.found()) + " now, not the "
					+ confirmedCount + " confirmed; nothing was retried. Confirm the new count to retry them",
					List.of(Long.toString(result.found())));
		}
		return Outcome.done("all " + result.retried() + " " + words.of(result.retried()) + " " + words.relation() + " " + group
				+ " retried");
	}

	/**
	 * How a section names its entries and groups.
	 * @param group the group's name at the start of a sentence ("Queue", "Destination")
	 * @param one one entry ("dead message")
	 * @param many several ("dead messages")
	 * @param relation between the entries and the group ("of queue", "to")
	 */
	record Words(String group, String one, String many, String relation) {

		String of(long count) {
			return (count == 1) ? this.one : this.many;
		}

	}

}
