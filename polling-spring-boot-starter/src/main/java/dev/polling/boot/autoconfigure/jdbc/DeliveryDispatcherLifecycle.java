package dev.polling.boot.autoconfigure.jdbc;

import dev.polling.jdbc.delivery.DeliveryDispatcher;
import java.time.Duration;
import org.springframework.context.SmartLifecycle;

/**
 * Starts the {@link DeliveryDispatcher} with the application context and stops it (after the send
 * under way is recorded) when the context closes.
 */
public final class DeliveryDispatcherLifecycle implements SmartLifecycle {

	private final DeliveryDispatcher dispatcher;

	private volatile boolean running;

	/**
	 * Creates the lifecycle.
	 * @param dispatcher the dispatcher
	 */
	public DeliveryDispatcherLifecycle(DeliveryDispatcher dispatcher) {
		this.dispatcher = dispatcher;
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
		this.dispatcher.stop(Duration.ofSeconds(30));
		this.running = false;
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

}
