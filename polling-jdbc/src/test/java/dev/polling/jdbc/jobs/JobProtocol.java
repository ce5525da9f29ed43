package dev.polling.jdbc.jobs;

import dev.polling.jdbc.jobs.JobScheduler.DispatchResult;
import dev.polling.jdbc.queue.WorkQueue;

/**
 * The dispatch of {@link JobScheduler} (package-private, run by the {@link JobDispatcher}) for the
 * tests of other packages that move due jobs by hand.
 */
public final class JobProtocol {

	private JobProtocol() {
	}

	public static DispatchResult dispatchDue(JobScheduler scheduler, WorkQueue queue, int limit) {
		return scheduler.dispatchDue(queue, limit);
	}

}
