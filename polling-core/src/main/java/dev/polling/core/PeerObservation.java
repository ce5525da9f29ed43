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
 * @param published what the peer publishes beside its state for the instances to agree on (its
 *        incarnation and the settings the protocol's safety rests on), or null when it publishes
 *        nothing (isy-polling peers, earlier versions, failed observations)
 */
public record PeerObservation(String peerId, String address, PeerState state, PeerFault fault, @Nullable String instanceId,
		long elapsedMillis, long candidateAgeMillis, Duration latency, Instant observedAt, @Nullable String detail,
		int heldClusters, @Nullable Published published) {

	/** An observation without published settings. */
	public PeerObservation(String peerId, String address, PeerState state, PeerFault fault, @Nullable String instanceId,
			long elapsedMillis, long candidateAgeMillis, Duration latency, Instant observedAt, @Nullable String detail,
			int heldClusters) {
		this(peerId, address, state, fault, instanceId, elapsedMillis, candidateAgeMillis, latency, observedAt, detail, heldClusters,
				null);
	}

	/**
	 * What an instance of this library publishes per cluster so that the instances can check that
	 * they agree on what the protocol's safety rests on.
	 *
	 * @param incarnation a random number chosen at each start: an answer with this instance's id but
	 *        another incarnation comes from a different process with the same id
	 * @param waitMillis the cluster's wait time
	 * @param settleMillis the settle time
	 * @param peerTimeoutMillis the peer timeout
	 */
	public record Published(long incarnation, long waitMillis, long settleMillis, long peerTimeoutMillis) {

		/** The settings part as text, for messages: {@code wait-time=10000ms settle-time=50ms peer-timeout=2000ms}. */
		public String settingsText() {
			return "wait-time=" + this.waitMillis + "ms settle-time=" + this.settleMillis + "ms peer-timeout=" + this.peerTimeoutMillis + "ms";
		}

		/** Whether the settings (not the incarnation) are the same. */
		public boolean sameSettings(Published other) {
			return this.waitMillis == other.waitMillis && this.settleMillis == other.settleMillis
					&& this.peerTimeoutMillis == other.peerTimeoutMillis;
		}

	}

	/** The observation as the same peer's answer with this instance's classification: state and published part replaced. */
	public PeerObservation withState(PeerState state) {
		return new PeerObservation(this.peerId, this.address, state, this.fault, this.instanceId, this.elapsedMillis,
				this.candidateAgeMillis, this.latency, this.observedAt, this.detail, this.heldClusters, this.published);
	}

	/** An observation without the number of held clusters. */
	public PeerObservation(String peerId, String address, PeerState state, PeerFault fault, @Nullable String instanceId,
			long elapsedMillis, long candidateAgeMillis, Duration latency, Instant observedAt, @Nullable String detail) {
		this(peerId, address, state, fault, instanceId, elapsedMillis, candidateAgeMillis, latency, observedAt, detail, -1);
	}

	/** Elapsed value that means "never polled" (as in the seed). */
	public static final long NEVER = Long.MAX_VALUE;

	/** Whether the peer answered and reports activity younger than the wait time. */
	public boolean isHolding(Duration waitTime) {
		return isHolding(waitTime.toMillis());
	}

	/** Whether the peer answered and reports activity younger than the wait time in milliseconds. */
	public boolean isHolding(long waitMillis) {
		return this.state == PeerState.ANSWERED && this.elapsedMillis >= 0 && this.elapsedMillis < waitMillis;
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
