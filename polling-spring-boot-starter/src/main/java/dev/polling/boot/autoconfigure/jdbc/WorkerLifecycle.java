package dev.polling.boot.autoconfigure.jdbc;

import org.springframework.context.SmartLifecycle;

import dev.polling.boot.autoconfigure.PollingManagerLifecycle;

/**
 * What the lifecycles of the database worker runtimes share: they stop in
 * {@link PollingManagerLifecycle#WORKERS_PHASE}, after the clusters are released, and a waiting stop
 * runs on a thread of its own before telling the lifecycle processor, so that the beans of one
 * shutdown phase wait side by side rather than one after another.
 */
abstract class WorkerLifecycle implements SmartLifecycle {

	private final String stopThreadName;

	private volatile boolean running;

	/**
	 * @param stopThreadName the name of the thread that stops the runtime
	 */
	WorkerLifecycle(String stopThreadName) {
		this.stopThreadName = stopThreadName;
	}

	final void running(boolean running) {
		this.running = running;
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	/** Stops on a thread of its own, beside the other database parts of its shutdown phase. */
	@Override
	public final void stop(Runnable callback) {
		Thread thread = new Thread(() -> {
			try {
				stop();
			}
			finally {
				callback.run();
			}
		}, this.stopThreadName);
		thread.setDaemon(true);
		thread.start();
	}

	/** After the clusters are released (a round under way holds its cluster and is waited for by the release). */
	@Override
	public final int getPhase() {
		return PollingManagerLifecycle.WORKERS_PHASE;
	}

}
