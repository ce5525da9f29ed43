package dev.polling.console.jdbc;

import java.time.Duration;
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
import dev.polling.jdbc.queue.BlockedKey;
import dev.polling.jdbc.queue.MessageState;
import dev.polling.jdbc.queue.QueueEntry;
import dev.polling.jdbc.queue.QueueQuery;
import dev.polling.jdbc.queue.QueueStats;
import dev.polling.jdbc.queue.WorkQueue;

/**
 * The work queue in the console: counts by state per queue, messages by state with filters (queue,
 * business key) and keyset paging, one message's detail, retry and discard of a dead message, and
 * "retry all dead of queue X" with a confirmed count, all through {@link WorkQueue#admin()} (which
 * acts only on a message that is DEAD). Problems: dead messages, and keys stuck behind a failed or
 * dead message.
 */
public final class QueueSection implements ConsoleSection {

	static final List<String> ACTIONS = List.of("retry", "discard");

	static final String RETRY_DEAD = BulkRetries.RETRY_DEAD;

	/** The states an operator lists; dead first (they need a human), then what waits. */
	static final List<String> STATES = List.of("DEAD", "FAILED", "BLOCKED", "NEW", "IN_PROGRESS");

	private static final List<Column> STATS = List.of(new Column("queue", "Queue"), new Column("ready", "Ready"),
			new Column("blocked", "Blocked"), new Column("inProgress", "In progress"), new Column("failed", "Failed"),
			new Column("dead", "Dead"), new Column("oldestWaiting", "Oldest waiting"));

	private static final List<Column> ENTRY = List.of(new Column("id", "Id"), new Column("queue", "Queue"),
			new Column("businessKey", "Key"), new Column("attempts", "Attempts"), new Column("enqueuedAt", "Enqueued"),
			new Column("lastError", "Last error"));

	private static final List<Column> FILTERS = List.of(new Column("group", "Queue"), new Column("key", "Business key"));

	private final WorkQueue queue;

	private final PollingValueSanitizer sanitizer;

	private final int pageSize;

	private final StatsCache<Snapshot> stats;

	/**
	 * Creates the section.
	 * @param queue the work queue
	 * @param sanitizer what it shows of error texts
	 * @param pageSize the entries of a page on the console
	 */
	public QueueSection(WorkQueue queue, PollingValueSanitizer sanitizer, int pageSize) {
		this.queue = queue;
		this.sanitizer = sanitizer;
		this.pageSize = pageSize;
		this.stats = new StatsCache<>(this::snapshot);
	}

	/** The counts, and the stuck keys when some message failed (only then can a key be stuck). */
	private Snapshot snapshot() {
		List<QueueStats> counts = this.queue.admin().stats();
		boolean failing = counts.stream().anyMatch((s) -> s.failed() + s.dead() > 0);
		return new Snapshot(counts, failing ? this.queue.admin().blockedKeys(QueueQuery.MAX_LIMIT) : List.of());
	}

	private record Snapshot(List<QueueStats> counts, List<BlockedKey> blockedKeys) {
	}

	@Override
	public String kind() {
		return "messages";
	}

	@Override
	public View view(boolean shown) {
		Snapshot snapshot = this.stats.get();
		List<Map<String, Object>> rows = new ArrayList<>();
		for (QueueStats s : snapshot.counts()) {
			Map<String, Object> row = new LinkedHashMap<>();
			row.put("queue", s.queue());
			row.put("ready", s.ready());
			row.put("blocked", s.blocked());
			row.put("inProgress", s.inProgress());
			row.put("failed", s.failed());
			row.put("dead", s.dead());
			row.put("oldestWaiting", seconds(s.oldestWaiting()));
			row.put("stuckKeys", snapshot.blockedKeys().stream().filter((k) -> k.queue().equals(s.queue()) && k.waiting() > 0).count());
			rows.add(row);
		}
		return new View(kind(), "Work queue", STATS, rows, List.of(entries("DEAD", null, null, 0, this.pageSize, shown)),
				new Bulk(RETRY_DEAD, "queue", "dead", "Retry all dead"));
	}

	@Override
	public EntryList entries(String state, @Nullable String group, @Nullable String key, long afterId, int limit, boolean shown) {
		MessageState listed = state(state);
		QueueQuery query = QueueQuery.of(listed).withQueue(blankToNull(group)).withBusinessKey(blankToNull(key)).withAfterId(afterId)
			.withLimit(limit);
		List<QueueEntry> page = this.queue.admin().entries(query);
		Long next = (page.size() == limit) ? page.get(page.size() - 1).id() : null;
		List<String> states = new ArrayList<>(List.of(listed.name()));
		STATES.stream().filter((s) -> !s.equals(listed.name())).forEach(states::add);
		return new EntryList(title(listed), listed.name(), ENTRY, page.stream().map((e) -> row(e, shown)).toList(), limit,
				(listed == MessageState.DEAD) ? ACTIONS : List.of(), FILTERS, next, states);
	}

	private static String title(MessageState state) {
		return switch (state) {
			case DEAD -> "Dead messages";
			case FAILED -> "Failed messages (waiting for a retry)";
			case BLOCKED -> "Blocked messages (waiting behind their key)";
			case NEW -> "New messages";
			case IN_PROGRESS -> "Messages in progress";
			default -> state.name();
		};
	}

	static MessageState state(String state) {
		if (state == null || !STATES.contains(state.toUpperCase(Locale.ROOT))) {
			throw new IllegalArgumentException("Unknown state '" + state + "' for queue messages; list one of " + STATES);
		}
		return MessageState.valueOf(state.toUpperCase(Locale.ROOT));
	}

	@Override
	public Optional<Map<String, Object>> entry(long id, boolean shown) {
		return this.queue.admin().entry(id).map((e) -> {
			Map<String, Object> row = row(e, shown);
			row.put("state", e.state().name());
			row.put("owner", e.owner());
			return row;
		});
	}

	@Override
	public List<ConsoleProblems.Problem> problems(View view) {
		List<ConsoleProblems.Problem> problems = new ArrayList<>();
		for (Map<String, Object> row : view.stats()) {
			long dead = (Long) row.get("dead");
			long stuck = (Long) row.get("stuckKeys");
			if (dead > 0) {
				problems.add(new ConsoleProblems.Problem("warning", "queue " + row.get("queue"), "dead-messages",
						dead + " dead message" + ((dead == 1) ? "" : "s") + " in queue " + row.get("queue")
								+ " (their keys' later messages wait)",
						"Read the last error in the list of dead messages below; fix the cause, then retry them (one by one, or "
								+ "all of the queue at once), or discard those that must not be processed."));
			}
			if (stuck > 0) {
				problems.add(new ConsoleProblems.Problem("warning", "queue " + row.get("queue"), "stuck-keys",
						stuck + " business key" + ((stuck == 1) ? "" : "s") + " in queue " + row.get("queue")
								+ " stuck behind a failed or dead message (later messages of the key wait)",
						"List the blocked messages (state BLOCKED) to see which keys; a failed head is retried by itself, a dead "
								+ "one needs a retry or discard."));
			}
		}
		return problems;
	}

	@Override
	public String fingerprint() {
		StringBuilder text = new StringBuilder();
		for (QueueStats s : this.stats.get().counts()) {
			text.append(s.queue()).append(s.ready()).append('/').append(s.blocked()).append('/').append(s.inProgress()).append('/')
				.append(s.failed()).append('/').append(s.dead()).append(';');
		}
		return text.toString();
	}

	@Override
	public Outcome bulk(String action, String group, long confirmedCount) {
		return BulkRetries.run(action, "queue messages", group, confirmedCount,
				() -> this.queue.admin().retryAllDead(group, confirmedCount), this.stats::forget,
				new BulkRetries.Words("Queue", "dead message", "dead messages", "of queue"));
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

	static @Nullable String blankToNull(@Nullable String value) {
		return (value == null || value.isBlank()) ? null : value.strip();
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
