package dev.polling.boot.autoconfigure.jdbc;

import dev.polling.jdbc.delivery.DeliveryDispatcher;
import java.time.Duration;

/**
 * Starts the {@link DeliveryDispatcher} with the application context and stops it (after the send
 * under way is recorded, at most {@code polling.shutdown.timeout}, on a thread of its
 * own) when the context closes, after the clusters are released.
 */
public final class DeliveryDispatcherLifecycle extends WorkerLifecycle {

	private final DeliveryDispatcher dispatcher;

	private final Duration shutdownWait;

	/**
	 * Creates the lifecycle.
	 * @param dispatcher the dispatcher
	 * @param shutdownWait how long stopping waits for the send under way
	 */
	public DeliveryDispatcherLifecycle(DeliveryDispatcher dispatcher, Duration shutdownWait) {
		super("polling-delivery-stop");
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
		running(true);
	}

	@Override
	public void stop() {
		this.dispatcher.stop(this.shutdownWait);
		running(false);
	}

}
