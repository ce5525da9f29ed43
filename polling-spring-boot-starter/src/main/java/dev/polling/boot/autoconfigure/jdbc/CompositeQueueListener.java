package dev.polling.boot.autoconfigure.jdbc;

import dev.polling.jdbc.queue.QueueListener;
import java.util.List;

/** Forwards every callback to several queue listeners, in order. */
final class CompositeQueueListener implements QueueListener {

	private final List<QueueListener> listeners;

	CompositeQueueListener(List<QueueListener> listeners) {
		this.listeners = List.copyOf(listeners);
	}

	@Override
	public void onEnqueued(String queue, int count) {
		this.listeners.forEach((l) -> l.onEnqueued(queue, count));
	}

	@Override
	public void onClaimed(String queue, int count) {
		this.listeners.forEach((l) -> l.onClaimed(queue, count));
	}

	@Override
	public void onCompleted(String queue) {
		this.listeners.forEach((l) -> l.onCompleted(queue));
	}

	@Override
	public void onRetryScheduled(String queue) {
		this.listeners.forEach((l) -> l.onRetryScheduled(queue));
	}

	@Override
	public void onDead(String queue) {
		this.listeners.forEach((l) -> l.onDead(queue));
	}

	@Override
	public void onFenceRejected(String queue) {
		this.listeners.forEach((l) -> l.onFenceRejected(queue));
	}

	@Override
	public void onClaimsLost(String queue, int count) {
		this.listeners.forEach((l) -> l.onClaimsLost(queue, count));
	}

	@Override
	public void onLeasesExpired(int count) {
		this.listeners.forEach((l) -> l.onLeasesExpired(count));
	}

}
