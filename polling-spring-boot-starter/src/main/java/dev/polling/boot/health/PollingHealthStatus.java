package dev.polling.boot.health;

import org.springframework.boot.health.contributor.Status;

/**
 * The health status of a polling part that works but needs attention: a cluster none of whose
 * peers answered (this instance cannot tell whether it is alone), a work queue with dead messages,
 * a delivery guard with in-doubt or dead messages. It is not {@code UP}, so a dashboard shows it,
 * and not {@code DOWN}: nothing is gained by restarting the instance or taking it out of traffic.
 * <p>
 * Spring Boot answers a custom status with HTTP 200 and leaves it out of the aggregate status
 * unless it is listed in the status order; to let it count, configure e.g.
 * {@code management.endpoint.health.status.order=down,out-of-service,degraded,up,unknown} (and
 * {@code management.endpoint.health.status.http-mapping.degraded=200} to keep the answer 200).
 */
public final class PollingHealthStatus {

	/** Works, but needs attention; see the details of the component. */
	public static final Status DEGRADED = new Status("DEGRADED");

	private PollingHealthStatus() {
	}

}
