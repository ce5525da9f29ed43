package dev.polling.boot.autoconfigure.jdbc;

import dev.polling.jdbc.delivery.DeliveryListener;
import java.util.List;

/** Forwards every callback to several delivery listeners, in order. */
final class CompositeDeliveryListener implements DeliveryListener {

	private final List<DeliveryListener> listeners;

	CompositeDeliveryListener(List<DeliveryListener> listeners) {
		this.listeners = List.copyOf(listeners);
	}

	@Override
	public void onDelivered(String destination) {
		this.listeners.forEach((l) -> l.onDelivered(destination));
	}

	@Override
	public void onRetryScheduled(String destination) {
		this.listeners.forEach((l) -> l.onRetryScheduled(destination));
	}

	@Override
	public void onDead(String destination) {
		this.listeners.forEach((l) -> l.onDead(destination));
	}

	@Override
	public void onInDoubt(String destination, int count) {
		this.listeners.forEach((l) -> l.onInDoubt(destination, count));
	}

	@Override
	public void onFenceRejected(String destination) {
		this.listeners.forEach((l) -> l.onFenceRejected(destination));
	}

	@Override
	public void onLeasesExpired(int count) {
		this.listeners.forEach((l) -> l.onLeasesExpired(count));
	}

}
