package dev.polling.boot.actuate;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

import dev.polling.boot.actuate.PollingQueueEndpointWebExtension.UnknownMessageDescriptor;

/**
 * The HTTP answers of the {@link PollingDeliveryEndpoint}'s operator actions: 404 for a message id
 * that does not exist, 400 for a message in another state or an unknown action.
 */
@EndpointWebExtension(endpoint = PollingDeliveryEndpoint.class)
public class PollingDeliveryEndpointWebExtension {

	private final PollingDeliveryEndpoint endpoint;

	public PollingDeliveryEndpointWebExtension(PollingDeliveryEndpoint endpoint) {
		this.endpoint = endpoint;
	}

	/** {@code POST /actuator/pollingdelivery/{id}/{action}}: 404 for an unknown message. */
	@WriteOperation
	public WebEndpointResponse<OperationResponseBody> act(@Selector String id, @Selector String action) {
		if (!this.endpoint.exists(id)) {
			return new WebEndpointResponse<>(UnknownMessageDescriptor.of(id), WebEndpointResponse.STATUS_NOT_FOUND);
		}
		return new WebEndpointResponse<>(this.endpoint.act(id, action), WebEndpointResponse.STATUS_OK);
	}

}
