package dev.polling.core;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The outcome of one {@link PollingManager#decide(String)}: whether this instance may poll, why,
 * and what each peer said.
 *
 * @param clusterId the cluster
 * @param outcome granted or refused
 * @param reason why
 * @param peers each peer's observation, in the order of the final round (empty in standalone mode
 *        and for refusals that asked no peer)
 * @param duration how long the decision took
 * @param decidedAt when it was made (wall clock, for display)
 * @param detail what an operator must know about it, or null: for a disagreement with a peer (duplicate
 *        instance id, mismatched settings) the error naming both instances and their values
 */
public record Decision(String clusterId, Outcome outcome, Reason reason, List<PeerObservation> peers, Duration duration,
		Instant decidedAt, @Nullable String detail) {

	public Decision {
		peers = List.copyOf(peers);
	}

	/** A decision without detail. */
	public Decision(String clusterId, Outcome outcome, Reason reason, List<PeerObservation> peers, Duration duration, Instant decidedAt) {
		this(clusterId, outcome, reason, peers, duration, decidedAt, null);
	}

	public boolean isGranted() {
		return this.outcome == Outcome.GRANTED;
	}

	/** Granted or refused. */
	public enum Outcome {

		GRANTED, REFUSED

	}

	/** Why a decision came out as it did. */
	public enum Reason {

		/** Granted: no peers are configured for the cluster. */
		STANDALONE(Outcome.GRANTED),

		/** Granted: this instance already held the cluster and no peer with precedence holds it. */
		RENEWED(Outcome.GRANTED),

		/**
		 * Granted: this instance holds the cluster and keeps it although a peer publishes other
		 * settings (wait time, settle time or peer timeout), as during a rolling configuration change.
		 * The peers with other settings do not acquire while they see a peer with other settings
		 * ({@link #SETTINGS_MISMATCH}), so exactly one instance keeps polling; logged as a warning
		 * naming both instances and values.
		 */
		RENEWED_DESPITE_SETTINGS_MISMATCH(Outcome.GRANTED),

		/** Granted: no peer holds the cluster or competes for it (after announce and settle). */
		NO_ACTIVE_PEER(Outcome.GRANTED),

		/** Refused: a peer answered that it holds the cluster. */
		PEER_ACTIVE(Outcome.REFUSED),

		/** Refused: a peer did not answer and was last seen holding (policy PRESUME_LAST_KNOWN). */
		PEER_PRESUMED_ACTIVE(Outcome.REFUSED),

		/** Refused: a peer is acquiring the cluster and has precedence. */
		PEER_CANDIDATE(Outcome.REFUSED),

		/** Refused: this instance held the cluster but found a peer holding it too that has precedence; it let go. */
		YIELDED_TO_PEER(Outcome.REFUSED),

		/**
		 * Refused: this instance handed the cluster over, to balance the clusters among the instances
		 * (it held at least two more than a peer) or because an operator asked
		 * ({@link PollingManager#handOver(String)}), and holds back from it for one wait time.
		 */
		HANDED_OVER(Outcome.REFUSED),

		/**
		 * Refused: the cluster is free, but a peer holding fewer clusters answered; it is left to that
		 * peer for a few decisions (balancing) before this instance takes it after all.
		 */
		LEFT_TO_LIGHTER_PEER(Outcome.REFUSED),

		/** Refused: the cluster is paused on this instance. */
		PAUSED(Outcome.REFUSED),

		/** Refused: a cycle of this cluster is already running in this instance. */
		LOCAL_CYCLE_RUNNING(Outcome.REFUSED),

		/** Refused: the decision took longer than a candidate may (e.g. a long GC pause); try again at the next tick. */
		DECISION_TOO_SLOW(Outcome.REFUSED),

		/**
		 * Refused: this JVM did not run for longer than the peer timeout (stopped, suspended, a long
		 * pause). A hold from before is void (a peer may have taken over meanwhile), and for
		 * three peer timeouts after the stop this instance does not acquire, since answers to requests
		 * that were under way during the stop say nothing about the peers. Also when a stop was detected
		 * during an acquisition: its answers are stale.
		 */
		STOPPED(Outcome.REFUSED),

		/** Refused: the cluster was released, paused or closed on this instance while the decision asked the peers. */
		RELEASED(Outcome.REFUSED),

		/**
		 * Refused: a peer publishes other settings than this instance (wait time, settle time or peer
		 * timeout), or published them in its last answer and has been silent for less than the longer
		 * wait time. The protocol's safety rests on equal settings, so no candidate acquires while it
		 * lasts; a holder keeps the cluster ({@link #RENEWED_DESPITE_SETTINGS_MISMATCH}), so a rolling
		 * configuration change keeps one poller. Logged as a warning naming both instances and values.
		 */
		SETTINGS_MISMATCH(Outcome.REFUSED),

		/**
		 * Refused: a configured peer has a configuration fault (wrong credentials, TLS mismatch, a port
		 * that does not speak JMX, an unknown host, an MBean of the wrong shape). Whether the instance
		 * behind it polls is unknown, and unlike a network blip the fault will not pass by itself, so
		 * this instance does not acquire until it is fixed (a holder keeps renewing).
		 */
		PEER_MISCONFIGURED(Outcome.REFUSED),

		/**
		 * Refused: a peer answers with this instance's id from another process (another incarnation):
		 * two instances share one id, so neither can tell the other from itself. Give each instance a
		 * unique {@code instance-id}.
		 */
		DUPLICATE_INSTANCE_ID(Outcome.REFUSED),

		/**
		 * Refused: peers come from DNS discovery and this instance may not acquire yet: its own
		 * address has not been in the answers long enough for every peer to have resolved it (two
		 * re-resolve intervals plus the longest decision), or its latest resolution is older than two
		 * intervals (the resolver fails or hangs). The decision's detail says which.
		 */
		DISCOVERY_PENDING(Outcome.REFUSED),

		/** Refused: the cluster's coordinator (its database) could not decide. */
		COORDINATION_UNAVAILABLE(Outcome.REFUSED),

		/** Refused: the deciding thread was interrupted. */
		INTERRUPTED(Outcome.REFUSED),

		/** Refused: the manager is closed. */
		CLOSED(Outcome.REFUSED);

		private final Outcome outcome;

		Reason(Outcome outcome) {
			this.outcome = outcome;
		}

		public Outcome outcome() {
			return this.outcome;
		}

	}

}
