package dev.polling.boot.actuate;

import java.util.List;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * The {@link PollingEndpoint} over HTTP: a request for an unknown cluster ({@code 404}) or an
 * unknown action ({@code 400}) is answered with a body that names what was not found and lists the
 * valid values, instead of an empty response.
 */
@EndpointWebExtension(endpoint = PollingEndpoint.class)
public class PollingEndpointWebExtension {

	/** The actions of {@code POST /actuator/polling/{cluster}/{action}}. */
	static final List<String> ACTIONS = List.of("pause", "resume");

	private final PollingEndpoint endpoint;

	public PollingEndpointWebExtension(PollingEndpoint endpoint) {
		this.endpoint = endpoint;
	}

	/** {@code GET /actuator/polling/{cluster}}: one cluster, or 404 with the known clusters. */
	@ReadOperation
	public WebEndpointResponse<OperationResponseBody> cluster(@Selector String cluster) {
		PollingEndpoint.ClusterDescriptor descriptor = this.endpoint.cluster(cluster);
		if (descriptor == null) {
			return new WebEndpointResponse<>(unknownCluster(cluster), WebEndpointResponse.STATUS_NOT_FOUND);
		}
		return new WebEndpointResponse<>(descriptor, WebEndpointResponse.STATUS_OK);
	}

	/** {@code POST /actuator/polling/{cluster}/{action}}: pause or resume, or 400 with the valid values. */
	@WriteOperation
	public WebEndpointResponse<OperationResponseBody> handover(@Selector String cluster, @Selector String action) {
		if (!this.endpoint.clusterIds().contains(cluster)) {
			return new WebEndpointResponse<>(unknownCluster(cluster), WebEndpointResponse.STATUS_BAD_REQUEST);
		}
		if (!ACTIONS.contains(action)) {
			return new WebEndpointResponse<>(new UnknownSelectorDescriptor("Unknown action '" + action + "'", "action", action, ACTIONS),
					WebEndpointResponse.STATUS_BAD_REQUEST);
		}
		try {
			return new WebEndpointResponse<>(this.endpoint.handover(cluster, action), WebEndpointResponse.STATUS_OK);
		}
		catch (InvalidEndpointRequestException ex) {
			return new WebEndpointResponse<>(new UnknownSelectorDescriptor(ex.getMessage(), "action", action, ACTIONS),
					WebEndpointResponse.STATUS_BAD_REQUEST);
		}
	}

	private UnknownSelectorDescriptor unknownCluster(String cluster) {
		return new UnknownSelectorDescriptor("Unknown polling cluster '" + cluster + "'", "cluster", cluster, this.endpoint.clusterIds());
	}

	/**
	 * The answer to a request for something the endpoint does not know.
	 * @param error what was not found
	 * @param selector which part of the path: {@code cluster} or {@code action}
	 * @param value the value given
	 * @param valid the values that exist
	 */
	public record UnknownSelectorDescriptor(String error, String selector, String value, List<String> valid)
			implements OperationResponseBody {
	}

}
