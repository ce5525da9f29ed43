package dev.polling.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import javax.management.MBeanServerFactory;

import org.junit.jupiter.api.Test;

/**
 * Defect 8 of the exclusion issue: the "now holds" / "no longer holds" bookkeeping was shared state
 * written without synchronisation by every thread that decides, releases, pauses or checks. The
 * listener must see the changes in order: holding and not holding alternate, none is lost, and the
 * last one told is the state the cluster ends in.
 */
class HoldEventsTest {

	private static final String CLUSTER = "EVENTS";

	@Test
	void holdChangesReachTheListenerAlternatingAndEndInTheFinalStateUnderConcurrentCalls() throws Exception {
		List<Boolean> told = new CopyOnWriteArrayList<>();
		PollingListener listener = new PollingListener() {

			@Override
			public void onHoldChanged(String clusterId, boolean holding, boolean takeover) {
				told.add(holding);
			}

		};
		int threads = 4;
		int rounds = 2_000;
		try (PollingManager manager = TestBuilders.ignoringStarvation(PollingManager.builder())
			.settings(PollingSettings.defaults().withInstanceId("solo"))
			.cluster(ClusterDefinition.of(CLUSTER, Duration.ofSeconds(10)))
			.mbeanServer(MBeanServerFactory.newMBeanServer())
			.listener(listener)
			.build()) {
			ExecutorService pool = Executors.newFixedThreadPool(threads);
			try {
				CyclicBarrier start = new CyclicBarrier(threads);
				List<Future<?>> futures = new ArrayList<>();
				for (int t = 0; t < threads; t++) {
					int thread = t;
					futures.add(pool.submit(() -> {
						start.await();
						for (int i = 0; i < rounds; i++) {
							switch ((i + thread) % 4) {
								case 0, 2 -> manager.decide(CLUSTER);
								case 1 -> manager.release(CLUSTER);
								default -> {
									manager.pause(CLUSTER);
									manager.resume(CLUSTER);
								}
							}
						}
						return null;
					}));
				}
				for (Future<?> f : futures) {
					f.get();
				}
			}
			finally {
				pool.shutdownNow();
			}
			manager.decide(CLUSTER); // one more decision reports the final state
			boolean holding = manager.isHolding(CLUSTER);
			assertThat(told).as("hold changes told").isNotEmpty();
			for (int i = 1; i < told.size(); i++) {
				assertThat(told.get(i)).as("change %d of %d alternates with the one before", i, told.size()).isNotEqualTo(told.get(i - 1));
			}
			assertThat(told.get(0)).as("the first change is the first hold").isTrue();
			assertThat(told.get(told.size() - 1)).as("the last change told is the final state").isEqualTo(holding);
		}
	}

}
