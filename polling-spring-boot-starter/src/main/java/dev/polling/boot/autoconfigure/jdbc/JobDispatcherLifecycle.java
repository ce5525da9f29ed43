package dev.polling.boot.autoconfigure.jdbc;

import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

import dev.polling.core.PollingManager;
import dev.polling.jdbc.HoldCheck;
import dev.polling.jdbc.coordination.JdbcCoordinator;
import dev.polling.jdbc.jobs.DispatchHold;
import dev.polling.jdbc.jobs.JobDispatcher;

/**
 * Starts the {@link JobDispatcher} with the application context and stops it (releasing the
 * dispatcher role) when it closes. One instance dispatches: the holder of
 * {@code polling.jdbc.jobs.cluster} when one is named (through {@link PollingManager#runIfGranted}),
 * else the holder of the role {@value JobDispatcher#DEFAULT_ROLE} in the coordination table.
 */
public final class JobDispatcherLifecycle extends WorkerLifecycle {

	private final JobDispatcher dispatcher;

	/**
	 * @param dispatcher the dispatcher
	 */
	public JobDispatcherLifecycle(JobDispatcher dispatcher) {
		super("polling-job-dispatcher-stop");
		this.dispatcher = dispatcher;
	}

	/**
	 * The hold of a polling cluster: its holder dispatches. When the cluster is coordinated through
	 * the database, every dispatch transaction checks the grant's epoch (fencing); a JMX-coordinated
	 * cluster has no row to check.
	 * @param manager the polling manager
	 * @param cluster the cluster
	 * @param coordinator the database coordinator of the cluster, or {@code null}
	 * @return the hold
	 */
	static DispatchHold clusterHold(PollingManager manager, String cluster, @Nullable JdbcCoordinator coordinator) {
		return new DispatchHold() {

			@Override
			public void runIfHeld(Consumer<HoldCheck> round) {
				manager.runIfGranted(cluster, () -> {
					boolean fenced = coordinator != null && manager.fencingToken(cluster).isPresent();
					round.accept(fenced ? coordinator.holdCheck(manager, cluster) : HoldCheck.NONE);
				});
			}

			@Override
			public void release() {
				// the polling manager releases its clusters
			}

			@Override
			public String toString() {
				return "polling cluster '" + cluster + "'";
			}

		};
	}

	/**
	 * The dispatcher.
	 * @return the dispatcher
	 */
	public JobDispatcher getDispatcher() {
		return this.dispatcher;
	}

	@Override
	public void start() {
		this.dispatcher.start();
	}

	@Override
	public void stop() {
		this.dispatcher.stop();
	}

	@Override
	public boolean isRunning() {
		return this.dispatcher.isRunning();
	}

}
