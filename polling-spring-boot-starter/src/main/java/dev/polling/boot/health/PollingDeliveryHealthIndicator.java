package dev.polling.boot.health;

import dev.polling.jdbc.delivery.DeliveryGuard;
import dev.polling.jdbc.delivery.DeliveryStats;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * Health of the delivery guard: UP while its table answers and no message waits for an operator,
 * {@link PollingHealthStatus#DEGRADED DEGRADED} while messages are in doubt or dead (they do not
 * make the instance unhealthy, but somebody has to look: {@code /actuator/pollingdelivery}), DOWN
 * when the database does not answer. The details give the in-doubt and dead messages in total and
 * per destination.
 */
public class PollingDeliveryHealthIndicator extends AbstractHealthIndicator {

	private final DeliveryGuard guard;

	public PollingDeliveryHealthIndicator(DeliveryGuard guard) {
		super("Delivery guard health check failed");
		this.guard = guard;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		long inDoubt = 0;
		long dead = 0;
		Map<String, Object> destinations = new LinkedHashMap<>();
		for (DeliveryStats stats : this.guard.admin().stats()) {
			inDoubt += stats.inDoubt();
			dead += stats.dead();
			Map<String, Object> details = new LinkedHashMap<>();
			details.put("backlog", stats.backlog());
			details.put("inDoubt", stats.inDoubt());
			details.put("dead", stats.dead());
			if (stats.oldestPending() != null) {
				details.put("oldestPending", stats.oldestPending().toString());
			}
			destinations.put(stats.destination(), details);
		}
		builder.status((inDoubt > 0 || dead > 0) ? PollingHealthStatus.DEGRADED : Status.UP)
			.withDetail("inDoubt", inDoubt).withDetail("dead", dead).withDetail("destinations", destinations);
	}

}
