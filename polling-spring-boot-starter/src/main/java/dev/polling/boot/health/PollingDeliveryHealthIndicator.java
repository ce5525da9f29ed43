package dev.polling.boot.health;

import dev.polling.jdbc.delivery.DeliveryGuard;
import dev.polling.jdbc.delivery.DeliveryStats;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Health of the delivery guard: UP while its table answers (DOWN when the database does not), with
 * the in-doubt and dead messages in total and per destination. Messages waiting for an operator do
 * not make the instance unhealthy; alert on {@code inDoubt}/{@code dead} or on the
 * {@code polling.delivery.in.doubt} gauge instead.
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
		for (DeliveryStats stats : this.guard.stats()) {
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
		builder.up().withDetail("inDoubt", inDoubt).withDetail("dead", dead).withDetail("destinations", destinations);
	}

}
