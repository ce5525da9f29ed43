package dev.polling.console;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.polling.core.Decision;
import dev.polling.core.Decision.Outcome;
import dev.polling.core.Decision.Reason;
import dev.polling.core.PeerFault;
import dev.polling.core.PeerObservation;
import dev.polling.core.PeerState;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** The timeline: equal decisions collapse into one entry, changes add entries, the ring stays bounded, the version grows. */
class ConsoleTimelineTests {

	private static final Instant T0 = Instant.parse("2026-01-01T10:00:00Z");

	private final ConsoleTimeline timeline = new ConsoleTimeline(10, Clock.fixed(T0, ZoneOffset.UTC), (c) -> Duration.ofSeconds(10));

	@Test
	void equalDecisionsInARowAreOneEntryWithItsRepeats() {
		for (int i = 0; i < 5; i++) {
			this.timeline.onDecision(refusedBy("b", T0.plusSeconds(i)));
		}
		List<ConsoleTimeline.Entry> entries = this.timeline.entries("C", 100);
		assertThat(entries).singleElement().satisfies((e) -> {
			assertThat(e.text()).isEqualTo("refused: peer-active (holder b)");
			assertThat(e.repeats()).isEqualTo(5);
			assertThat(e.at()).isEqualTo(T0);
			assertThat(e.lastAt()).isEqualTo(T0.plusSeconds(4));
		});
		assertThat(this.timeline.version()).isEqualTo(1);
		assertThat(this.timeline.holderSince("C")).isEqualTo(T0);
	}

	@Test
	void aNewHolderOrReasonIsANewEntryAndMovesTheHolderSince() {
		this.timeline.onDecision(refusedBy("b", T0));
		this.timeline.onDecision(refusedBy("c", T0.plusSeconds(1)));
		this.timeline.onDecision(new Decision("C", Outcome.REFUSED, Reason.PAUSED, List.of(), Duration.ZERO, T0.plusSeconds(2)));
		assertThat(this.timeline.entries("C", 100)).extracting(ConsoleTimeline.Entry::text)
			.containsExactly("refused: paused", "refused: peer-active (holder c)", "refused: peer-active (holder b)");
		assertThat(this.timeline.holderSince("C")).isEqualTo(T0.plusSeconds(2));
		assertThat(this.timeline.version()).isEqualTo(3);
	}

	@Test
	void keepsOnlyTheNewestEntries() {
		for (int i = 0; i < 25; i++) {
			this.timeline.onHoldChanged("C", i % 2 == 0, false);
		}
		this.timeline.action("C", "paused by 'x' through the console");
		assertThat(this.timeline.entries("C", 100)).hasSize(10).first().extracting(ConsoleTimeline.Entry::kind).isEqualTo("action");
		assertThat(this.timeline.entries("C", 3)).hasSize(3);
		assertThat(this.timeline.entries("OTHER", 3)).isEmpty();
		assertThat(this.timeline.version()).isEqualTo(26);
	}

	@Test
	void keepsTheLastHoursOnly() {
		MutableClock clock = new MutableClock(T0);
		ConsoleTimeline hours = new ConsoleTimeline(100, Duration.ofHours(2), clock, (c) -> Duration.ofSeconds(10));
		hours.onHoldChanged("C", true, false); // at T0
		clock.now = T0.plus(Duration.ofMinutes(90));
		hours.action("C", "paused by 'x' through the console");
		hours.onDecision(refusedBy("b", clock.now));
		clock.now = T0.plus(Duration.ofMinutes(121));
		assertThat(hours.entries("C", 100)).extracting(ConsoleTimeline.Entry::kind).as("2 h 1 min after the first entry")
			.containsExactly("decision", "action");
		// a decision repeated until now stays, however old its first occurrence
		hours.onDecision(refusedBy("b", clock.now));
		clock.now = T0.plus(Duration.ofMinutes(90 + 121));
		assertThat(hours.entries("C", 100)).extracting(ConsoleTimeline.Entry::kind).containsExactly("decision");
		clock.now = T0.plus(Duration.ofMinutes(121 + 121));
		assertThat(hours.entries("C", 100)).isEmpty();
	}

	@Test
	void refusesAnEmptyRing() {
		assertThatIllegalArgumentException().isThrownBy(() -> new ConsoleTimeline(0, Clock.systemUTC(), (c) -> Duration.ofSeconds(10)))
			.withMessage("size must be positive, was 0");
	}

	/** A clock a test moves. */
	static final class MutableClock extends Clock {

		volatile Instant now;

		MutableClock(Instant now) {
			this.now = now;
		}

		@Override
		public java.time.ZoneId getZone() {
			return ZoneOffset.UTC;
		}

		@Override
		public Clock withZone(java.time.ZoneId zone) {
			return this;
		}

		@Override
		public Instant instant() {
			return this.now;
		}

	}

	static Decision refusedBy(String holder, Instant at) {
		PeerObservation peer = new PeerObservation(holder.toUpperCase(), "127.0.0.1:1", PeerState.ANSWERED, PeerFault.NONE, holder, 500, -1,
				Duration.ofMillis(2), at, null, 1);
		return new Decision("C", Outcome.REFUSED, Reason.PEER_ACTIVE, List.of(peer), Duration.ofMillis(3), at);
	}

}
