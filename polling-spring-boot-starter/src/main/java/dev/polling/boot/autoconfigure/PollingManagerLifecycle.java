package dev.polling.boot.autoconfigure;

import java.time.Duration;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;

import dev.polling.core.PollingManager;

/**
 * Releases every cluster of the {@link PollingManager} when the application context stops, so that
 * peers can take over at their next tick. It stops in the first phase ({@link #PHASE}), before the
 * database parts drain ({@link #WORKERS_PHASE}) and before the polling JMX server closes
 * ({@link PollingJmxServerLifecycle#PHASE}): until then peers asking this instance hear that it
 * released, rather than finding its port closed.
 *
 * <p>Stopping takes the path of a pause or release ({@link PollingManager#shutdown()}): every cluster
 * is refused from then on, a cluster without a running cycle is released at once, and one with a
 * running cycle is handed over when that cycle ends. It waits up to
 * {@code polling.shutdown.timeout} for the running cycles to end, then closes the manager (a
 * cycle still running then loses its hold, and a peer may start beside it). It does so
 * on a thread of its own, so that the other beans of the phase stop meanwhile, all within
 * {@code spring.lifecycle.timeout-per-shutdown-phase}. Releasing closes the manager; a stopped
 * context cannot be started again with polling.
 */
public final class PollingManagerLifecycle implements SmartLifecycle {

	/** The first phase to stop. */
	public static final int PHASE = SmartLifecycle.DEFAULT_PHASE;

	/** The phase in which the database parts (queue workers, dispatchers) stop, after the release. */
	public static final int WORKERS_PHASE = PHASE - 512;

	private static final Logger logger = LoggerFactory.getLogger(PollingManagerLifecycle.class);

	private final PollingManager manager;

	private final Duration cycleWait;

	private volatile boolean running;

	/**
	 * @param manager the manager to release
	 * @param cycleWait how long to wait for running cycles before releasing
	 */
	public PollingManagerLifecycle(PollingManager manager, Duration cycleWait) {
		this.manager = manager;
		this.cycleWait = cycleWait;
	}

	@Override
	public void start() {
		this.running = true;
		// peers already up show a wrong peer entry (an HTTP port, wrong credentials) now, not at the first tick
		Thread check = new Thread(() -> {
			try {
				this.manager.checkPeers();
			}
			catch (RuntimeException ex) {
				logger.debug("Checking the peers at start failed", ex);
			}
		}, "polling-peer-check");
		check.setDaemon(true);
		check.start();
	}

	@Override
	public void stop() {
		this.running = false;
		awaitCyclesAndRelease();
	}

	@Override
	public void stop(Runnable callback) {
		this.running = false;
		Thread thread = new Thread(() -> {
			try {
				awaitCyclesAndRelease();
			}
			finally {
				callback.run();
			}
		}, "polling-release");
		thread.setDaemon(true);
		thread.start();
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

	private void awaitCyclesAndRelease() {
		this.manager.shutdown();
		long deadline = System.nanoTime() + this.cycleWait.toNanos();
		try {
			while (anyCycleRunning() && System.nanoTime() - deadline < 0) {
				Thread.sleep(10);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		if (anyCycleRunning()) {
			logger.warn("Releasing the polling clusters with cycles still running after polling.shutdown.timeout={}: {}",
					this.cycleWait, this.manager.clusterIds().stream().filter(this.manager::isCycleRunning).toList());
		}
		this.manager.close();
	}

	private boolean anyCycleRunning() {
		return this.manager.clusterIds().stream().anyMatch(this.manager::isCycleRunning);
	}

}
