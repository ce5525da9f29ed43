package dev.polling.console.jdbc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

import dev.polling.boot.actuate.PollingValueSanitizer;
import dev.polling.console.ConsoleProblems;
import dev.polling.console.ConsoleSection;
import dev.polling.jdbc.queue.MessageState;
import dev.polling.jdbc.queue.QueueEntry;
import dev.polling.jdbc.queue.QueueStats;
import dev.polling.jdbc.queue.WorkQueue;

/**
 * The work queue in the console: counts by state per queue, the oldest dead messages with retry and
 * discard (through {@link WorkQueue#admin()}, which acts only on a message that is DEAD).
 */
public final class QueueSection implements ConsoleSection {

	static final int LIMIT = 100;

	static final List<String> ACTIONS = List.of("retry", "discard");

	private static final List<Column> STATS = List.of(new Column("queue", "Queue"), new Column("ready", "Ready"),
			new Column("blocked", "Blocked"), new Column("inProgress", "In progress"), new Column("failed", "Failed"),
			new Column("dead", "Dead"), new Column("oldestWaiting", "Oldest waiting"));

	private static final List<Column> ENTRY = List.of(new Column("id", "Id"), new Column("queue", "Queue"),
			new Column("businessKey", "Key"), new Column("attempts", "Attempts"), new Column("enqueuedAt", "Enqueued"),
			new Column("lastError", "Last error"));

	private final WorkQueue queue;

	private final PollingValueSanitizer sanitizer;

	private final StatsCache<List<QueueStats>> stats;

	public QueueSection(WorkQueue queue, PollingValueSanitizer sanitizer) {
		this.queue = queue;
		this.sanitizer = sanitizer;
		this.stats = new StatsCache<>(() -> queue.admin().stats());
	}

	@Override
	public String kind() {
		return "messages";
	}

	@Override
	public View view(boolean shown) {
		List<Map<String, Object>> stats = new ArrayList<>();
		for (QueueStats s : this.stats.get()) {
			Map<String, Object> row = new LinkedHashMap<>();
			row.put("queue", s.queue());
			row.put("ready", s.ready());
			row.put("blocked", s.blocked());
			row.put("inProgress", s.inProgress());
			row.put("failed", s.failed());
			row.put("dead", s.dead());
			row.put("oldestWaiting", seconds(s.oldestWaiting()));
			stats.add(row);
		}
		List<Map<String, Object>> dead = this.queue.admin().entries(MessageState.DEAD, LIMIT).stream().map((e) -> row(e, shown)).toList();
		return new View(kind(), "Work queue", STATS, stats,
				List.of(new EntryList("Dead messages", "DEAD", ENTRY, dead, LIMIT, ACTIONS)));
	}

	@Override
	public List<ConsoleProblems.Problem> problems(View view) {
		List<ConsoleProblems.Problem> problems = new ArrayList<>();
		for (Map<String, Object> row : view.stats()) {
			long dead = (Long) row.get("dead");
			if (dead > 0) {
				problems.add(new ConsoleProblems.Problem("warning", "queue " + row.get("queue"), "dead-messages",
						dead + " dead message" + ((dead == 1) ? "" : "s") + " in queue " + row.get("queue")
								+ " (their keys' later messages wait)",
						"Read the last error in the list of dead messages below; fix the cause, then retry them, or discard "
								+ "those that must not be processed."));
			}
		}
		return problems;
	}

	@Override
	public String fingerprint() {
		StringBuilder text = new StringBuilder();
		for (QueueStats s : this.stats.get()) {
			text.append(s.queue()).append(s.ready()).append('/').append(s.inProgress()).append('/').append(s.failed()).append('/')
				.append(s.dead()).append(';');
		}
		return text.toString();
	}

	@Override
	public Outcome act(String id, String action) {
		if (!ACTIONS.contains(action)) {
			return new Outcome(400, "Unknown action '" + action + "' for a queue message", ACTIONS);
		}
		Long messageId = parse(id);
		if (messageId == null) {
			return new Outcome(400, "Message id '" + id + "' is not a number", List.of());
		}
		Optional<QueueEntry> entry = this.queue.admin().entry(messageId);
		if (entry.isEmpty()) {
			return new Outcome(404, "Unknown queue message " + messageId + " (processed and purged, discarded, or never there)",
					List.of());
		}
		if (entry.get().state() != MessageState.DEAD) {
			return new Outcome(409, "Message " + messageId + " is " + entry.get().state()
					+ ", not DEAD: only dead messages can be retried or discarded; nothing changed", List.of());
		}
		boolean done = action.equals("retry") ? this.queue.admin().retry(messageId) : this.queue.admin().discard(messageId);
		this.stats.forget();
		if (!done) {
			return new Outcome(409, "Message " + messageId + " is no longer DEAD (retried or discarded meanwhile); nothing changed",
					List.of());
		}
		return Outcome.done(action.equals("retry") ? "message " + messageId + " of queue " + entry.get().queue() + " retried"
				: "message " + messageId + " of queue " + entry.get().queue() + " discarded");
	}

	private Map<String, Object> row(QueueEntry e, boolean shown) {
		Map<String, Object> row = new LinkedHashMap<>();
		row.put("id", e.id());
		row.put("queue", e.queue());
		row.put("businessKey", e.businessKey());
		row.put("attempts", e.attempts() + "/" + e.maxAttempts());
		row.put("enqueuedAt", e.enqueuedAt().toString());
		row.put("lastError", this.sanitizer.sanitize("lastError", e.lastError(), shown));
		return row;
	}

	static @Nullable Long parse(String id) {
		try {
			return Long.parseLong(id);
		}
		catch (NumberFormatException ex) {
			return null;
		}
	}

	static @Nullable String seconds(@Nullable Duration duration) {
		return (duration != null) ? duration.toSeconds() + " s" : null;
	}

}
