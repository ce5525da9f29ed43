package dev.polling.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.polling.core.test.ManualTime;


class HoldStateTest {

	/**
	 * A peer reading a candidate while it is granted must see it as candidate or as holder, never as
	 * neither (which would let the peer grant too).
	 */
	@Test
	void neverShowsACandidateBeingGrantedAsNeitherCandidateNorHolder() throws Exception {
		AtomicInteger neither = new AtomicInteger();
		for (int i = 0; i < 2_000; i++) {
			HoldState state = new HoldState(TimeSource.SYSTEM, 10_000_000_000L);
			HoldState.Ticket ticket = state.announce();
			AtomicBoolean granted = new AtomicBoolean();
			CountDownLatch reading = new CountDownLatch(1);
			Thread reader = new Thread(() -> {
				reading.countDown();
				boolean done = false;
				while (!done) {
					done = granted.get();
					long[] snapshot = state.snapshot();
					if (snapshot[0] == Long.MAX_VALUE && snapshot[1] < 0) {
						neither.incrementAndGet();
					}
				}
			});
			reader.start();
			assertThat(reading.await(10, TimeUnit.SECONDS)).isTrue();
			assertThat(state.grant(ticket)).isTrue();
			granted.set(true);
			reader.join();
			assertThat(state.snapshot()[0]).isLessThan(10_000);
			assertThat(state.snapshot()[1]).isEqualTo(-1);
		}
		assertThat(neither).hasValue(0);
	}

	/**
	 * Peers ignore a candidacy older than the longest a decision may take; a candidate whose thread
	 * stalled past that between its last check and the grant must not be granted, since a peer may have
	 * ignored it and been granted meanwhile (simulation seed 942).
	 */
	@Test
	void aGrantFailsOnceTheCandidacyIsOlderThanPeersCountIt() {
		ManualTime time = new ManualTime();
		long max = java.time.Duration.ofMillis(1_550).toNanos();
		HoldState state = new HoldState(time, 10_000_000_000L);
		HoldState.Ticket ticket = state.announce();
		time.advance(java.time.Duration.ofMillis(1_551));
		assertThat(state.grant(ticket, ticket.announcedAt() + max)).isFalse();
		assertThat(state.isHolding()).isFalse();

		HoldState fresh = new HoldState(time, 10_000_000_000L);
		HoldState.Ticket inTime = fresh.announce();
		time.advance(java.time.Duration.ofMillis(1_550));
		assertThat(fresh.grant(inTime, inTime.announcedAt() + max)).isTrue();
		assertThat(fresh.isHolding()).isTrue();
	}

}
