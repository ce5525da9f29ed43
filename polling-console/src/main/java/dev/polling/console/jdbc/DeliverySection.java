package dev.polling.console.jdbc;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import dev.polling.boot.actuate.PollingValueSanitizer;
import dev.polling.console.ConsoleProblems;
import dev.polling.jdbc.delivery.DeliveryEntry;
import dev.polling.jdbc.delivery.DeliveryGuard;
import dev.polling.jdbc.delivery.DeliveryQuery;
import dev.polling.jdbc.delivery.DeliveryState;
import dev.polling.jdbc.delivery.DeliveryStats;
import dev.polling.jdbc.delivery.Resolution;

/**
 * The delivery guard in the console: counts by state per destination, the in-doubt deliveries to
 * resolve (delivered, or resend with the same idempotency key) and the dead ones to retry, with
 * filters (destination, idempotency key) and keyset paging, one delivery's detail, and "retry all
 * dead of destination X" with a confirmed count, all through {@link DeliveryGuard#admin()}, which
 * acts only on an entry in the state the action needs. In-doubt deliveries are an error once the
 * oldest was stored longer ago than the threshold, a warning before.
 */
public final class DeliverySection extends EntrySection<DeliveryEntry, DeliveryState> {

	static final List<String> IN_DOUBT_ACTIONS = List.of("delivered", "resend");

	static final List<String> DEAD_ACTIONS = List.of("retry");

	static final String RETRY_DEAD = BulkRetries.RETRY_DEAD;

	private static final List<Column> STATS = List.of(new Column("destination", "Destination"), new Column("pending", "Pending"),
			new Column("sending", "Sending"), new Column("failed", "Failed"), new Column("inDoubt", "In doubt"),
			new Column("dead", "Dead"), new Column("oldestPending", "Oldest pending"));

	private static final Listing<DeliveryEntry, DeliveryState> LISTING = new Listing<>(DeliveryState.class, DeliveryEntry::id, DeliveryEntry::state,
			List.of(new Listed("IN_DOUBT", "In-doubt deliveries (sent or not? check at the destination)", IN_DOUBT_ACTIONS),
					new Listed("DEAD", "Dead deliveries", DEAD_ACTIONS), new Listed("FAILED", "Failed deliveries (waiting for a retry)"),
					new Listed("PENDING", "Pending deliveries"), new Listed("SENDING", "Deliveries being sent")),
			List.of(new Column("destination", "Destination"), new Column("idempotencyKey", "Idempotency key"),
					new Column("attempts", "Attempts"), new Column("createdAt", "Created")),
			new Words("delivery", "deliveries", "Delivery", "purged, or never there", "Destination", "Idempotency key"));

	private final DeliveryGuard guard;

	private final Duration inDoubtAfter;

	private final Clock clock;

	private final StatsCache<List<DeliveryStats>> stats;

	/**
	 * Creates the section.
	 * @param guard the delivery guard
	 * @param sanitizer what it shows of error texts
	 * @param pageSize the entries of a page on the console
	 * @param inDoubtAfter how long after it was stored an in-doubt delivery is an error (a warning before)
	 * @param clock the time
	 */
	public DeliverySection(DeliveryGuard guard, PollingValueSanitizer sanitizer, int pageSize, Duration inDoubtAfter, Clock clock) {
		super(LISTING, (id) -> guard.admin().entry(id), sanitizer, pageSize);
		this.guard = guard;
		this.inDoubtAfter = inDoubtAfter;
		this.clock = clock;
		this.stats = new StatsCache<>(() -> guard.admin().stats());
	}

	@Override
	public String kind() {
		return "deliveries";
	}

	@Override
	public View view(boolean shown) {
		List<Map<String, Object>> rows = new ArrayList<>();
		for (DeliveryStats s : this.stats.get()) {
			Map<String, Object> row = new LinkedHashMap<>();
			row.put("destination", s.destination());
			row.put("pending", s.pending());
			row.put("sending", s.sending());
			row.put("failed", s.failed());
			row.put("inDoubt", s.inDoubt());
			row.put("dead", s.dead());
			row.put("oldestPending", seconds(s.oldestPending()));
			rows.add(row);
		}
		return new View(kind(), "Delivery guard", STATS, rows,
				List.of(firstPage("IN_DOUBT", shown), firstPage("DEAD", shown)),
				new Bulk(RETRY_DEAD, "destination", "dead", "Retry all dead"));
	}

	@Override
	List<DeliveryEntry> page(DeliveryState state, @Nullable String group, @Nullable String key, long afterId, int limit) {
		return this.guard.admin().entries(DeliveryQuery.of(state).withDestination(group).withIdempotencyKey(key)
			.withAfterId(afterId).withLimit(limit));
	}

	@Override
	public List<ConsoleProblems.Problem> problems(View view) {
		List<ConsoleProblems.Problem> problems = new ArrayList<>();
		Instant oldestInDoubt = view.lists().stream()
			.filter((l) -> l.state().equals("IN_DOUBT") && !l.entries().isEmpty())
			.map((l) -> Instant.parse((String) l.entries().get(0).get("createdAt")))
			.findFirst()
			.orElse(null);
		for (Map<String, Object> row : view.stats()) {
			long inDoubt = (Long) row.get("inDoubt");
			long dead = (Long) row.get("dead");
			if (inDoubt > 0) {
				boolean old = oldestInDoubt != null && Duration.between(oldestInDoubt, this.clock.instant()).compareTo(this.inDoubtAfter) > 0;
				problems.add(new ConsoleProblems.Problem(old ? "error" : "warning", "destination " + row.get("destination"),
						"in-doubt-deliveries", inDoubt + " in-doubt deliver" + ((inDoubt == 1) ? "y" : "ies") + " to "
								+ row.get("destination") + ": a send was cut off and nobody knows whether it arrived"
								+ (old ? "; the oldest was stored more than " + minutes(this.inDoubtAfter) + " ago" : ""),
						"Look each one up at the destination by its idempotency key; resolve it as delivered when it arrived, "
								+ "else as resend."));
			}
			if (dead > 0) {
				problems.add(new ConsoleProblems.Problem("warning", "destination " + row.get("destination"), "dead-deliveries",
						dead + " dead deliver" + ((dead == 1) ? "y" : "ies") + " to " + row.get("destination"),
						"Read the last error below; fix the destination, then retry them (one by one, or all of the destination at once)."));
			}
		}
		return problems;
	}

	private static String minutes(Duration duration) {
		return (duration.toSeconds() % 60 == 0) ? duration.toMinutes() + " min" : duration.toSeconds() + " s";
	}

	@Override
	public String fingerprint() {
		StringBuilder text = new StringBuilder();
		for (DeliveryStats s : this.stats.get()) {
			text.append(s.destination()).append(s.pending()).append('/').append(s.failed()).append('/').append(s.inDoubt())
				.append('/').append(s.dead()).append(';');
		}
		return text.toString();
	}

	@Override
	public Outcome bulk(String action, String group, long confirmedCount) {
		return BulkRetries.run(action, "deliveries", group, confirmedCount,
				() -> this.guard.admin().retryAllDead(group, confirmedCount), this.stats::forget,
				new BulkRetries.Words("Destination", "dead delivery", "dead deliveries", "to"));
	}

	@Override
	Outcome act(long deliveryId, DeliveryEntry entry, String action) {
		DeliveryState needed = action.equals("retry") ? DeliveryState.DEAD : DeliveryState.IN_DOUBT;
		if (entry.state() != needed) {
			return new Outcome(409, "Delivery " + deliveryId + " is " + entry.state() + ", not " + needed + ": '" + action
					+ "' needs " + needed + "; nothing changed", List.of());
		}
		boolean done = switch (action) {
			case "delivered" -> this.guard.admin().resolve(deliveryId, Resolution.DELIVERED);
			case "resend" -> this.guard.admin().resolve(deliveryId, Resolution.RESEND);
			default -> this.guard.admin().retryDead(deliveryId);
		};
		this.stats.forget();
		if (!done) {
			return new Outcome(409, "Delivery " + deliveryId + " is no longer " + needed + " (acted on meanwhile); nothing changed",
					List.of());
		}
		return Outcome.done("delivery " + deliveryId + " to " + entry.destination() + ": "
				+ (action.equals("retry") ? "retried" : "resolved as " + action));
	}

	@Override
	Map<String, Object> row(DeliveryEntry e, boolean shown) {
		Map<String, Object> row = row(e.id());
		row.put("destination", e.destination());
		row.put("idempotencyKey", e.idempotencyKey());
		row.put("attempts", e.attempts() + "/" + e.maxAttempts());
		row.put("createdAt", e.createdAt().toString());
		row.put("lastError", lastError(e.lastError(), shown));
		return row;
	}

}
