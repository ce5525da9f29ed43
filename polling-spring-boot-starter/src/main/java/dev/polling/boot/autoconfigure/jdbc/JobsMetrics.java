package dev.polling.boot.autoconfigure.jdbc;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;

import dev.polling.jdbc.jobs.JobScheduler;
import dev.polling.jdbc.jobs.JobScheduler.DispatchResult;

/**
 * Meters of the scheduled jobs, fed by the {@link JobDispatcherLifecycle}:
 * <ul>
 * <li>{@code polling.jobs.dispatched} (counter): jobs moved into the work queue</li>
 * <li>{@code polling.jobs.postponed} (counter): dispatches that failed; the job stays scheduled and is
 * tried again after a backoff</li>
 * <li>{@code polling.jobs.start.delay} (timer): from a job's due time to its move into the queue</li>
 * <li>{@code polling.jobs.due} (gauge): due jobs not yet moved, as of the last dispatch round on this
 * instance</li>
 * </ul>
 */
public final class JobsMetrics implements MeterBinder {

	private final ObjectProvider<JobScheduler> scheduler;

	private final AtomicLong due = new AtomicLong();

	private volatile @Nullable Counter dispatched;

	private volatile @Nullable Counter postponed;

	private volatile @Nullable Timer startDelay;

	JobsMetrics(ObjectProvider<JobScheduler> scheduler) {
		this.scheduler = scheduler;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		this.dispatched = Counter.builder("polling.jobs.dispatched").description("Jobs moved into the work queue").register(registry);
		this.postponed = Counter.builder("polling.jobs.postponed")
			.description("Dispatches that failed; the job is tried again after a backoff")
			.register(registry);
		this.startDelay = Timer.builder("polling.jobs.start.delay").description("Time from a job's due time to its move into the queue")
			.register(registry);
		Gauge.builder("polling.jobs.due", this.due, AtomicLong::get).description("Due jobs not yet moved").register(registry);
	}

	void record(DispatchResult result) {
		Counter d = this.dispatched;
		Counter f = this.postponed;
		Timer t = this.startDelay;
		if (d != null && f != null && t != null) {
			d.increment(result.dispatched());
			f.increment(result.postponed());
			result.startDelaysMillis().forEach((millis) -> t.record(millis, TimeUnit.MILLISECONDS));
		}
		if (result.dispatched() + result.postponed() == 0) {
			JobScheduler jobs = this.scheduler.getIfAvailable();
			if (jobs != null) {
				this.due.set(jobs.stats().dueBacklog());
			}
		}
	}

}
