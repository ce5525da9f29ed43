package dev.polling.boot.autoconfigure;

import org.springframework.context.SmartLifecycle;

import dev.polling.core.PollingManager;

/**
 * Releases every cluster of the {@link PollingManager} when the application context stops, so that
 * peers can take over at their next tick. It stops in the first phase, before the polling JMX
 * server closes ({@link PollingJmxServerLifecycle#PHASE}): until then peers asking this instance
 * hear that it released, rather than finding its port closed.
 *
 * <p>Releasing closes the manager; a stopped context cannot be started again with polling.
 */
public final class PollingManagerLifecycle implements SmartLifecycle {

	/** The first phase to stop. */
	public static final int PHASE = SmartLifecycle.DEFAULT_PHASE;

	private final PollingManager manager;

	private volatile boolean running;

	public PollingManagerLifecycle(PollingManager manager) {
		this.manager = manager;
	}

	@Override
	public void start() {
		this.running = true;
	}

	@Override
	public void stop() {
		this.running = false;
		this.manager.close();
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

}
