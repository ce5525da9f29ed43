package dev.polling.jdbc.queue;

import java.util.List;

/**
 * The claim of {@link WorkQueue} for {@code ClaimCostBenchmark}, which times single claims: the claim
 * is the workers' protocol, package-private in polling-jdbc, so the benchmark reaches it from a class
 * of the same package (on the class path; not an API).
 */
public final class ClaimProbe {

	private ClaimProbe() {
	}

	/**
	 * Claims up to {@code limit} ready messages as the queue workers' fetcher does.
	 * @param queue the queue
	 * @param name the queue name
	 * @param limit 1 to 1000
	 * @return the claimed messages
	 */
	public static List<QueueMessage> claim(WorkQueue queue, String name, int limit) {
		return queue.claim(name, limit);
	}

}
