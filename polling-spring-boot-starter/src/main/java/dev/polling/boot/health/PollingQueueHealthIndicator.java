package dev.polling.boot.health;

import dev.polling.jdbc.queue.QueueStats;
import dev.polling.jdbc.queue.WorkQueue;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * Health of the work queue: UP while its table answers and no message is dead,
 * {@link PollingHealthStatus#DEGRADED DEGRADED} while dead messages wait for an operator (they do
 * not make the instance unhealthy, restarting it would not help: {@code /actuator/pollingqueue}
 * retries or discards them), DOWN when the database does not answer. The details give the dead
 * messages in total and per queue the backlog, messages in progress, failed, dead and the age of the
 * oldest waiting one.
 */
public class PollingQueueHealthIndicator extends AbstractHealthIndicator {

	private final WorkQueue queue;

	public PollingQueueHealthIndicator(WorkQueue queue) {
		super("Work queue health check failed");
		this.queue = queue;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		long dead = 0;
		Map<String, Object> queues = new LinkedHashMap<>();
		for (QueueStats stats : this.queue.admin().stats()) {
			dead += stats.dead();
			Map<String, Object> details = new LinkedHashMap<>();
			details.put("backlog", stats.backlog());
			details.put("inProgress", stats.inProgress());
			details.put("failed", stats.failed());
			details.put("dead", stats.dead());
			if (stats.oldestWaiting() != null) {
				details.put("oldestWaiting", stats.oldestWaiting().toString());
			}
			queues.put(stats.queue(), details);
		}
		builder.status((dead > 0) ? PollingHealthStatus.DEGRADED : Status.UP)
			.withDetail("dead", dead).withDetail("queues", queues);
	}

}
