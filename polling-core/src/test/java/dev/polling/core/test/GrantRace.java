package dev.polling.core.test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.UnaryOperator;

import dev.polling.core.Decision;
import dev.polling.core.PollingManager;
import dev.polling.core.PollingSettings;

/**
 * Releases the decisions of several real instances (each with its own JMX connector server) at
 * the same instant, many times, and counts how often more than one was granted.
 */
public final class GrantRace {

	private GrantRace() {
	}

	/** Outcome of a race run. */
	public record Result(int iterations, int doubleGrants, int doubleGrantsAllAnswering, int roundsWithUnknownPeer, int noGrant,
			int singleGrant) {

		@Override
		public String toString() {
			return "iterations=" + this.iterations + " doubleGrants=" + this.doubleGrants + " (of which every peer answered: "
					+ this.doubleGrantsAllAnswering + ") roundsWithUnknownPeer=" + this.roundsWithUnknownPeer + " singleGrant="
					+ this.singleGrant + " noGrant=" + this.noGrant;
		}

	}

	public static Result run(int instances, int iterations, UnaryOperator<PollingSettings> settings) throws Exception {
		return run(instances, iterations, settings, UnaryOperator.identity());
	}

	/** A race whose managers' builders are also customised (e.g. {@code TestBuilders::checkThenAct}). */
	public static Result run(int instances, int iterations, UnaryOperator<PollingSettings> settings,
			UnaryOperator<PollingManager.Builder> builder) throws Exception {
		List<Instance> cluster = Instance.cluster(instances, settings, builder);
		ExecutorService pool = Executors.newFixedThreadPool(instances);
		try {
			int doubles = 0;
			int doublesAllAnswering = 0;
			int unknownRounds = 0;
			int none = 0;
			int single = 0;
			for (int i = 0; i < iterations; i++) {
				cluster.forEach((instance) -> instance.manager().release(Instance.CLUSTER));
				CountDownLatch go = new CountDownLatch(1);
				List<Future<Decision>> futures = new ArrayList<>();
				for (Instance instance : cluster) {
					futures.add(pool.submit(() -> {
						go.await();
						return instance.manager().decide(Instance.CLUSTER);
					}));
				}
				go.countDown();
				int granted = 0;
				List<Decision> decisions = new ArrayList<>();
				for (Future<Decision> future : futures) {
					decisions.add(future.get());
					if (future.get().isGranted()) {
						granted++;
					}
				}
				boolean unknown = decisions.stream()
					.anyMatch((d) -> d.peers().stream().anyMatch((o) -> o.state().isUnknown()));
				if (unknown) {
					unknownRounds++;
				}
				if (granted > 1) {
					if (!unknown) {
						doublesAllAnswering++;
					}
					if (doubles < 3) {
						System.out.println("double grant in iteration " + i + ":");
						decisions.forEach((d) -> System.out.println("  " + d));
					}
					doubles++;
				}
				else if (granted == 0) {
					none++;
				}
				else {
					single++;
				}
			}
			return new Result(iterations, doubles, doublesAllAnswering, unknownRounds, none, single);
		}
		finally {
			pool.shutdownNow();
			cluster.forEach(Instance::close);
		}
	}

}
