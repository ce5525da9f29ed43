package dev.polling.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.polling.core.Decision.Reason;

/**
 * A cluster decided by a shared system (a database row, a {@link ClusterCoordinator}) instead of the
 * peers. Each request to the coordinator runs on a thread of its own and the decision waits at most
 * twice the peer timeout, so a database that does not answer cannot stall the caller's timer thread;
 * while a request is pending, further decisions are refused at once, and a release waits behind it.
 */
final class CoordinatedCluster {

	private static final Logger logger = LoggerFactory.getLogger(CoordinatedCluster.class);

	private final ClusterRuntime cluster;

	private final ClusterCoordinator coordinator;

	/** Runs the requests to the coordinator so a decision can stop waiting for them; one request at a time. */
	private final ExecutorService calls = Executors.newCachedThreadPool((task) -> {
		Thread thread = new Thread(task, "polling-coordinator");
		thread.setDaemon(true);
		return thread;
	});

	/** The latest request to the coordinator (guarded by this). */
	private CompletableFuture<?> call = CompletableFuture.completedFuture(null);

	/** When the latest request started (monotonic nanos; guarded by this). */
	private long callSince;

	/** Whether the coordinator's latest answer missed the bound (logged once per outage). */
	private volatile boolean slow;

	/** What the coordinator threw last (logged once per change), or null while it answers. */
	private volatile @Nullable String loggedFailure;

	/** Fencing token of the latest grant, -1 when none. */
	private volatile long epoch = -1;

	CoordinatedCluster(ClusterRuntime cluster, ClusterCoordinator coordinator) {
		this.cluster = cluster;
		this.coordinator = coordinator;
	}

	long epoch() {
		return this.epoch;
	}

	Decision decide(long start) {
		TimeSource time = this.cluster.instance().time();
		long before = time.nanoTime();
		ClusterCoordinator.Claim claim = acquireWithin(this.cluster.instance().settings().peerTimeout().multipliedBy(2));
		Duration latency = Duration.ofNanos(time.nanoTime() - before);
		PeerObservation observation = claim.isUnavailable()
				? new PeerObservation("coordinator", this.coordinator.describe(), PeerState.ERROR, PeerFault.IO, null, PeerObservation.NEVER,
						-1, latency, time.now(), claim.failure())
				: new PeerObservation("coordinator", this.coordinator.describe(), PeerState.ANSWERED, PeerFault.NONE, claim.holder(),
						(claim.holderAgeMillis() < 0) ? PeerObservation.NEVER : claim.holderAgeMillis(), -1, latency, time.now(),
						"epoch " + claim.epoch());
		List<PeerObservation> observations = List.of(observation);
		HoldState state = this.cluster.state();
		if (claim.granted()) {
			if (state.recordActivity() || state.grantNow()) {
				this.epoch = claim.epoch();
				return this.cluster.decision(claim.renewed() ? Reason.RENEWED : Reason.NO_ACTIVE_PEER, observations, start);
			}
			// released, paused or closed meanwhile: the release queued behind this request frees the row
			return this.cluster.decision(state.isClosed() ? Reason.CLOSED : state.isPaused() ? Reason.PAUSED : Reason.RELEASED,
					observations, start);
		}
		state.release();
		if (!claim.isUnavailable() && this.cluster.instance().settings().instanceId().equals(claim.holder())) {
			// the store names this instance's id, but the coordinator did not grant it to this process
			return this.cluster.decision(Reason.DUPLICATE_INSTANCE_ID, observations, start,
					"the coordinator names this instance's id as holder, but this process did not take the cluster: another "
							+ "process runs with the same instance id, or this instance held it before a restart (it takes over "
							+ "after the failover period)");
		}
		return this.cluster.decision(claim.isUnavailable() ? Reason.COORDINATION_UNAVAILABLE : Reason.PEER_ACTIVE, observations, start);
	}

	/**
	 * Asks the coordinator and waits at most the bound. While an earlier request is still pending the
	 * decision is refused at once instead of piling up threads; a late grant is not acted on (the next
	 * decision renews it, and until then nobody else takes the row before the failover period).
	 */
	private ClusterCoordinator.Claim acquireWithin(Duration bound) {
		TimeSource time = this.cluster.instance().time();
		String instanceId = this.cluster.instance().settings().instanceId();
		CompletableFuture<ClusterCoordinator.Claim> request;
		synchronized (this) {
			if (!this.call.isDone()) {
				return ClusterCoordinator.Claim.unavailable("an earlier request to " + this.coordinator.describe() + " has been pending for "
						+ (time.nanoTime() - this.callSince) / 1_000_000L + " ms");
			}
			try {
				request = CompletableFuture.supplyAsync(() -> this.coordinator.acquire(this.cluster.definition(), instanceId), this.calls);
			}
			catch (RejectedExecutionException ex) {
				return ClusterCoordinator.Claim.unavailable("the polling manager is closed");
			}
			this.call = request;
			this.callSince = time.nanoTime();
		}
		try {
			ClusterCoordinator.Claim claim = request.get(bound.toNanos(), TimeUnit.NANOSECONDS);
			if (this.slow || this.loggedFailure != null) {
				this.slow = false;
				this.loggedFailure = null;
				logger.info("Cluster '{}': {} answers again", this.cluster.id(), this.coordinator.describe());
			}
			return claim;
		}
		catch (TimeoutException ex) {
			String failure = "no answer from " + this.coordinator.describe() + " within " + bound.toMillis()
					+ " ms (twice the peer timeout); is the database reachable, is the connection pool exhausted?";
			if (!this.slow) {
				this.slow = true;
				logger.warn("Cluster '{}': {}; refusing until it answers", this.cluster.id(), failure);
			}
			return ClusterCoordinator.Claim.unavailable(failure);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return ClusterCoordinator.Claim.unavailable("interrupted while waiting for " + this.coordinator.describe());
		}
		catch (ExecutionException ex) {
			// a coordinator answers the faults of its store itself; whatever still comes through (a checked exception thrown
			// sneakily, an Error of a driver, a bug) is the store's or the coordinator's, not the caller's: the decision refuses.
			// A VirtualMachineError is the JVM's and is left to the caller.
			Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
			if (cause instanceof VirtualMachineError vm) {
				throw vm;
			}
			String failure = this.coordinator.describe() + " failed: " + cause.getClass().getSimpleName()
					+ ((cause.getMessage() != null) ? ": " + cause.getMessage() : "");
			if (!failure.equals(this.loggedFailure)) {
				this.loggedFailure = failure;
				logger.warn("Cluster '{}': {}; refusing until it answers", this.cluster.id(), failure, cause);
			}
			return ClusterCoordinator.Claim.unavailable(failure);
		}
	}

	/**
	 * Releases the row, waiting at most the bound: the database may be unreachable, and a connection
	 * pool waits its whole connection timeout (30 s by default). The release runs after any request
	 * still pending (so a late acquisition cannot undo it). A release not confirmed in time only means
	 * that a peer takes over after the failover period.
	 */
	void releaseWithin(Duration bound) {
		String instanceId = this.cluster.instance().settings().instanceId();
		CompletableFuture<?> release;
		synchronized (this) {
			CompletableFuture<?> previous = this.call;
			try {
				// on a thread of its own that first waits for the pending request: chaining on its completion
				// could run the release on this thread, or not at all once closed
				release = CompletableFuture.runAsync(() -> {
					previous.handle((result, failure) -> null).join();
					this.coordinator.release(this.cluster.definition(), instanceId);
				}, this.calls);
			}
			catch (RejectedExecutionException ex) {
				return;
			}
			this.call = release;
			this.callSince = this.cluster.instance().time().nanoTime();
		}
		try {
			release.get(Math.max(1, bound.toMillis()), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | TimeoutException ex) {
			logger.warn("Cluster '{}': {} did not confirm the release within {} ms ({}); a peer takes over after the failover period",
					this.cluster.id(), this.coordinator.describe(), bound.toMillis(),
					(ex instanceof TimeoutException) ? "no answer" : String.valueOf(ex.getCause()));
		}
	}

	/** Lets requests still waiting for the database finish on their own (a release then still lands); no new ones. */
	void shutdown() {
		this.calls.shutdown();
	}

}
