package dev.polling.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import dev.polling.core.test.ManualTime;

/**
 * The stop detection on a manual clock: a gap longer than half the peer timeout is a stop. A peer's
 * request waits the whole peer timeout before it counts this instance as unknown, so a stop between
 * half and the whole peer timeout may already have let a peer grant (its request timed out while the
 * answer was still on its way); a threshold of the peer timeout, or at least one second, missed those.
 */
class StopDetectorTest {

	private final ManualTime time = new ManualTime();

	private final AtomicLong gaps = new AtomicLong();

	private StopDetector detector(Duration peerTimeout) {
		return new StopDetector(LocalInstance.stopThreshold(PollingSettings.defaults().withPeerTimeout(peerTimeout)),
				(gap) -> this.gaps.set(gap), () -> {
				}, this.time::nanoTime, false);
	}

	@Test
	void aGapOfMoreThanHalfThePeerTimeoutIsAStop() {
		StopDetector stops = detector(Duration.ofMillis(500));
		this.time.advance(Duration.ofMillis(200));
		assertThat(stops.stops()).as("200 ms: scheduling, not a stop").isZero();
		this.time.advance(Duration.ofMillis(300));
		assertThat(stops.stops()).as("300 ms with a 500 ms peer timeout").isEqualTo(1);
		assertThat(this.gaps).hasValue(Duration.ofMillis(300).toNanos());
		assertThat(stops.stoppedWithin(Duration.ofMillis(1500))).isTrue();
	}

	@Test
	void aStopBelowOneSecondIsDetectedWithAShortPeerTimeout() {
		StopDetector stops = detector(Duration.ofMillis(400));
		this.time.advance(Duration.ofMillis(700));
		assertThat(stops.stops()).as("700 ms with a 400 ms peer timeout: a peer may have granted").isEqualTo(1);
	}

	@Test
	void aHoldGrantedBeforeAStopIsVoid() {
		StopDetector stops = detector(Duration.ofMillis(500));
		HoldState state = new HoldState(this.time, Duration.ofSeconds(10).toNanos(), Long.MAX_VALUE, stops::stops);
		assertThat(state.grantNow()).isTrue();
		this.time.advance(Duration.ofMillis(100));
		assertThat(state.isHolding()).isTrue();
		this.time.advance(Duration.ofMillis(600));
		assertThat(state.isHolding()).as("after a 600 ms gap, well inside the wait time").isFalse();
	}

}
