package dev.polling.jdbc.queue;

import dev.polling.jdbc.FencedWrite;
import java.util.List;

/**
 * The workers' protocol of {@link WorkQueue} (package-private, not an API) for the tests of other
 * packages that drive a queue by hand: claim, complete and fail as the workers do.
 */
public final class QueueProtocol {

	private QueueProtocol() {
	}

	public static List<QueueMessage> claim(WorkQueue queue, String name, int limit) {
		return queue.claim(name, limit);
	}

	public static FencedWrite complete(WorkQueue queue, QueueMessage message) {
		return queue.complete(message);
	}

	public static FencedWrite fail(WorkQueue queue, QueueMessage message, Throwable failure) {
		return queue.fail(message, failure);
	}

}
