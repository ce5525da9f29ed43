package dev.polling.boot.actuate;

import java.util.List;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * The {@link PollingEndpoint} over HTTP: a request for an unknown cluster ({@code 404}, also when
 * changing its state) or an unknown state ({@code 400}) is answered with a body that names what was not found and lists the
 * valid values, instead of an empty response.
 */
@EndpointWebExtension(endpoint = PollingEndpoint.class)
public class PollingEndpointWebExtension {

	private final PollingEndpoint endpoint;

	public PollingEndpointWebExtension(PollingEndpoint endpoint) {
		this.endpoint = endpoint;
	}

	/** {@code GET /actuator/polling/{cluster}}: one cluster, or 404 with the known clusters. */
	@ReadOperation
	public WebEndpointResponse<OperationResponseBody> cluster(SecurityContext securityContext, @Selector String cluster) {
		PollingEndpoint.ClusterDescriptor descriptor = this.endpoint.cluster(securityContext, cluster);
		if (descriptor == null) {
			return new WebEndpointResponse<>(unknownCluster(cluster), WebEndpointResponse.STATUS_NOT_FOUND);
		}
		return new WebEndpointResponse<>(descriptor, WebEndpointResponse.STATUS_OK);
	}

	/**
	 * {@code POST /actuator/polling/{cluster}} with {@code {"state":"paused"}} or
	 * {@code {"state":"active"}}: 404 for an unknown cluster, 400 for an unknown state, each with
	 * the valid values.
	 */
	@WriteOperation
	public WebEndpointResponse<OperationResponseBody> changeState(SecurityContext securityContext, @Selector String cluster,
			String state) {
		if (!this.endpoint.clusterIds().contains(cluster)) {
			return new WebEndpointResponse<>(unknownCluster(cluster), WebEndpointResponse.STATUS_NOT_FOUND);
		}
		if (!PollingEndpoint.STATES.contains(state)) {
			return new WebEndpointResponse<>(
					new UnknownSelectorDescriptor("Unknown state '" + state + "'", "state", state, PollingEndpoint.STATES),
					WebEndpointResponse.STATUS_BAD_REQUEST);
		}
		PollingEndpoint.ClusterDescriptor changed = this.endpoint.changeState(securityContext, cluster, state);
		if (changed == null) {
			return new WebEndpointResponse<>(unknownCluster(cluster), WebEndpointResponse.STATUS_NOT_FOUND);
		}
		return new WebEndpointResponse<>(changed, WebEndpointResponse.STATUS_OK);
	}

	private UnknownSelectorDescriptor unknownCluster(String cluster) {
		return new UnknownSelectorDescriptor("Unknown polling cluster '" + cluster + "'", "cluster", cluster, this.endpoint.clusterIds());
	}

	/**
	 * The answer to a request for something the endpoint does not know.
	 * @param error what was not found
	 * @param selector what was not found: {@code cluster} (in the path) or {@code state} (in the body)
	 * @param value the value given
	 * @param valid the values that exist
	 */
	public record UnknownSelectorDescriptor(String error, String selector, String value, List<String> valid)
			implements OperationResponseBody {
	}

}
