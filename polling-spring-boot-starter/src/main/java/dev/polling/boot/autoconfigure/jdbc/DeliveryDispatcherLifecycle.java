package dev.polling.boot.autoconfigure.jdbc;

import dev.polling.jdbc.delivery.DeliveryDispatcher;
import java.time.Duration;
import org.springframework.context.SmartLifecycle;

import dev.polling.boot.autoconfigure.PollingManagerLifecycle;

/**
 * Starts the {@link DeliveryDispatcher} with the application context and stops it (after the send
 * under way is recorded, at most {@code polling.shutdown.timeout}, on a thread of its
 * own) when the context closes, after the clusters are released.
 */
public final class DeliveryDispatcherLifecycle implements SmartLifecycle {

	private final DeliveryDispatcher dispatcher;

	private final Duration shutdownWait;

	private volatile boolean running;

	/**
	 * Creates the lifecycle.
	 * @param dispatcher the dispatcher
	 * @param shutdownWait how long stopping waits for the send under way
	 */
	public DeliveryDispatcherLifecycle(DeliveryDispatcher dispatcher, Duration shutdownWait) {
		this.dispatcher = dispatcher;
		this.shutdownWait = shutdownWait;
	}

	/**
	 * The dispatcher.
	 * @return the dispatcher
	 */
	public DeliveryDispatcher getDispatcher() {
		return this.dispatcher;
	}

	@Override
	public void start() {
		this.dispatcher.start();
		this.running = true;
	}

	@Override
	public void stop() {
		this.dispatcher.stop(this.shutdownWait);
		this.running = false;
	}

	@Override
	public void stop(Runnable callback) {
		BackgroundStop.run("polling-delivery-stop", this::stop, callback);
	}

	@Override
	public int getPhase() {
		return PollingManagerLifecycle.WORKERS_PHASE;
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

}
