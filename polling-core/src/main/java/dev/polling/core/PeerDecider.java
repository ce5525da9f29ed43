package dev.polling.core;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.polling.core.Decision.Reason;
import dev.polling.core.Protocol.Action;
import dev.polling.core.Protocol.Step;

/**
 * Drives the {@link Protocol} for a cluster decided by its peers: asks them, waits the settle time,
 * and applies each step to the {@link HoldState}. A grant is conditional on the ticket of the
 * announcement, so a release, pause, close or stop of this JVM during the acquisition makes it fail.
 */
final class PeerDecider {

	private static final Logger logger = LoggerFactory.getLogger(PeerDecider.class);

	/** A holder renews without settle time only while this much of its wait time is left. */
	static final Duration RENEWAL_MARGIN = Duration.ofSeconds(1);

	/** How often an error about a peer that lasts is logged again. */
	static final Duration ERROR_REPEAT = Duration.ofMinutes(1);

	private PeerDecider() {
	}

	static Decision decide(ClusterRuntime c, long start, List<PeerObservation> observed) {
		LocalInstance instance = c.instance();
		TimeSource time = instance.time();
		Protocol.Self self = self(c);
		HoldState state = c.state();

		// Holder: extend first, then check that nothing makes it let go.
		long generation = state.renewIfHolding(RENEWAL_MARGIN.toNanos());
		if (generation >= 0) {
			List<PeerObservation> peers = c.survey(c.survey().peers(), null, observed);
			if (state.generation() != generation || !state.isHolding()) {
				return c.decision(endedMeanwhile(c), peers, start);
			}
			Step step = Protocol.renewal(self, balance(c), peers);
			String detail = null;
			if (step.action() == Action.RELEASE) {
				if (step.reason() == Reason.HANDED_OVER) {
					// the path of a pause or release: a cycle running under this hold (another thread's) ends first
					state.letGo(generation, false, false);
				}
				else {
					state.releaseIf(generation); // yielded: a peer with precedence holds it too, no time to wait
				}
				detail = report(c, step);
				if (step.reason() == Reason.HANDED_OVER) {
					c.holdBack();
					instance.handedOver(c.definition().waitTime());
				}
			}
			else if (step.reason() == Reason.RENEWED_DESPITE_SETTINGS_MISMATCH) {
				detail = report(c, step);
			}
			return c.decision(step.reason(), peers, start, detail);
		}
		if (c.holdingBack()) {
			// still ask the peers while holding off: presume-last-known must know the peer that took over as holder
			return c.decision(Reason.HANDED_OVER, c.survey(c.survey().peers(), null, observed), start);
		}

		// Candidate, first round: refuse cheaply while anybody holds or acquires.
		// Both rounds ask the same peers: a peer discovered meanwhile is asked from the next decision on.
		long firstRoundStart = time.nanoTime();
		List<PeerDefinition> asked = c.survey().peers();
		List<PeerObservation> first = c.survey(asked, null, observed);
		PeerDiscovery discovery = c.survey().discovery();
		String pending = (discovery != null) ? discovery.pending(time.nanoTime(), discoverySettleNanos(self, discovery),
				c.definition().waitTime().toNanos()) : null;
		if (pending != null) {
			return c.decision(Reason.DISCOVERY_PENDING, first, start, pending);
		}
		Step step = Protocol.firstRound(self, balance(c), first, c.memory, time.nanoTime(), instance.justStopped());
		if (step.action() == Action.REFUSE) {
			if (step.reason() == Reason.LEFT_TO_LIGHTER_PEER) {
				c.deferrals++;
			}
			return c.decision(step.reason(), first, start, report(c, step));
		}
		if (step.action() == Action.GRANT) {
			return c.decision(state.grantNow() ? step.reason() : endedMeanwhile(c), first, start);
		}

		// Announce, settle, ask again; grant only if nothing changed since the announcement.
		HoldState.Ticket ticket = state.announce();
		if (ticket == null) {
			return c.decision(endedMeanwhile(c), first, start);
		}
		boolean granted = false;
		try {
			time.sleep(Duration.ofMillis(Protocol.settleMillis(self, first)));
			long ownAgeMillis = (time.nanoTime() - ticket.announcedAt()) / 1_000_000L;
			List<PeerObservation> second = c.survey(asked, first, observed);
			long now = time.nanoTime();
			step = Protocol.secondRound(self, second, c.memory, now, ownAgeMillis, (now - ticket.announcedAt()) / 1_000_000L);
			if (step.action() != Action.GRANT) {
				return c.decision(step.reason(), second, start, report(c, step));
			}
			granted = state.grant(ticket, notAfter(self, ticket, firstRoundStart));
			return c.decision(granted ? step.reason() : failedGrant(c, ticket, notAfter(self, ticket, firstRoundStart)), second, start);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return c.decision(Reason.INTERRUPTED, List.of(), start);
		}
		finally {
			if (!granted) {
				state.withdraw(ticket);
			}
		}
	}

	/**
	 * Until when the decision's answers are good for a grant, checked with the time the grant writes
	 * (the thread may stall between the last check and the grant):
	 * <ul>
	 * <li>peers stop counting a candidacy older than the longest a decision may take, and may have been
	 * granted beside it (simulation seed 942);</li>
	 * <li>a peer that was unknown in the first round is not asked again: it may be a JVM that was
	 * stopped, and a resumed JVM does not acquire for three peer timeouts after its stop, so the grant
	 * must come within two peer timeouts of the first round's start (simulation seed 522: a thread
	 * stalled 2.5 s after its first round, the stopped peer resumed and acquired meanwhile).</li>
	 * </ul>
	 */
	private static long notAfter(Protocol.Self self, HoldState.Ticket ticket, long firstRoundStart) {
		long candidacyLimit = ticket.announcedAt() + self.maxCandidateAgeMillis() * 1_000_000L;
		long firstRoundLimit = firstRoundStart + 2 * self.published().peerTimeoutMillis() * 1_000_000L;
		return (candidacyLimit - firstRoundLimit < 0) ? candidacyLimit : firstRoundLimit;
	}

	/**
	 * How long this instance's own address must have been in the DNS answers before it acquires: two
	 * intervals (the oldest view a peer may acquire with) plus the longest decision, so that a peer
	 * that acquires at the same time has resolved this instance and asks it.
	 */
	private static long discoverySettleNanos(Protocol.Self self, PeerDiscovery discovery) {
		return discovery.settleNanos(Duration.ofMillis(self.maxCandidateAgeMillis()));
	}

	/** Why a grant failed: the answers grew too old, or the acquisition ended meanwhile. */
	private static Reason failedGrant(ClusterRuntime c, HoldState.Ticket ticket, long notAfterNanos) {
		HoldState state = c.state();
		if (state.generation() == ticket.generation() && !state.isPaused() && !state.isClosed()
				&& c.instance().time().nanoTime() - notAfterNanos > 0) {
			return Reason.DECISION_TOO_SLOW;
		}
		return endedMeanwhile(c);
	}

	/**
	 * Asks the peers without deciding, and reports each peer entry with a configuration fault as a
	 * decision would (an ERROR naming the peer and the likely cause): a wrong peer entry shows at
	 * start, not only at the first tick.
	 * @return the observations
	 */
	static List<PeerObservation> checkPeers(ClusterRuntime c) {
		List<PeerObservation> peers = c.survey(c.survey().peers(), null, new java.util.ArrayList<>());
		for (PeerObservation o : peers) {
			if (o.fault().isConfigurationFault()) {
				report(c, new Step(Action.REFUSE, Reason.PEER_MISCONFIGURED, o));
			}
		}
		return peers;
	}

	/** Why a hold or an acquisition ended while the decision asked the peers. */
	private static Reason endedMeanwhile(ClusterRuntime c) {
		HoldState state = c.state();
		if (state.isClosed()) {
			return Reason.CLOSED;
		}
		if (state.isPaused()) {
			return Reason.PAUSED;
		}
		return c.instance().justStopped() ? Reason.STOPPED : Reason.RELEASED;
	}

	static Protocol.Self self(ClusterRuntime c) {
		PollingSettings settings = c.instance().settings();
		ClusterDefinition cluster = c.definition();
		PeerObservation.Published published = new PeerObservation.Published(c.instance().incarnation(), cluster.waitTime().toMillis(),
				settings.settleTime().toMillis(), settings.peerTimeout().toMillis());
		long maxCandidateAge = settings.peerTimeout().multipliedBy(2).plus(settings.settleTime()).plusMillis(500).toMillis();
		return new Protocol.Self(settings.instanceId(), published, settings.unreachablePeerPolicy(), c.instance().grantProtocol(),
				maxCandidateAge);
	}

	private static Protocol.Balance balance(ClusterRuntime c) {
		LocalInstance instance = c.instance();
		if (!instance.balanceClusters()) {
			return Protocol.Balance.OFF;
		}
		return new Protocol.Balance(true, instance.heldClusters(), instance.handoverDue(), c.deferrals);
	}

	/**
	 * Logs what a step means for the operator: a disagreement as an error (once per change), a yield
	 * or a handover.
	 * @return the disagreement's message, for the decision's detail; null otherwise
	 */
	private static @Nullable String report(ClusterRuntime c, Step step) {
		PeerObservation o = step.cause();
		String ownId = c.instance().settings().instanceId();
		switch (step.reason()) {
			case DUPLICATE_INSTANCE_ID -> {
				return logDisagreement(c, o, true, "Cluster '" + c.id() + "': peer '" + peerId(o) + "' (" + address(o)
					+ ") answers with this instance's id '" + ownId + "' from another process: two instances share one id, so neither "
					+ "can tell the other from itself. Nobody is granted the cluster until each instance has a unique instance id "
					+ "(property polling.instance-id).");
			}
			case SETTINGS_MISMATCH, RENEWED_DESPITE_SETTINGS_MISMATCH -> {
				boolean holder = step.reason() == Reason.RENEWED_DESPITE_SETTINGS_MISMATCH;
				return logDisagreement(c, o, false, "Cluster '" + c.id() + "': instance '" + ownId + "' runs with "
					+ self(c).published().settingsText() + ", but peer '" + peerId(o) + "' (" + address(o) + ", instance '"
					+ ((o != null) ? o.instanceId() : "?") + "') with " + ((o != null && o.published() != null) ? o.published().settingsText() : "?")
					+ ". The protocol's safety rests on equal settings"
					+ (holder ? ": this instance holds the cluster and keeps it on its settings; instances with other settings do not acquire it."
							: ": this instance does not acquire the cluster while it sees a peer with other settings; a holder keeps it.")
					+ " Expected during a rolling configuration change; it ends when all instances use the same settings"
					+ " (polling.clusters." + c.id() + ".wait-time, polling.settle-time, polling.jmx.peer-timeout).");
			}
			case PEER_MISCONFIGURED -> {
				return logDisagreement(c, o, true, "Cluster '" + c.id() + "': peer '" + peerId(o) + "' (" + address(o) + ") has a configuration fault ("
						+ ((o != null) ? o.fault() : "?") + "): " + likelyCause(o) + " Whether the instance behind it polls is unknown, so this "
						+ "instance does not acquire the cluster until the peer entry is fixed.");
			}
			case YIELDED_TO_PEER -> logger.warn("Cluster '{}': peer {} ({}) holds it too and has precedence; this instance lets go", c.id(),
					peerId(o), (o != null) ? o.instanceId() : "?");
			case HANDED_OVER -> logger.info("Cluster '{}': handed over to balance the clusters (this instance held {}, peer '{}' holds {})",
					c.id(), c.instance().heldClusters() + 1, peerId(o), (o != null) ? o.heldClusters() : -1);
			default -> {
				// nothing to report
			}
		}
		return null;
	}

	/**
	 * Logs an error (or a warning) about a peer when it is new or changed, and again every
	 * {@link #ERROR_REPEAT} while it lasts.
	 */
	private static String logDisagreement(ClusterRuntime c, @Nullable PeerObservation o, boolean error, String message) {
		long now = c.instance().time().nanoTime();
		ClusterRuntime.LoggedError last = c.loggedErrors.get(peerId(o));
		if (last == null || !last.message().equals(message) || now - last.at() >= ERROR_REPEAT.toNanos()) {
			c.loggedErrors.put(peerId(o), new ClusterRuntime.LoggedError(message, now));
			if (error) {
				logger.error(message);
			}
			else {
				logger.warn(message);
			}
		}
		return message;
	}

	private static String likelyCause(@Nullable PeerObservation o) {
		if (o == null) {
			return "";
		}
		return switch (o.fault()) {
			case AUTHENTICATION -> "the peer rejects the credentials; check polling.jmx.peers." + o.peerId() + ".username/password against the peer's polling.jmx.server credentials.";
			case TLS -> "the TLS handshake fails; check the peer's ssl-bundle and polling.jmx.server.ssl-bundle on the peer.";
			case NOT_JMX -> "this address answers, but not as a JMX server (an HTTP port?); point the peer entry at the peer's polling.jmx.server.port.";
			case UNKNOWN_HOST -> "the host name does not resolve; fix the host of polling.jmx.peers." + o.peerId() + ".";
			case BAD_RESPONSE -> "its MBean does not look like a polling MBean (" + o.detail() + "); check polling.jmx.domain and polling.jmx.contract on both sides.";
			default -> String.valueOf(o.detail());
		};
	}

	private static String peerId(@Nullable PeerObservation o) {
		return (o != null) ? o.peerId() : "?";
	}

	private static String address(@Nullable PeerObservation o) {
		return (o != null) ? o.address() : "?";
	}

}
