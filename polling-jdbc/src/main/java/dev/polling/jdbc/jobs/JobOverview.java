package dev.polling.jdbc.jobs;

import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * The open jobs with the overdue ones, for an operator ("N jobs overdue, the oldest due since T"):
 * a job is overdue when it is SCHEDULED and its due time passed more than the grace ago, that is
 * the dispatcher is not running, not keeping up, or failing to dispatch it (a job whose dispatch is
 * retried after a backoff counts too). Times are database time.
 *
 * @param counts the counts of {@link JobScheduler#stats()}
 * @param grace how long after its due time a scheduled job counts as overdue
 * @param overdue scheduled jobs due longer ago than the grace
 * @param oldestOverdueDueAt the due time of the oldest overdue job, or {@code null} if none is
 * @param oldestOverdueAge how long ago that was, or {@code null} if no job is overdue
 */
public record JobOverview(JobScheduler.JobStats counts, Duration grace, long overdue,
		@Nullable Instant oldestOverdueDueAt, @Nullable Duration oldestOverdueAge) {
}
