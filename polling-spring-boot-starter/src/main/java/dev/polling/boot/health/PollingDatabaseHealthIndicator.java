package dev.polling.boot.health;

import dev.polling.jdbc.DatabaseStatus;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.actuate.endpoint.SanitizableData;
import org.springframework.boot.actuate.endpoint.Sanitizer;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Health of the database as polling's background parts (queue workers, delivery dispatcher, job
 * dispatcher) see it: DOWN from the first round that found the database unreachable until the next
 * round that reached it, with when the outage began, its latest error and the number of outages
 * since start; after an outage, {@code lastOutage} says when it began and ended and when each part
 * first reached the database again. Reads the shared {@link DatabaseStatus} only, never the database; the parts recover
 * by themselves, so an orchestrator should not restart the instance for this (keep it out of the
 * liveness group).
 */
public class PollingDatabaseHealthIndicator extends AbstractHealthIndicator {

	private final DatabaseStatus status;

	private final Sanitizer sanitizer;

	public PollingDatabaseHealthIndicator(DatabaseStatus status) {
		this(status, new Sanitizer());
	}

	/**
	 * Creates the indicator.
	 * @param status the instance's database status
	 * @param sanitizer applied to error texts (the application's sanitizing functions; whether details
	 * are shown at all is the health endpoint's {@code show-details})
	 */
	public PollingDatabaseHealthIndicator(DatabaseStatus status, Sanitizer sanitizer) {
		super("Polling database health check failed");
		this.status = status;
		this.sanitizer = sanitizer;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		if (this.status.isAvailable()) {
			builder.up();
		}
		else {
			builder.down();
			this.status.unavailableSince().ifPresent((since) -> builder.withDetail("unavailableSince", since.toString()));
			this.status.lastError()
				.ifPresent((error) -> builder.withDetail("lastError",
						String.valueOf(this.sanitizer.sanitize(new SanitizableData(null, "lastError", error), true))));
		}
		builder.withDetail("outages", this.status.outages());
		this.status.lastOutage().ifPresent((outage) -> {
			Map<String, Object> last = new LinkedHashMap<>();
			last.put("began", outage.began().toString());
			if (outage.ended() != null) {
				last.put("ended", outage.ended().toString());
			}
			Map<String, String> resumed = new LinkedHashMap<>();
			outage.resumed().forEach((part, at) -> resumed.put(part, at.toString()));
			last.put("resumed", resumed);
			builder.withDetail("lastOutage", last);
		});
	}

}
