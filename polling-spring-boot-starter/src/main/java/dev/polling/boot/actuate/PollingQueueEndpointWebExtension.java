package dev.polling.boot.actuate;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * The HTTP answers of the {@link PollingQueueEndpoint}'s operator actions: 404 for a message id
 * that does not exist, 400 for a message that is not dead or an unknown action.
 */
@EndpointWebExtension(endpoint = PollingQueueEndpoint.class)
public class PollingQueueEndpointWebExtension {

	private final PollingQueueEndpoint endpoint;

	public PollingQueueEndpointWebExtension(PollingQueueEndpoint endpoint) {
		this.endpoint = endpoint;
	}

	/** {@code POST /actuator/pollingqueue/{id}/retry}: 404 for an unknown message. */
	@WriteOperation
	public WebEndpointResponse<OperationResponseBody> act(@Selector String id, @Selector String action) {
		if (!this.endpoint.exists(id)) {
			return new WebEndpointResponse<>(UnknownMessageDescriptor.of(id), WebEndpointResponse.STATUS_NOT_FOUND);
		}
		return new WebEndpointResponse<>(this.endpoint.act(id, action), WebEndpointResponse.STATUS_OK);
	}

	/** {@code DELETE /actuator/pollingqueue/{id}}: 404 for an unknown message. */
	@DeleteOperation
	public WebEndpointResponse<OperationResponseBody> discard(@Selector String id) {
		if (!this.endpoint.exists(id)) {
			return new WebEndpointResponse<>(UnknownMessageDescriptor.of(id), WebEndpointResponse.STATUS_NOT_FOUND);
		}
		return new WebEndpointResponse<>(this.endpoint.discard(id), WebEndpointResponse.STATUS_OK);
	}

	/**
	 * The answer to an action on a message that does not exist.
	 * @param error what was not found
	 * @param id the message id given
	 */
	public record UnknownMessageDescriptor(String error, String id) implements OperationResponseBody {

		static UnknownMessageDescriptor of(String id) {
			return new UnknownMessageDescriptor("There is no message " + id, id);
		}

	}

}
