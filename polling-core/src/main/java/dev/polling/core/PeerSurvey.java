package dev.polling.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks the peers of one cluster in parallel and waits at most the peer timeout in total. Marks the
 * peer entries that are this instance itself (same id and incarnation) and skips them from then on,
 * keeps the latest observation of each peer for the status, and logs each peer's state changes once.
 */
final class PeerSurvey {

	private static final Logger logger = LoggerFactory.getLogger(PeerSurvey.class);

	private final LocalInstance self;

	private final ClusterDefinition cluster;

	private final List<PeerDefinition> peers;

	private final @Nullable PeerDiscovery discovery;

	private final Map<String, PeerObservation> lastObservations = new ConcurrentHashMap<>();

	private final Map<String, PeerObservation> loggedStates = new ConcurrentHashMap<>();

	PeerSurvey(LocalInstance self, ClusterDefinition cluster, List<PeerDefinition> peers, @Nullable PeerDiscovery discovery) {
		this.self = self;
		this.cluster = cluster;
		this.peers = List.copyOf(peers);
		this.discovery = discovery;
	}

	/** The peers to ask now: the static ones, then those found through DNS (missing ones for one wait time). */
	List<PeerDefinition> peers() {
		PeerDiscovery discovery = this.discovery;
		if (discovery == null) {
			return this.peers;
		}
		List<PeerDefinition> peers = new ArrayList<>(this.peers);
		peers.addAll(discovery.view(this.self.time().nanoTime(), this.cluster.waitTime().toNanos()));
		return peers;
	}

	@Nullable PeerDiscovery discovery() {
		return this.discovery;
	}

	/** The latest observation of each current peer asked so far, in peer order. */
	List<PeerObservation> lastObservations() {
		List<PeerObservation> result = new ArrayList<>();
		for (PeerDefinition peer : peers()) {
			PeerObservation o = this.lastObservations.get(peer.id());
			if (o != null) {
				result.add(o);
			}
		}
		return result;
	}

	/** Asks every current peer. */
	List<PeerObservation> observe(List<PeerObservation> events) {
		return observe(peers(), null, events, DecisionObserver.DecisionSpan.NONE);
	}

	/**
	 * Asks the given peers, except those whose observation in {@code previous} (the same decision's
	 * first round, of the same peers) was unknown; those keep their observation.
	 * @param peers the peers to ask: {@link #peers()}, taken once per decision
	 * @param events receives each new observation, for the listener (called after the decision)
	 */
	List<PeerObservation> observe(List<PeerDefinition> peers, @Nullable List<PeerObservation> previous, List<PeerObservation> events,
			DecisionObserver.DecisionSpan span) {
		TimeSource time = this.self.time();
		Duration timeout = this.self.settings().peerTimeout();
		long deadline = time.nanoTime() + timeout.toNanos();
		List<CompletableFuture<PeerObservation>> futures = new ArrayList<>(peers.size());
		List<@Nullable RequestEnd> requests = new ArrayList<>(peers.size());
		Set<String> selfPeers = this.self.selfPeers();
		for (int i = 0; i < peers.size(); i++) {
			PeerDefinition peer = peers.get(i);
			if (previous != null && previous.get(i).state().isUnknown()) {
				futures.add(CompletableFuture.completedFuture(previous.get(i)));
				requests.add(null);
			}
			else if (selfPeers.contains(peer.id())) {
				futures.add(CompletableFuture.completedFuture(new PeerObservation(peer.id(), peer.address(), PeerState.SELF,
						PeerFault.NONE, this.self.settings().instanceId(), PeerObservation.NEVER, -1, Duration.ZERO, time.now(), null)));
				requests.add(null);
			}
			else {
				RequestEnd request = new RequestEnd(Events.requestStarting(span, peer));
				CompletableFuture<PeerObservation> future = this.self.peerClient().observe(peer, this.cluster, timeout);
				if (request.span != DecisionObserver.PeerRequestSpan.NONE) {
					// ended where the answer arrives, or below at the deadline, whichever comes first
					future.whenComplete((o, failure) -> {
						if (o != null) {
							request.end(o);
						}
					});
				}
				futures.add(future);
				requests.add(request);
			}
		}
		List<PeerObservation> observations = new ArrayList<>(futures.size());
		boolean interrupted = false;
		for (int i = 0; i < futures.size(); i++) {
			PeerDefinition peer = peers.get(i);
			PeerObservation o;
			try {
				long remaining = Math.max(0, deadline - time.nanoTime());
				o = interrupted ? futures.get(i).getNow(null) : futures.get(i).get(remaining, TimeUnit.NANOSECONDS);
				if (o == null) {
					o = timedOut(peer, timeout);
				}
			}
			catch (TimeoutException ex) {
				o = timedOut(peer, timeout);
			}
			catch (InterruptedException ex) {
				interrupted = true;
				o = timedOut(peer, timeout);
			}
			catch (ExecutionException ex) {
				o = PeerObservation.failed(peer, PeerState.ERROR, PeerFault.IO, timeout, time.now(), "peer client failed: " + ex.getCause());
			}
			RequestEnd request = requests.get(i);
			if (request != null) {
				request.end(o);
			}
			boolean reused = previous != null && previous.get(i) == o;
			if (!reused) {
				o = recognise(o);
				events.add(o);
			}
			observations.add(o);
		}
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
		return observations;
	}

	/** Ends a peer request's span once: where its answer arrived, or where the decision stopped waiting. */
	private static final class RequestEnd {

		final DecisionObserver.PeerRequestSpan span;

		private final java.util.concurrent.atomic.AtomicBoolean ended = new java.util.concurrent.atomic.AtomicBoolean();

		RequestEnd(DecisionObserver.PeerRequestSpan span) {
			this.span = span;
		}

		void end(PeerObservation observation) {
			if (this.span != DecisionObserver.PeerRequestSpan.NONE && this.ended.compareAndSet(false, true)) {
				Events.requestEnded(this.span, observation);
			}
		}

	}

	private PeerObservation timedOut(PeerDefinition peer, Duration timeout) {
		return PeerObservation.failed(peer, PeerState.UNRESPONSIVE, PeerFault.TIMEOUT, timeout, this.self.time().now(),
				"no answer within " + timeout.toMillis() + " ms");
	}

	/**
	 * Marks this instance itself: an answer with its id and its incarnation (or no incarnation, from a
	 * peer that publishes none). An answer with its id and another incarnation is another process with
	 * the same id: it stays an answer, and the protocol refuses to grant beside it.
	 */
	private PeerObservation recognise(PeerObservation o) {
		String ownId = this.self.settings().instanceId();
		if (o.state() == PeerState.ANSWERED && ownId.equals(o.instanceId())
				&& (o.published() == null || o.published().incarnation() == this.self.incarnation())) {
			if (this.self.selfPeers().add(o.peerId())) {
				logger.info("Peer '{}' ({}) is this instance ({}); it is skipped from now on", o.peerId(), o.address(), ownId);
			}
			o = new PeerObservation(o.peerId(), o.address(), PeerState.SELF, PeerFault.NONE, o.instanceId(), PeerObservation.NEVER, -1,
					o.latency(), o.observedAt(), null);
		}
		this.lastObservations.put(o.peerId(), o);
		PeerObservation previous = this.loggedStates.put(o.peerId(), o);
		if (previous == null || previous.state() != o.state() || previous.fault() != o.fault()) {
			logStateChange(previous, o);
		}
		return o;
	}

	private void logStateChange(@Nullable PeerObservation previous, PeerObservation o) {
		String id = this.cluster.id();
		String was = (previous != null) ? previous.state() + (previous.fault() != PeerFault.NONE ? "/" + previous.fault() : "") : "unknown";
		switch (o.state()) {
			case ANSWERED, SELF -> {
				if (previous != null && previous.state() != PeerState.ANSWERED && previous.state() != PeerState.SELF) {
					logger.info("Cluster '{}': peer '{}' ({}) answers again (was {})", id, o.peerId(), o.address(), was);
				}
			}
			case REFUSED -> logger.info("Cluster '{}': peer '{}' ({}) refuses connections; counted as gone (was {})", id, o.peerId(),
					o.address(), was);
			default -> logger.warn("Cluster '{}': peer '{}' ({}) is {}/{}: {}; policy {} applies (was {})", id, o.peerId(), o.address(),
					o.state(), o.fault(), o.detail(), this.self.settings().unreachablePeerPolicy(), was);
		}
	}

}
