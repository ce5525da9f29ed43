package dev.polling.console.jdbc;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

import dev.polling.boot.actuate.PollingValueSanitizer;
import dev.polling.console.ConsoleProblems;
import dev.polling.console.ConsoleSection;
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
public final class DeliverySection implements ConsoleSection {

	static final List<String> IN_DOUBT_ACTIONS = List.of("delivered", "resend");

	static final List<String> DEAD_ACTIONS = List.of("retry");

	static final String RETRY_DEAD = BulkRetries.RETRY_DEAD;

	private static final List<String> ACTIONS = List.of("delivered", "resend", "retry");

	static final List<String> STATES = List.of("IN_DOUBT", "DEAD", "FAILED", "PENDING", "SENDING");

	private static final List<Column> STATS = List.of(new Column("destination", "Destination"), new Column("pending", "Pending"),
			new Column("sending", "Sending"), new Column("failed", "Failed"), new Column("inDoubt", "In doubt"),
			new Column("dead", "Dead"), new Column("oldestPending", "Oldest pending"));

	private static final List<Column> ENTRY = List.of(new Column("id", "Id"), new Column("destination", "Destination"),
			new Column("idempotencyKey", "Idempotency key"), new Column("attempts", "Attempts"), new Column("createdAt", "Created"),
			new Column("lastError", "Last error"));

	private static final List<Column> FILTERS = List.of(new Column("group", "Destination"), new Column("key", "Idempotency key"));

	private final DeliveryGuard guard;

	private final PollingValueSanitizer sanitizer;

	private final int pageSize;

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
		this.guard = guard;
		this.sanitizer = sanitizer;
		this.pageSize = pageSize;
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
			row.put("oldestPending", QueueSection.seconds(s.oldestPending()));
			rows.add(row);
		}
		return new View(kind(), "Delivery guard", STATS, rows,
				List.of(entries("IN_DOUBT", null, null, 0, this.pageSize, shown), entries("DEAD", null, null, 0, this.pageSize, shown)),
				new Bulk(RETRY_DEAD, "destination", "dead", "Retry all dead"));
	}

	@Override
	public EntryList entries(String state, @Nullable String group, @Nullable String key, long afterId, int limit, boolean shown) {
		DeliveryState listed = state(state);
		DeliveryQuery query = DeliveryQuery.of(listed).withDestination(QueueSection.blankToNull(group))
			.withIdempotencyKey(QueueSection.blankToNull(key)).withAfterId(afterId).withLimit(limit);
		List<DeliveryEntry> page = this.guard.admin().entries(query);
		Long next = (page.size() == limit) ? page.get(page.size() - 1).id() : null;
		List<String> states = new ArrayList<>(List.of(listed.name()));
		STATES.stream().filter((s) -> !s.equals(listed.name())).forEach(states::add);
		List<String> actions = switch (listed) {
			case IN_DOUBT -> IN_DOUBT_ACTIONS;
			case DEAD -> DEAD_ACTIONS;
			default -> List.of();
		};
		return new EntryList(title(listed), listed.name(), ENTRY, page.stream().map((e) -> row(e, shown)).toList(), limit, actions,
				FILTERS, next, states);
	}

	private static String title(DeliveryState state) {
		return switch (state) {
			case IN_DOUBT -> "In-doubt deliveries (sent or not? check at the destination)";
			case DEAD -> "Dead deliveries";
			case FAILED -> "Failed deliveries (waiting for a retry)";
			case PENDING -> "Pending deliveries";
			case SENDING -> "Deliveries being sent";
			default -> state.name();
		};
	}

	static DeliveryState state(String state) {
		if (state == null || !STATES.contains(state.toUpperCase(Locale.ROOT))) {
			throw new IllegalArgumentException("Unknown state '" + state + "' for deliveries; list one of " + STATES);
		}
		return DeliveryState.valueOf(state.toUpperCase(Locale.ROOT));
	}

	@Override
	public Optional<Map<String, Object>> entry(long id, boolean shown) {
		return this.guard.admin().entry(id).map((e) -> {
			Map<String, Object> row = row(e, shown);
			row.put("state", e.state().name());
			return row;
		});
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
	public Outcome act(String id, String action) {
		if (!ACTIONS.contains(action)) {
			return new Outcome(400, "Unknown action '" + action + "' for a delivery", ACTIONS);
		}
		Long deliveryId = QueueSection.parse(id);
		if (deliveryId == null) {
			return new Outcome(400, "Delivery id '" + id + "' is not a number", List.of());
		}
		Optional<DeliveryEntry> entry = this.guard.admin().entry(deliveryId);
		if (entry.isEmpty()) {
			return new Outcome(404, "Unknown delivery " + deliveryId + " (purged, or never there)", List.of());
		}
		DeliveryState needed = action.equals("retry") ? DeliveryState.DEAD : DeliveryState.IN_DOUBT;
		if (entry.get().state() != needed) {
			return new Outcome(409, "Delivery " + deliveryId + " is " + entry.get().state() + ", not " + needed + ": '" + action
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
		return Outcome.done("delivery " + deliveryId + " to " + entry.get().destination() + ": "
				+ (action.equals("retry") ? "retried" : "resolved as " + action));
	}

	private Map<String, Object> row(DeliveryEntry e, boolean shown) {
		Map<String, Object> row = new LinkedHashMap<>();
		row.put("id", e.id());
		row.put("destination", e.destination());
		row.put("idempotencyKey", e.idempotencyKey());
		row.put("attempts", e.attempts() + "/" + e.maxAttempts());
		row.put("createdAt", e.createdAt().toString());
		row.put("lastError", this.sanitizer.sanitize("lastError", e.lastError(), shown));
		return row;
	}

}
