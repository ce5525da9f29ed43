package dev.polling.boot.actuate;

import dev.polling.jdbc.queue.BlockedKey;
import dev.polling.jdbc.queue.MessageState;
import dev.polling.jdbc.queue.QueueEntry;
import dev.polling.jdbc.queue.QueueStats;
import dev.polling.jdbc.queue.WorkQueue;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The {@code pollingqueue} actuator endpoint: per queue the backlog, messages in progress and dead,
 * the age of the oldest waiting message, the blocked business keys and the dead messages (up to
 * 100 each, without payloads). Operator actions, which need
 * {@code management.endpoint.pollingqueue.access=unrestricted}: {@code POST
 * /actuator/pollingqueue/{id}/retry} gives a dead message fresh attempts, {@code DELETE
 * /actuator/pollingqueue/{id}} discards it (unblocking its key). Error texts go through Spring Boot's
 * sanitizer and are masked unless {@code management.endpoint.pollingqueue.show-values} allows them;
 * over HTTP, {@link PollingQueueEndpointWebExtension} answers an unknown message id with 404.
 */
@Endpoint(id = PollingQueueEndpoint.ID, defaultAccess = Access.READ_ONLY)
public class PollingQueueEndpoint {

	/** The endpoint id, also the name of the work queue's health contributor. */
	public static final String ID = "pollingqueue";

	private static final int LIMIT = 100;

	private final WorkQueue queue;

	private final PollingValueSanitizer sanitizer;

	/**
	 * Creates the endpoint with error texts masked.
	 * @param queue the work queue
	 */
	public PollingQueueEndpoint(WorkQueue queue) {
		this(queue, PollingValueSanitizer.masked());
	}

	/**
	 * Creates the endpoint.
	 * @param queue the work queue
	 * @param sanitizer what it shows of error texts
	 */
	public PollingQueueEndpoint(WorkQueue queue, PollingValueSanitizer sanitizer) {
		this.queue = queue;
		this.sanitizer = sanitizer;
	}

	/** Statistics, blocked keys and dead messages. */
	@ReadOperation
	public QueueDescriptor queue(SecurityContext securityContext) {
		boolean shown = this.sanitizer.isShown(securityContext);
		return new QueueDescriptor(this.queue.owner(), this.queue.admin().stats(),
				this.queue.admin().blockedKeys(LIMIT).stream().map((key) -> sanitized(key, shown)).toList(),
				this.queue.admin().entries(MessageState.DEAD, LIMIT).stream().map((entry) -> sanitized(entry, shown)).toList());
	}

	/** One message, or 404. */
	@ReadOperation
	public @Nullable QueueEntry message(SecurityContext securityContext, @Selector String id) {
		boolean shown = this.sanitizer.isShown(securityContext);
		return this.queue.admin().entry(parse(id)).map((entry) -> sanitized(entry, shown)).orElse(null);
	}

	/** Whether a message with the id exists. */
	boolean exists(String id) {
		return this.queue.admin().entry(parse(id)).isPresent();
	}

	private QueueEntry sanitized(QueueEntry entry, boolean shown) {
		return new QueueEntry(entry.id(), entry.queue(), entry.businessKey(), entry.state(), entry.attempts(), entry.maxAttempts(),
				entry.owner(), entry.enqueuedAt(), this.sanitizer.sanitize("lastError", entry.lastError(), shown));
	}

	private BlockedKey sanitized(BlockedKey key, boolean shown) {
		return new BlockedKey(key.queue(), key.businessKey(), key.headId(), key.headState(), key.attempts(),
				this.sanitizer.sanitize("lastError", key.lastError(), shown), key.waiting());
	}

	/**
	 * Retries ({@code retry}) a dead message: {@code POST /actuator/pollingqueue/{id}/retry}.
	 * @return the outcome; a message that is not dead is a bad request (400)
	 */
	@WriteOperation
	public ActionResult act(@Selector String id, @Selector String action) {
		long messageId = parse(id);
		if (!"retry".equals(action)) {
			throw new InvalidEndpointRequestException("Unknown action '" + action + "'; use retry (discard is DELETE "
					+ "/actuator/pollingqueue/" + id + ")", "Unknown action; use retry");
		}
		if (!this.queue.admin().retry(messageId)) {
			throw notDead(messageId);
		}
		// no SecurityContext parameter here: it would make the operation expect a JSON body (HTTP 415 without one)
		return new ActionResult(messageId, action, this.queue.admin().entry(messageId).map((entry) -> sanitized(entry, false)).orElse(null));
	}

	/**
	 * Discards a dead message (deletes it, unblocking its key): {@code DELETE /actuator/pollingqueue/{id}}.
	 * @return the outcome; a message that is not dead is a bad request (400)
	 */
	@DeleteOperation
	public ActionResult discard(@Selector String id) {
		long messageId = parse(id);
		if (!this.queue.admin().discard(messageId)) {
			throw notDead(messageId);
		}
		return new ActionResult(messageId, "discard", null);
	}

	private static InvalidEndpointRequestException notDead(long messageId) {
		return new InvalidEndpointRequestException("Message " + messageId + " is not DEAD (or does not exist): only "
				+ "dead messages can be retried or discarded", "Message is not dead");
	}

	static long parse(String id) {
		try {
			return Long.parseLong(id);
		}
		catch (NumberFormatException ex) {
			throw new InvalidEndpointRequestException("Message id '" + id + "' is not a number", "Invalid message id");
		}
	}

	/**
	 * The queue as an operator sees it.
	 * @param owner this instance's owner id in claimed rows
	 * @param queues statistics per queue
	 * @param blockedKeys keys whose oldest open message failed (up to 100)
	 * @param dead dead messages (up to 100)
	 */
	public record QueueDescriptor(String owner, List<QueueStats> queues, List<BlockedKey> blockedKeys,
			List<QueueEntry> dead) implements OperationResponseBody {
	}

	/**
	 * The outcome of an operator action.
	 * @param id the message id
	 * @param action the action
	 * @param message the message afterwards, or {@code null} when discarded
	 */
	public record ActionResult(long id, String action, @Nullable QueueEntry message) implements OperationResponseBody {
	}

}
