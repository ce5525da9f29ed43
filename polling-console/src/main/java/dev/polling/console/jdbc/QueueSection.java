package dev.polling.console.jdbc;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import dev.polling.boot.actuate.PollingValueSanitizer;
import dev.polling.console.ConsoleProblems;
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
public final class QueueSection extends EntrySection<QueueEntry, MessageState> {

	static final List<String> ACTIONS = List.of("retry", "discard");

	static final String RETRY_DEAD = BulkRetries.RETRY_DEAD;

	private static final List<Column> STATS = List.of(new Column("queue", "Queue"), new Column("ready", "Ready"),
			new Column("blocked", "Blocked"), new Column("inProgress", "In progress"), new Column("failed", "Failed"),
			new Column("dead", "Dead"), new Column("oldestWaiting", "Oldest waiting"));

	private static final Listing<QueueEntry, MessageState> LISTING = new Listing<>(MessageState.class, QueueEntry::id, QueueEntry::state,
			// dead first (they need a human), then what waits
			List.of(new Listed("DEAD", "Dead messages", ACTIONS), new Listed("FAILED", "Failed messages (waiting for a retry)"),
					new Listed("BLOCKED", "Blocked messages (waiting behind their key)"), new Listed("NEW", "New messages"),
					new Listed("IN_PROGRESS", "Messages in progress")),
			List.of(new Column("queue", "Queue"), new Column("businessKey", "Key"), new Column("attempts", "Attempts"),
					new Column("enqueuedAt", "Enqueued")),
			new Words("queue message", "queue messages", "Message", "processed and purged, discarded, or never there", "Queue",
					"Business key"));

	private final WorkQueue queue;

	private final StatsCache<Snapshot> stats;

	/**
	 * Creates the section.
	 * @param queue the work queue
	 * @param sanitizer what it shows of error texts
	 * @param pageSize the entries of a page on the console
	 */
	public QueueSection(WorkQueue queue, PollingValueSanitizer sanitizer, int pageSize) {
		super(LISTING, (id) -> queue.admin().entry(id), sanitizer, pageSize);
		this.queue = queue;
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
		return new View(kind(), "Work queue", STATS, rows, List.of(firstPage("DEAD", shown)),
				new Bulk(RETRY_DEAD, "queue", "dead", "Retry all dead"));
	}

	@Override
	List<QueueEntry> page(MessageState state, @Nullable String group, @Nullable String key, long afterId, int limit) {
		return this.queue.admin().entries(QueueQuery.of(state).withQueue(group).withBusinessKey(key).withAfterId(afterId)
			.withLimit(limit));
	}

	@Override
	void detail(QueueEntry entry, Map<String, Object> row) {
		row.put("owner", entry.owner());
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
	Outcome act(long messageId, QueueEntry entry, String action) {
		if (entry.state() != MessageState.DEAD) {
			return new Outcome(409, "Message " + messageId + " is " + entry.state()
					+ ", not DEAD: only dead messages can be retried or discarded; nothing changed", List.of());
		}
		boolean done = action.equals("retry") ? this.queue.admin().retry(messageId) : this.queue.admin().discard(messageId);
		this.stats.forget();
		if (!done) {
			return new Outcome(409, "Message " + messageId + " is no longer DEAD (retried or discarded meanwhile); nothing changed",
					List.of());
		}
		return Outcome.done(action.equals("retry") ? "message " + messageId + " of queue " + entry.queue() + " retried"
				: "message " + messageId + " of queue " + entry.queue() + " discarded");
	}

	@Override
	Map<String, Object> row(QueueEntry e, boolean shown) {
		Map<String, Object> row = row(e.id());
		row.put("queue", e.queue());
		row.put("businessKey", e.businessKey());
		row.put("attempts", e.attempts() + "/" + e.maxAttempts());
		row.put("enqueuedAt", e.enqueuedAt().toString());
		row.put("lastError", lastError(e.lastError(), shown));
		return row;
	}

}
