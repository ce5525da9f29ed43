package dev.polling.boot.actuate;

import dev.polling.jdbc.delivery.DeliveryEntry;
import dev.polling.jdbc.delivery.DeliveryGuard;
import dev.polling.jdbc.delivery.DeliveryState;
import dev.polling.jdbc.delivery.DeliveryStats;
import dev.polling.jdbc.delivery.Resolution;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The {@code pollingdelivery} actuator endpoint: per destination the backlog, in-doubt and dead
 * counts, and the in-doubt and dead messages (up to 100 each, without payloads). Operator actions,
 * which need {@code management.endpoint.pollingdelivery.access=unrestricted}: {@code POST
 * /actuator/pollingdelivery/{id}/delivered} marks an in-doubt message delivered,
 * {@code .../resend} sends it again (same idempotency key), {@code .../retry} sends a dead message
 * again.
 */
@Endpoint(id = "pollingdelivery", defaultAccess = Access.READ_ONLY)
public class PollingDeliveryEndpoint {

	private static final int LIMIT = 100;

	private final DeliveryGuard guard;

	public PollingDeliveryEndpoint(DeliveryGuard guard) {
		this.guard = guard;
	}

	/** Statistics, in-doubt and dead messages. */
	@ReadOperation
	public DeliveryDescriptor delivery() {
		return new DeliveryDescriptor(this.guard.destinations().keySet().stream().sorted().toList(),
				this.guard.stats(), this.guard.entries(DeliveryState.IN_DOUBT, LIMIT),
				this.guard.entries(DeliveryState.DEAD, LIMIT));
	}

	/** One message, or 404. */
	@ReadOperation
	public @Nullable DeliveryEntry message(@Selector String id) {
		return this.guard.entry(PollingQueueEndpoint.parse(id)).orElse(null);
	}

	/**
	 * Resolves an in-doubt message ({@code delivered}, {@code resend}) or retries a dead one
	 * ({@code retry}).
	 * @return the outcome; a message in another state is a bad request (400)
	 */
	@WriteOperation
	public ActionResult act(@Selector String id, @Selector String action) {
		long messageId = PollingQueueEndpoint.parse(id);
		boolean done = switch (action) {
			case "delivered" -> this.guard.resolve(messageId, Resolution.DELIVERED);
			case "resend" -> this.guard.resolve(messageId, Resolution.RESEND);
			case "retry" -> this.guard.retryDead(messageId);
			default -> throw new InvalidEndpointRequestException(
					"Unknown action '" + action + "'; use delivered or resend (IN_DOUBT), retry (DEAD)",
					"Unknown action; use delivered, resend or retry");
		};
		if (!done) {
			String expected = action.equals("retry") ? "DEAD" : "IN_DOUBT";
			throw new InvalidEndpointRequestException("Delivery " + messageId + " is not " + expected
					+ " (or does not exist)", "Delivery is not " + expected);
		}
		return new ActionResult(messageId, action, this.guard.entry(messageId).orElse(null));
	}

	/**
	 * The delivery guard as an operator sees it.
	 * @param destinations destinations registered on this instance
	 * @param destinationStats statistics per destination
	 * @param inDoubt in-doubt messages (up to 100)
	 * @param dead dead messages (up to 100)
	 */
	public record DeliveryDescriptor(List<String> destinations, List<DeliveryStats> destinationStats,
			List<DeliveryEntry> inDoubt, List<DeliveryEntry> dead) implements OperationResponseBody {
	}

	/**
	 * The outcome of an operator action.
	 * @param id the message id
	 * @param action the action
	 * @param message the message afterwards
	 */
	public record ActionResult(long id, String action, @Nullable DeliveryEntry message)
			implements OperationResponseBody {
	}

}
