package dev.polling.console.jdbc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import dev.polling.boot.actuate.PollingValueSanitizer;
import dev.polling.console.ConsoleProblems;
import dev.polling.jdbc.jobs.JobEntry;
import dev.polling.jdbc.jobs.JobOverview;
import dev.polling.jdbc.jobs.JobQuery;
import dev.polling.jdbc.jobs.JobScheduler;
import dev.polling.jdbc.jobs.JobState;
import dev.polling.jdbc.queue.WorkQueue;

/**
 * The scheduled jobs in the console: counts (scheduled, due, retrying, failed, overdue), jobs by state
 * with filters (queue, business id) and keyset paging, one job's detail, and the requeue of a failed
 * job, all through {@link JobScheduler#admin()}. Problems: jobs overdue (due longer ago than the
 * grace: the dispatcher is not running or not keeping up) and failed jobs.
 */
public final class JobSection extends EntrySection<JobEntry, JobState> {

	static final List<String> ACTIONS = List.of("requeue");

	private static final List<Column> STATS = List.of(new Column("scheduled", "Scheduled"), new Column("due", "Due"),
			new Column("retrying", "Retrying"), new Column("failed", "Failed"), new Column("overdue", "Overdue"),
			new Column("oldestOverdue", "Oldest overdue"));

	private static final Listing<JobEntry, JobState> LISTING = new Listing<>(JobState.class, JobEntry::id, JobEntry::state,
			List.of(new Listed("FAILED", "Failed jobs (their handler failed for good)", ACTIONS),
					new Listed("SCHEDULED", "Scheduled jobs"), new Listed("DISPATCHED", "Dispatched jobs"),
					new Listed("CANCELLED", "Cancelled jobs")),
			List.of(new Column("queue", "Queue"), new Column("businessId", "Business id"), new Column("dueAt", "Due"),
					new Column("attempts", "Attempts")),
			new Words("job", "jobs", "Job", "purged, or never there", "Queue", "Business id"));

	private final JobScheduler scheduler;

	private final WorkQueue queue;

	private final Duration overdueAfter;

	private final @Nullable String dispatchCluster;

	private final StatsCache<JobOverview> stats;

	/**
	 * Creates the section.
	 * @param scheduler the job scheduler
	 * @param queue the work queue its jobs go to (a requeue retries a failed job's message there)
	 * @param sanitizer what it shows of error texts
	 * @param pageSize the entries of a page on the console
	 * @param overdueAfter how long after its due time a scheduled job is overdue
	 * @param dispatchCluster the polling cluster whose holder dispatches the jobs, if one is configured
	 */
	public JobSection(JobScheduler scheduler, WorkQueue queue, PollingValueSanitizer sanitizer, int pageSize, Duration overdueAfter,
			@Nullable String dispatchCluster) {
		super(LISTING, (id) -> scheduler.admin().entry(id), sanitizer, pageSize);
		this.scheduler = scheduler;
		this.queue = queue;
		this.overdueAfter = overdueAfter;
		this.dispatchCluster = dispatchCluster;
		this.stats = new StatsCache<>(() -> scheduler.admin().stats(overdueAfter));
	}

	@Override
	public String kind() {
		return "jobs";
	}

	@Override
	public View view(boolean shown) {
		JobOverview overview = this.stats.get();
		Map<String, Object> row = new LinkedHashMap<>();
		row.put("scheduled", overview.counts().scheduled());
		row.put("due", overview.counts().dueBacklog());
		row.put("retrying", overview.counts().retrying());
		row.put("failed", overview.counts().failed());
		row.put("overdue", overview.overdue());
		row.put("oldestOverdue", seconds(overview.oldestOverdueAge()));
		return new View(kind(), "Scheduled jobs", STATS, List.of(row), List.of(firstPage("FAILED", shown)),
				null);
	}

	@Override
	List<JobEntry> page(JobState state, @Nullable String group, @Nullable String key, long afterId, int limit) {
		return this.scheduler.admin().entries(JobQuery.of(state).withQueue(group).withBusinessId(key).withAfterId(afterId)
			.withLimit(limit));
	}

	@Override
	void detail(JobEntry e, Map<String, Object> row) {
		row.put("createdAt", e.createdAt().toString());
		row.put("nextAttemptAt", (e.nextAttemptAt() != null) ? e.nextAttemptAt().toString() : null);
		row.put("dispatchedAt", (e.dispatchedAt() != null) ? e.dispatchedAt().toString() : null);
		row.put("messageId", e.messageId());
	}

	@Override
	public List<ConsoleProblems.Problem> problems(View view) {
		List<ConsoleProblems.Problem> problems = new ArrayList<>();
		Map<String, Object> row = view.stats().get(0);
		long overdue = (Long) row.get("overdue");
		long failed = (Long) row.get("failed");
		if (overdue > 0) {
			problems.add(new ConsoleProblems.Problem("error", "jobs", "jobs-overdue",
					overdue + " scheduled job" + ((overdue == 1) ? " is" : "s are") + " overdue (due more than "
							+ this.overdueAfter.toSeconds() + " s ago; the oldest for " + row.get("oldestOverdue") + ")",
					"The job dispatcher is not running or not keeping up: check that one instance holds "
							+ ((this.dispatchCluster != null) ? "cluster '" + this.dispatchCluster + "'" : "the jobs' dispatch lock")
							+ " and is not paused (the clusters above), and read its log for dispatch errors."));
		}
		if (failed > 0) {
			problems.add(new ConsoleProblems.Problem("warning", "jobs", "jobs-failed",
					failed + " failed job" + ((failed == 1) ? "" : "s") + " (the handler failed for good)",
					"Read the last error in the list of failed jobs below; fix the cause, then requeue them."));
		}
		return problems;
	}

	@Override
	public String fingerprint() {
		JobOverview overview = this.stats.get();
		return overview.counts().scheduled() + "/" + overview.counts().dueBacklog() + "/" + overview.counts().failed() + "/"
				+ overview.overdue();
	}

	@Override
	public Outcome bulk(String action, String group, long confirmedCount) {
		return new Outcome(400, "Jobs have no bulk action; requeue failed jobs one by one", List.of());
	}

	@Override
	Outcome act(long jobId, JobEntry entry, String action) {
		if (entry.state() != JobState.FAILED) {
			return new Outcome(409, "Job " + jobId + " is " + entry.state() + ", not FAILED: only failed jobs can be requeued; "
					+ "nothing changed", List.of());
		}
		boolean done = this.scheduler.admin().requeue(this.queue, jobId);
		this.stats.forget();
		if (!done) {
			return new Outcome(409, "Job " + jobId + " is no longer FAILED (requeued meanwhile); nothing changed", List.of());
		}
		return Outcome.done("job " + jobId + " (" + entry.queue() + "/" + entry.businessId() + ") requeued");
	}

	@Override
	Map<String, Object> row(JobEntry e, boolean shown) {
		Map<String, Object> row = row(e.id());
		row.put("queue", e.queue());
		row.put("businessId", e.businessId());
		row.put("dueAt", e.dueAt().toString());
		row.put("attempts", e.attempts());
		row.put("lastError", lastError(e.lastError(), shown));
		return row;
	}

}
