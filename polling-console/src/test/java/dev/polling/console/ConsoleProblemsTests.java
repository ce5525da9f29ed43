package dev.polling.console;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.polling.core.ClusterDefinition;
import dev.polling.core.ClusterStatus;
import dev.polling.core.Decision;
import dev.polling.core.Decision.Outcome;
import dev.polling.core.Decision.Reason;
import dev.polling.core.PeerFault;
import dev.polling.core.PeerObservation;
import dev.polling.core.PeerState;

import static org.assertj.core.api.Assertions.assertThat;

/** The problems panel: each state an operator must act on gives one problem with what to do, a healthy cluster none. */
class ConsoleProblemsTests {

	private static final Instant START = Instant.parse("2026-01-01T10:00:00Z");

	private static final ClusterDefinition CLUSTER = new ClusterDefinition("C", "C", Duration.ofSeconds(10), Set.of("A", "B"));

	@Test
	void aHealthyStandbyHasNoProblems() {
		assertThat(ConsoleProblems.of(status(false, ConsoleTimelineTests.refusedBy("b", START), null), START.plusSeconds(60), START, null))
			.isEmpty();
	}

	@Test
	void noDecisionLongAfterStartPointsAtScheduling() {
		assertThat(ConsoleProblems.of(status(false, null, null), START.plusSeconds(20), START, null)).isEmpty();
		assertThat(ConsoleProblems.of(status(false, null, null), START.plusSeconds(31), START, null)).singleElement().satisfies((p) -> {
			assertThat(p.code()).isEqualTo("no-decision");
			assertThat(p.fix()).contains("@EnableScheduling");
		});
	}

	@Test
	void disagreementsAreNamedWithTheFix() {
		assertThat(ConsoleProblems.of(status(false, refused(Reason.SETTINGS_MISMATCH, List.of()), null), START, START, "B publishes wait 20 s"))
			.singleElement()
			.satisfies((p) -> {
				// a rolling configuration change: the holder keeps polling, so a warning, not an outage
				assertThat(p.severity()).isEqualTo("warning");
				assertThat(p.code()).isEqualTo("settings-mismatch");
				assertThat(p.fix()).startsWith("B publishes wait 20 s Give every instance the same wait-time");
			});
		// the holder that keeps the cluster beside other settings shows the same problem
		Decision kept = new Decision("C", Outcome.GRANTED, Reason.RENEWED_DESPITE_SETTINGS_MISMATCH, List.of(), Duration.ofMillis(1), START);
		assertThat(ConsoleProblems.of(status(true, kept, null), START, START, "B publishes wait 20 s"))
			.extracting(ConsoleProblems.Problem::code)
			.containsExactly("settings-mismatch");
		assertThat(ConsoleProblems.of(status(false, refused(Reason.DUPLICATE_INSTANCE_ID, List.of()), null), START, START, null))
			.extracting(ConsoleProblems.Problem::code)
			.containsExactly("duplicate-instance-id");
		// a masked detail is not shown as if it were advice
		assertThat(ConsoleProblems.of(status(false, refused(Reason.PEER_MISCONFIGURED, List.of()), null), START, START, "******"))
			.singleElement()
			.satisfies((p) -> assertThat(p.fix()).startsWith("Fix the peer's host"));
	}

	@Test
	void aMisconfiguredPeerBesideAHolderIsNamed() {
		PeerObservation wrong = new PeerObservation("B", "127.0.0.1:8080", PeerState.ERROR, PeerFault.NOT_JMX, null, PeerObservation.NEVER,
				-1, Duration.ofMillis(1), START, "not a JMX server", 0);
		Decision renewed = new Decision("C", Outcome.GRANTED, Reason.RENEWED, List.of(wrong), Duration.ofMillis(1), START);
		assertThat(ConsoleProblems.of(status(true, renewed, null), START, START, null)).singleElement().satisfies((p) -> {
			assertThat(p.code()).isEqualTo("peer-misconfigured");
			assertThat(p.title()).isEqualTo("Peer B (127.0.0.1:8080) has a configuration fault: not-jmx");
		});
	}

	@Test
	void anOverrunningCycleAndASilentHolder() {
		Decision renewed = new Decision("C", Outcome.GRANTED, Reason.RENEWED, List.of(), Duration.ofMillis(1), START);
		assertThat(ConsoleProblems.of(status(true, renewed, Duration.ofSeconds(12)), START, START, null))
			.extracting(ConsoleProblems.Problem::code)
			.containsExactly("cycle-overrunning");
		ClusterStatus silent = new ClusterStatus(CLUSTER, true, false, false, START, Duration.ofSeconds(11), renewed, List.of("A", "B"),
				List.of());
		assertThat(ConsoleProblems.of(silent, START, START, null)).extracting(ConsoleProblems.Problem::code).containsExactly("holder-silent");
		assertThat(ConsoleProblems.of(status(false, refused(Reason.PEER_PRESUMED_ACTIVE, List.of()), null), START, START, null))
			.extracting(ConsoleProblems.Problem::code)
			.containsExactly("holder-silent");
	}

	private static Decision refused(Reason reason, List<PeerObservation> peers) {
		return new Decision("C", Outcome.REFUSED, reason, peers, Duration.ofMillis(1), START);
	}

	private static ClusterStatus status(boolean holding, Decision decision, Duration cycleRunningFor) {
		return new ClusterStatus(CLUSTER, holding, false, cycleRunningFor != null, holding ? START : null,
				holding ? Duration.ofSeconds(1) : null, decision, List.of("A", "B"), List.of(), cycleRunningFor);
	}

}
