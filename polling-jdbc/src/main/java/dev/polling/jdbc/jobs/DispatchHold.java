package dev.polling.jdbc.jobs;

import dev.polling.core.ClusterCoordinator.Claim;
import dev.polling.core.ClusterDefinition;
import dev.polling.jdbc.HoldCheck;
import dev.polling.jdbc.coordination.JdbcCoordinator;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides which instance dispatches due jobs: the {@link JobDispatcher} runs a round only while
 * its hold grants it, and every dispatch transaction of the round checks the hold first (a
 * {@link HoldCheck}), so an instance that lost it moves nothing more. The default,
 * {@link #database}, is the seed's design: one dispatcher, the holder of a row in the coordination
 * table, which another instance takes over after a failover period of silence.
 */
public interface DispatchHold {

	/**
	 * Runs the round if this instance holds the dispatcher role (acquiring or renewing it first),
	 * with the check its dispatch transactions run.
	 * @param round the dispatch round
	 */
	void runIfHeld(Consumer<HoldCheck> round);

	/**
	 * Lets go of the role, so another instance takes it at its next round. Never throws.
	 */
	void release();

	/**
	 * The role held through a row of the coordination table (see {@link JdbcCoordinator}): the
	 * holder keeps it while it dispatches; another instance takes it over after the failover period.
	 * @param coordinator the coordinator on the application's database
	 * @param roleId the row's id, e.g. {@link JobDispatcher#DEFAULT_ROLE}
	 * @param instanceId this instance, unique among the instances
	 * @param failoverPeriod how long a silent dispatcher keeps the role, at least 10 s
	 * @return the hold
	 */
	static DispatchHold database(JdbcCoordinator coordinator, String roleId, String instanceId, Duration failoverPeriod) {
		return new DatabaseHold(coordinator, ClusterDefinition.of(roleId, failoverPeriod), instanceId);
	}

	/**
	 * Every instance dispatches, without a hold check (rounds still never overlap: see
	 * {@link JobScheduler}); for tests and for applications that run a single instance.
	 */
	DispatchHold EVERY_INSTANCE = new DispatchHold() {

		@Override
		public void runIfHeld(Consumer<HoldCheck> round) {
			round.accept(HoldCheck.NONE);
		}

		@Override
		public void release() {
		}

		@Override
		public String toString() {
			return "every instance";
		}

	};

	/** The role as a row of the coordination table. */
	final class DatabaseHold implements DispatchHold {

		private static final Logger logger = LoggerFactory.getLogger(DatabaseHold.class);

		private final JdbcCoordinator coordinator;

		private final ClusterDefinition role;

		private final String instanceId;

		private volatile boolean held;

		DatabaseHold(JdbcCoordinator coordinator, ClusterDefinition role, String instanceId) {
			this.coordinator = Objects.requireNonNull(coordinator, "coordinator must not be null");
			this.role = role;
			this.instanceId = Objects.requireNonNull(instanceId, "instanceId must not be null");
		}

		@Override
		public void runIfHeld(Consumer<HoldCheck> round) {
			Claim claim = this.coordinator.acquire(this.role, this.instanceId);
			if (claim.granted() != this.held) {
				this.held = claim.granted();
				if (claim.granted()) {
					logger.info("This instance ({}) dispatches due jobs now (role '{}', epoch {})", this.instanceId,
							this.role.id(), claim.epoch());
				}
				else {
					logger.info("This instance ({}) no longer dispatches due jobs (role '{}'{})", this.instanceId,
							this.role.id(), (claim.holder() != null) ? ", held by " + claim.holder() : "");
				}
			}
			if (claim.granted()) {
				round.accept(this.coordinator.holdCheck(this.role.id(), this.instanceId, claim.epoch()));
			}
		}

		@Override
		public void release() {
			if (this.held) {
				this.held = false;
				this.coordinator.release(this.role, this.instanceId);
			}
		}

		@Override
		public String toString() {
			return "role '" + this.role.id() + "' in " + this.coordinator.describe();
		}

	}

}
