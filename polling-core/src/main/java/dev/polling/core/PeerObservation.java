package dev.polling.core;

import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * What one peer said about one cluster in one decision.
 *
 * @param peerId the peer's configured id
 * @param address host:port or URL of the peer (no credentials)
 * @param state how the peer answered
 * @param fault why it could not be observed ({@link PeerFault#NONE} when answered)
 * @param instanceId the peer's instance id, when it answered and reports one
 * @param elapsedMillis time since the peer's last activity in ms, {@link Long#MAX_VALUE} for never
 *        or unknown
 * @param candidateAgeMillis how long the peer has been a candidate in ms, or -1 when it is not one
 * @param latency how long the request took
 * @param observedAt when the observation was made (wall clock, for display)
 * @param detail a short human-readable explanation of a fault, never containing secrets
 * @param heldClusters how many clusters the peer holds, or -1 when unknown (peers that do not
 *        report it, failed observations)
 */
public record PeerObservation(String peerId, String address, PeerState state, PeerFault fault, @Nullable String instanceId,
		long elapsedMillis, long candidateAgeMillis, Duration latency, Instant observedAt, @Nullable String detail,
		int heldClusters) {

	/** An observation without the number of held clusters. */
	public PeerObservation(String peerId, String address, PeerState state, PeerFault fault, @Nullable String instanceId,
			long elapsedMillis, long candidateAgeMillis, Duration latency, Instant observedAt, @Nullable String detail) {
		this(peerId, address, state, fault, instanceId, elapsedMillis, candidateAgeMillis, latency, observedAt, detail, -1);
	}

	/** Elapsed value that means "never polled" (as in the seed). */
	public static final long NEVER = Long.MAX_VALUE;

	/** Whether the peer answered and reports activity younger than the wait time. */
	public boolean isHolding(Duration waitTime) {
		return this.state == PeerState.ANSWERED && this.elapsedMillis >= 0 && this.elapsedMillis < waitTime.toMillis();
	}

	/** Whether the peer answered and is announcing candidacy. */
	public boolean isCandidate() {
		return this.state == PeerState.ANSWERED && this.candidateAgeMillis >= 0;
	}

	/** A failed observation. */
	public static PeerObservation failed(PeerDefinition peer, PeerState state, PeerFault fault, Duration latency, Instant at,
			String detail) {
		return new PeerObservation(peer.id(), peer.address(), state, fault, null, NEVER, -1, latency, at, detail);
	}

}
