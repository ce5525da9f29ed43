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
import org.springframework.boot.actuate.endpoint.SecurityContext;
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
 * again. Error texts go through Spring Boot's sanitizer and are masked unless
 * {@code management.endpoint.pollingdelivery.show-values} allows them; over HTTP,
 * {@link PollingDeliveryEndpointWebExtension} answers an unknown message id with 404.
 */
@Endpoint(id = PollingDeliveryEndpoint.ID, defaultAccess = Access.READ_ONLY)
public class PollingDeliveryEndpoint {

	/** The endpoint id, also the name of the delivery guard's health contributor. */
	public static final String ID = "pollingdelivery";

	private static final int LIMIT = 100;

	private final DeliveryGuard guard;

	private final PollingValueSanitizer sanitizer;

	/**
	 * Creates the endpoint with error texts masked.
	 * @param guard the delivery guard
	 */
	public PollingDeliveryEndpoint(DeliveryGuard guard) {
		this(guard, PollingValueSanitizer.masked());
	}

	/**
	 * Creates the endpoint.
	 * @param guard the delivery guard
	 * @param sanitizer what it shows of error texts
	 */
	public PollingDeliveryEndpoint(DeliveryGuard guard, PollingValueSanitizer sanitizer) {
		this.guard = guard;
		this.sanitizer = sanitizer;
	}

	/** Statistics, in-doubt and dead messages. */
	@ReadOperation
	public DeliveryDescriptor delivery(SecurityContext securityContext) {
		boolean shown = this.sanitizer.isShown(securityContext);
		return new DeliveryDescriptor(this.guard.destinations().keySet().stream().sorted().toList(),
				this.guard.admin().stats(), sanitized(this.guard.admin().entries(DeliveryState.IN_DOUBT, LIMIT), shown),
				sanitized(this.guard.admin().entries(DeliveryState.DEAD, LIMIT), shown));
	}

	/** One message, or 404. */
	@ReadOperation
	public @Nullable DeliveryEntry message(SecurityContext securityContext, @Selector String id) {
		boolean shown = this.sanitizer.isShown(securityContext);
		return this.guard.admin().entry(PollingQueueEndpoint.parse(id)).map((entry) -> sanitized(entry, shown)).orElse(null);
	}

	/** Whether a message with the id exists. */
	boolean exists(String id) {
		return this.guard.admin().entry(PollingQueueEndpoint.parse(id)).isPresent();
	}

	private List<DeliveryEntry> sanitized(List<DeliveryEntry> entries, boolean shown) {
		return entries.stream().map((entry) -> sanitized(entry, shown)).toList();
	}

	private DeliveryEntry sanitized(DeliveryEntry entry, boolean shown) {
		return new DeliveryEntry(entry.id(), entry.destination(), entry.idempotencyKey(), entry.state(), entry.attempts(),
				entry.maxAttempts(), entry.createdAt(), this.sanitizer.sanitize("lastError", entry.lastError(), shown));
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
			case "delivered" -> this.guard.admin().resolve(messageId, Resolution.DELIVERED);
			case "resend" -> this.guard.admin().resolve(messageId, Resolution.RESEND);
			case "retry" -> this.guard.admin().retryDead(messageId);
			default -> throw new InvalidEndpointRequestException(
					"Unknown action '" + action + "'; use delivered or resend (IN_DOUBT), retry (DEAD)",
					"Unknown action; use delivered, resend or retry");
		};
		if (!done) {
			String expected = action.equals("retry") ? "DEAD" : "IN_DOUBT";
			throw new InvalidEndpointRequestException("Delivery " + messageId + " is not " + expected
					+ " (or does not exist)", "Delivery is not " + expected);
		}
		// no SecurityContext parameter here: it would make the operation expect a JSON body (HTTP 415 without one)
		return new ActionResult(messageId, action, this.guard.admin().entry(messageId).map((entry) -> sanitized(entry, false)).orElse(null));
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
