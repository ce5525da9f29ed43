package dev.polling.core.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * A holder whose JVM is stopped (SIGSTOP) for longer than the peer timeout, under the default
 * policy {@code proceed}: the other instance counts it as unreachable, hence idle, and takes the
 * cluster over. When the stopped JVM continues (SIGCONT) its hold is still within the wait time.
 * Without stop detection it went on reporting (and polling) as holder until its next decision, and
 * the instance that had taken over then yielded to it (lower instance id): two holders, then a
 * handover back. With it, the resumed instance lets go at once and does not acquire for three peer
 * timeouts after its stop.
 * Two JVMs, real signals.
 */
class StoppedHolderTest {

	private static final long TICK_MILLIS = 500;

	private static final long PEER_TIMEOUT_MILLIS = 2000; // with 500 ms (stop threshold 250 ms) a loaded 2-core machine made every process detect stops of 300-420 ms all the time, so nobody held

	@AutoClose
	private PeerProcesses instances;

	@Test
	void aHolderResumedAfterAStopLetsGoAtOnceAndDoesNotAcquireRightAfterIt() throws Exception {
		this.instances = new PeerProcesses(TICK_MILLIS, PEER_TIMEOUT_MILLIS, "a", "b");
		await().atMost(Duration.ofSeconds(60)).until(() -> this.instances.holders().size() == 1);
		String stopped = this.instances.holders().get(0);
		String other = stopped.equals("a") ? "b" : "a";

		this.instances.signal(stopped, "STOP");
		// reading the stopped JVM would block until it continues: watch the other one only
		await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50)).until(() -> this.instances.isHolding(other));
		Thread.sleep(1000); // stopped for about 2-3 s in all, well inside the 10 s wait time of its hold
		this.instances.signal(stopped, "CONT");

		// at least 5 s and at least 50 samples: on a starved machine one sample (two JMX reads) took 500 ms
		long resumedAt = System.nanoTime();
		List<String> seen = new ArrayList<>();
		List<String> withinGrace = new ArrayList<>();
		long end = resumedAt + Duration.ofSeconds(5).toNanos();
		while (System.nanoTime() < end || seen.size() < 50) {
			long sampledAt = System.nanoTime();
			boolean stoppedHolds = this.instances.isHolding(stopped);
			boolean otherHolds = this.instances.isHolding(other);
			String sample = (stoppedHolds ? stopped : "-") + "/" + (otherHolds ? other : "-");
			seen.add(sample);
			if (sampledAt - resumedAt < Duration.ofSeconds(5).toNanos()) {
				withinGrace.add(sample);
			}
			Thread.sleep(50);
		}
		System.out.println("samples after SIGCONT (resumed/other): " + seen);
		// The resumed instance lets go at once, and for three peer timeouts (6 s) after its stop it does
		// not acquire: in the first 5 s it holds in no sample.
		assertThat(withinGrace).as("holders in the first 5 s after SIGCONT (the resumed instance / the other)")
			.isNotEmpty()
			.allMatch((sample) -> sample.startsWith("-/"));
		// Never both. (Whether the other keeps holding is not asserted: on a starved CI machine it too
		// detected stops of over a second now and then and let go, as it must.)
		assertThat(seen).as("holders sampled after SIGCONT").noneMatch((sample) -> sample.equals(stopped + "/" + other));
	}

}
