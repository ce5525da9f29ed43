package dev.polling.console.jdbc;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.polling.boot.actuate.PollingValueSanitizer;
import dev.polling.console.ConsoleProblems;
import dev.polling.console.ConsoleSection;
import dev.polling.jdbc.delivery.DeliveryEntry;
import dev.polling.jdbc.delivery.DeliveryGuard;
import dev.polling.jdbc.delivery.DeliveryState;
import dev.polling.jdbc.delivery.DeliveryStats;
import dev.polling.jdbc.delivery.Resolution;

/**
 * The delivery guard in the console: counts by state per destination, the in-doubt deliveries to
 * resolve (delivered, or resend with the same idempotency key) and the dead ones to retry, all
 * through {@link DeliveryGuard#admin()}, which acts only on an entry in the state the action needs.
 */
public final class DeliverySection implements ConsoleSection {

	static final List<String> IN_DOUBT_ACTIONS = List.of("delivered", "resend");

	static final List<String> DEAD_ACTIONS = List.of("retry");

	private static final List<String> ACTIONS = List.of("delivered", "resend", "retry");

	private static final List<Column> STATS = List.of(new Column("destination", "Destination"), new Column("pending", "Pending"),
			new Column("sending", "Sending"), new Column("failed", "Failed"), new Column("inDoubt", "In doubt"),
			new Column("dead", "Dead"), new Column("oldestPending", "Oldest pending"));

	private static final List<Column> ENTRY = List.of(new Column("id", "Id"), new Column("destination", "Destination"),
			new Column("idempotencyKey", "Idempotency key"), new Column("attempts", "Attempts"), new Column("createdAt", "Created"),
			new Column("lastError", "Last error"));

	private final DeliveryGuard guard;

	private final PollingValueSanitizer sanitizer;

	private final StatsCache<List<DeliveryStats>> stats;

	public DeliverySection(DeliveryGuard guard, PollingValueSanitizer sanitizer) {
		this.guard = guard;
		this.sanitizer = sanitizer;
		this.stats = new StatsCache<>(() -> guard.admin().stats());
	}

	@Override
	public String kind() {
		return "deliveries";
	}

	@Override
	public View view(boolean shown) {
		List<Map<String, Object>> stats = new ArrayList<>();
		for (DeliveryStats s : this.stats.get()) {
			Map<String, Object> row = new LinkedHashMap<>();
			row.put("destination", s.destination());
			row.put("pending", s.pending());
			row.put("sending", s.sending());
			row.put("failed", s.failed());
			row.put("inDoubt", s.inDoubt());
			row.put("dead", s.dead());
			row.put("oldestPending", QueueSection.seconds(s.oldestPending()));
			stats.add(row);
		}
		return new View(kind(), "Delivery guard", STATS, stats, List.of(
				new EntryList("In-doubt deliveries (sent or not? check at the destination)", "IN_DOUBT", ENTRY,
						entries(DeliveryState.IN_DOUBT, shown), QueueSection.LIMIT, IN_DOUBT_ACTIONS),
				new EntryList("Dead deliveries", "DEAD", ENTRY, entries(DeliveryState.DEAD, shown), QueueSection.LIMIT, DEAD_ACTIONS)));
	}

	private List<Map<String, Object>> entries(DeliveryState state, boolean shown) {
		return this.guard.admin().entries(state, QueueSection.LIMIT).stream().map((e) -> row(e, shown)).toList();
	}

	@Override
	public List<ConsoleProblems.Problem> problems(View view) {
		List<ConsoleProblems.Problem> problems = new ArrayList<>();
		for (Map<String, Object> row : view.stats()) {
			long inDoubt = (Long) row.get("inDoubt");
			long dead = (Long) row.get("dead");
			if (inDoubt > 0) {
				problems.add(new ConsoleProblems.Problem("error", "destination " + row.get("destination"), "in-doubt-deliveries",
						inDoubt + " in-doubt deliver" + ((inDoubt == 1) ? "y" : "ies") + " to " + row.get("destination")
								+ ": a send was cut off and nobody knows whether it arrived",
						"Look each one up at the destination by its idempotency key; resolve it as delivered when it arrived, "
								+ "else as resend."));
			}
			if (dead > 0) {
				problems.add(new ConsoleProblems.Problem("warning", "destination " + row.get("destination"), "dead-deliveries",
						dead + " dead deliver" + ((dead == 1) ? "y" : "ies") + " to " + row.get("destination"),
						"Read the last error below; fix the destination, then retry them."));
			}
		}
		return problems;
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
