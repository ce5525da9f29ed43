package dev.polling.core;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import dev.polling.core.Decision.Reason;

/**
 * The decision, as a pure function: what this instance knows of itself and what the peers
 * answered go in, the next step comes out. No I/O, no clock, no threads, no mutable state; the
 * {@link PeerDecider} asks the peers, waits and applies the steps. Read this file to know when an
 * instance polls.
 *
 * <p><b>Holder renews.</b> An instance that holds the cluster extends its hold before it asks (so no
 * peer can see it lapse) and keeps it unless a peer answers with its instance id from another process,
 * a peer with precedence (a lower instance id) holds it too after a split, or balancing hands it to a
 * peer holding at least two clusters fewer. A peer with other settings (a rolling configuration
 * change) does not make it let go: candidates with other settings do not acquire while they see a
 * peer with other settings ({@link #disagreement}, {@link #silentWithOtherSettings}), so the holder
 * keeps polling alone on its settings and nobody is left without a poller.
 *
 * <p><b>Candidate acquires</b> in two rounds. First round: refused while any peer holds or is a live
 * candidate (or disagrees); otherwise it announces candidacy, waits the settle time and asks again.
 * Second round: refused if a peer now holds, or is a candidate that announced clearly earlier (by
 * more than half the settle time) or has precedence; otherwise granted. Of two instances that both
 * announce, at least one reads the other's announcement: if A did not see B, B announced after A's
 * final read, which came at least a settle time after A's announcement, so B sees A as clearly older
 * (or holding) and yields. So at most one of the instances that answer each other is granted.
 *
 * <p><b>Misconfigured peers.</b> A peer entry with a configuration fault (credentials, TLS, a port that
 * does not speak JMX, an unknown host) is not a network blip: a candidate does not acquire while one
 * lasts; a holder keeps renewing.
 *
 * <p><b>Peers that do not answer.</b> A refused connection is a peer that is gone: idle. A peer that
 * timed out or failed is unknown: {@link UnreachablePeerPolicy#PROCEED} counts it as idle, {@link
 * UnreachablePeerPolicy#PRESUME_LAST_KNOWN} as holding while its last answer said so and its silence
 * (counted from this instance's first unknown observation) is shorter than the wait time.
 */
final class Protocol {

	/** How many decisions in a row a candidate leaves a free cluster to a peer holding fewer clusters. */
	static final int MAX_DEFERRALS = 3;

	private Protocol() {
	}

	/** What to do next. */
	enum Action {

		/** Hold the cluster (a new grant after the second round, or a renewal). */
		GRANT,

		/** Do not poll; nothing to change. */
		REFUSE,

		/** Do not poll, and let go of the hold. */
		RELEASE,

		/** Announce candidacy, wait the settle time, ask the peers again and call {@link #secondRound}. */
		ANNOUNCE

	}

	/**
	 * One step.
	 * @param action what to do
	 * @param reason why (for {@link Action#ANNOUNCE}: {@link Reason#NO_ACTIVE_PEER}, the reason if the second round grants)
	 * @param cause the peer observation that decided it, if one did
	 */
	record Step(Action action, Reason reason, @Nullable PeerObservation cause) {

		static Step of(Action action, Reason reason) {
			return new Step(action, reason, null);
		}

	}

	/**
	 * What this instance is, for one cluster.
	 * @param instanceId this instance's id
	 * @param published what it publishes (incarnation and settings)
	 * @param policy what to assume about unknown peers
	 * @param grantProtocol announce or (for comparison only) check-then-act
	 * @param maxCandidateAgeMillis longest a decision can legitimately take; older candidacies are stale
	 */
	record Self(String instanceId, PeerObservation.Published published, UnreachablePeerPolicy policy, GrantProtocol grantProtocol,
			long maxCandidateAgeMillis) {

		long waitMillis() {
			return this.published.waitMillis();
		}

		long settleMillis() {
			return this.published.settleMillis();
		}

	}

	/**
	 * Balancing inputs (seed: load distribution).
	 * @param enabled whether clusters are spread among the instances
	 * @param heldClusters how many clusters this instance holds
	 * @param handoverDue whether this instance may hand a cluster over now (at most one per half wait time)
	 * @param deferrals decisions in a row that left this free cluster to a lighter peer
	 */
	record Balance(boolean enabled, int heldClusters, boolean handoverDue, int deferrals) {

		static final Balance OFF = new Balance(false, 0, false, 0);

	}

	/**
	 * What this instance remembers of one peer for {@link UnreachablePeerPolicy#PRESUME_LAST_KNOWN}.
	 * @param lastAnswer the peer's latest answer
	 * @param silentSince when this instance first found it unknown after that answer (monotonic nanos), or {@link HoldState#NONE}
	 */
	record Remembered(PeerObservation lastAnswer, long silentSince) {
	}

	/** What this instance remembers of the peers of one cluster; immutable. */
	record Memory(Map<String, Remembered> peers) {

		static final Memory EMPTY = new Memory(Map.of());

		Memory {
			peers = Map.copyOf(peers);
		}

		/** The memory after these observations at {@code now}. */
		Memory remember(List<PeerObservation> observations, long now) {
			Map<String, Remembered> next = new LinkedHashMap<>(this.peers);
			for (PeerObservation o : observations) {
				if (o.state() == PeerState.ANSWERED) {
					next.put(o.peerId(), new Remembered(o, HoldState.NONE));
				}
				else if (o.state().isUnknown()) {
					Remembered r = next.get(o.peerId());
					if (r != null && r.silentSince == HoldState.NONE) {
						next.put(o.peerId(), new Remembered(r.lastAnswer, now));
					}
				}
			}
			return new Memory(next);
		}

	}

	// ---------------------------------------------------------------- the steps

	/** The holder renews: it has extended its hold and asked the peers. */
	static Step renewal(Self self, Balance balance, List<PeerObservation> peers) {
		Step duplicate = duplicate(self, peers);
		if (duplicate != null) {
			return new Step(Action.RELEASE, duplicate.reason, duplicate.cause);
		}
		for (PeerObservation o : peers) {
			if (o.state() == PeerState.ANSWERED && o.isHolding(self.waitMillis()) && precedes(self, o.instanceId())) {
				return new Step(Action.RELEASE, Reason.YIELDED_TO_PEER, o);
			}
		}
		PeerObservation otherSettings = otherSettings(self, peers);
		if (otherSettings != null) {
			// a rolling configuration change: the holder keeps the cluster on its settings (no balancing
			// handover either: a peer with other settings would not take it), and the peers with other
			// settings do not acquire while they see it, so one instance keeps polling
			return new Step(Action.GRANT, Reason.RENEWED_DESPITE_SETTINGS_MISMATCH, otherSettings);
		}
		if (balance.enabled && balance.handoverDue) {
			PeerObservation lightest = null;
			for (PeerObservation o : peers) {
				if (o.state() == PeerState.ANSWERED && o.heldClusters() >= 0
						&& (lightest == null || o.heldClusters() < lightest.heldClusters())) {
					lightest = o;
				}
			}
			if (lightest != null && lightest.heldClusters() <= balance.heldClusters - 2) {
				return new Step(Action.RELEASE, Reason.HANDED_OVER, lightest);
			}
		}
		return Step.of(Action.GRANT, Reason.RENEWED);
	}

	/** A candidate's first round. */
	static Step firstRound(Self self, Balance balance, List<PeerObservation> peers, Memory memory, long now, boolean justStopped) {
		if (justStopped) {
			// requests under way during a stop of this JVM report peers unknown only because this JVM did not run
			return Step.of(Action.REFUSE, Reason.STOPPED);
		}
		Step refusal = refusal(self, peers, memory, now, -1);
		if (refusal != null) {
			return refusal;
		}
		if (balance.enabled && balance.deferrals < MAX_DEFERRALS) {
			for (PeerObservation o : peers) {
				if (o.state() == PeerState.ANSWERED && o.heldClusters() >= 0 && o.heldClusters() < balance.heldClusters) {
					return new Step(Action.REFUSE, Reason.LEFT_TO_LIGHTER_PEER, o);
				}
			}
		}
		if (self.grantProtocol == GrantProtocol.CHECK_THEN_ACT) {
			return Step.of(Action.GRANT, Reason.NO_ACTIVE_PEER);
		}
		return Step.of(Action.ANNOUNCE, Reason.NO_ACTIVE_PEER);
	}

	/**
	 * How long to settle after announcing: the settle time, or nothing when no peer answered in the
	 * first round (nobody to race: the peers not answering are not asked again, the policy covers them).
	 */
	static long settleMillis(Self self, List<PeerObservation> firstRound) {
		return firstRound.stream().anyMatch((o) -> o.state() == PeerState.ANSWERED) ? self.settleMillis() : 0;
	}

	/**
	 * A candidate's second round, after settling.
	 * @param ownAgeMillis this instance's candidacy age when it started asking
	 * @param sinceAnnounceMillis how long ago it announced, now
	 */
	static Step secondRound(Self self, List<PeerObservation> peers, Memory memory, long now, long ownAgeMillis, long sinceAnnounceMillis) {
		Step refusal = refusal(self, peers, memory, now, ownAgeMillis);
		if (refusal != null) {
			return refusal;
		}
		if (sinceAnnounceMillis > self.maxCandidateAgeMillis) {
			// peers stop counting a candidacy this old: they may have granted meanwhile
			return Step.of(Action.REFUSE, Reason.DECISION_TOO_SLOW);
		}
		return Step.of(Action.GRANT, Reason.NO_ACTIVE_PEER);
	}

	/**
	 * Why a candidate is refused, or null. In the first round ({@code ownAgeMillis < 0}) every live
	 * candidate refuses it; in the second only one that announced clearly earlier or has precedence.
	 */
	private static @Nullable Step refusal(Self self, List<PeerObservation> peers, Memory memory, long now, long ownAgeMillis) {
		Step disagreement = disagreement(self, peers);
		if (disagreement != null) {
			return disagreement;
		}
		PeerObservation silent = silentWithOtherSettings(self, peers, memory, now);
		if (silent != null) {
			return new Step(Action.REFUSE, Reason.SETTINGS_MISMATCH, silent);
		}
		for (PeerObservation o : peers) {
			if (o.fault().isConfigurationFault()) {
				return new Step(Action.REFUSE, Reason.PEER_MISCONFIGURED, o);
			}
		}
		for (PeerObservation o : peers) {
			if (o.state() == PeerState.ANSWERED && o.isHolding(self.waitMillis())) {
				return new Step(Action.REFUSE, Reason.PEER_ACTIVE, o);
			}
			if (presumedHolding(self, o, memory, now)) {
				return new Step(Action.REFUSE, Reason.PEER_PRESUMED_ACTIVE, o);
			}
		}
		if (self.grantProtocol == GrantProtocol.CHECK_THEN_ACT) {
			return null;
		}
		long clearlyOlderMillis = self.settleMillis() / 2;
		for (PeerObservation o : peers) {
			if (o.isCandidate() && o.candidateAgeMillis() <= self.maxCandidateAgeMillis
					&& (ownAgeMillis < 0 || o.candidateAgeMillis() - ownAgeMillis > clearlyOlderMillis || precedes(self, o.instanceId()))) {
				return new Step(Action.REFUSE, Reason.PEER_CANDIDATE, o);
			}
		}
		return null;
	}

	/**
	 * A peer that breaks what the protocol rests on: it answers with this instance's id from another
	 * process, or publishes other settings. A candidate does not acquire while one lasts.
	 */
	static @Nullable Step disagreement(Self self, List<PeerObservation> peers) {
		Step duplicate = duplicate(self, peers);
		if (duplicate != null) {
			return duplicate;
		}
		PeerObservation other = otherSettings(self, peers);
		return (other != null) ? new Step(Action.REFUSE, Reason.SETTINGS_MISMATCH, other) : null;
	}

	/** A peer answering with this instance's id from another process: neither side may hold. */
	private static @Nullable Step duplicate(Self self, List<PeerObservation> peers) {
		for (PeerObservation o : peers) {
			if (o.state() == PeerState.ANSWERED && o.published() != null && self.instanceId.equals(o.instanceId())
					&& o.published().incarnation() != self.published.incarnation()) {
				return new Step(Action.REFUSE, Reason.DUPLICATE_INSTANCE_ID, o);
			}
		}
		return null;
	}

	/** The first answering peer that publishes other settings, or null. */
	private static @Nullable PeerObservation otherSettings(Self self, List<PeerObservation> peers) {
		for (PeerObservation o : peers) {
			if (o.state() == PeerState.ANSWERED && o.published() != null && !o.published().sameSettings(self.published)) {
				return o;
			}
		}
		return null;
	}

	/**
	 * A peer that does not answer now, whose last answer published other settings, silent (from this
	 * instance's first unknown observation) for less than the longer of the two wait times: it may be a
	 * holder on other settings in a stop its own settings do not detect yet (a longer peer timeout), so
	 * a candidate does not take the cluster from it under any policy. A refused connection (a peer that
	 * is gone) is not unknown and does not count.
	 */
	static @Nullable PeerObservation silentWithOtherSettings(Self self, List<PeerObservation> peers, Memory memory, long now) {
		for (PeerObservation o : peers) {
			if (!o.state().isUnknown()) {
				continue;
			}
			Remembered r = memory.peers().get(o.peerId());
			if (r == null || r.lastAnswer.published() == null || r.lastAnswer.published().sameSettings(self.published)) {
				continue;
			}
			long since = (r.silentSince == HoldState.NONE) ? now : r.silentSince;
			long waitMillis = Math.max(self.waitMillis(), r.lastAnswer.published().waitMillis());
			if (now - since < waitMillis * 1_000_000L) {
				return r.lastAnswer;
			}
		}
		return null;
	}

	/** Under presume-last-known: an unknown peer whose last answer showed it holding, silent for less than the wait time. */
	static boolean presumedHolding(Self self, PeerObservation o, Memory memory, long now) {
		if (!o.state().isUnknown() || self.policy != UnreachablePeerPolicy.PRESUME_LAST_KNOWN) {
			return false;
		}
		Remembered r = memory.peers().get(o.peerId());
		if (r == null || !r.lastAnswer.isHolding(self.waitMillis())) {
			return false;
		}
		// the silence counts from this instance's first unknown observation, not from the last answer: if this
		// instance was itself stalled, its last answer is old although the peer answered the others all along
		long since = (r.silentSince == HoldState.NONE) ? now : r.silentSince;
		return now - since < self.waitMillis() * 1_000_000L;
	}

	/** Whether a peer with this instance id wins a tie against this instance (the lower id wins). */
	static boolean precedes(Self self, @Nullable String peerInstanceId) {
		return peerInstanceId != null && peerInstanceId.compareTo(self.instanceId) < 0;
	}

}
