package dev.polling.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;

import dev.polling.core.DnsCluster.Node;

/**
 * Seeded random runs of instances that find each other through a changing DNS name
 * ({@link DnsCluster}): blips of one address or of the whole name for random lengths (shorter and
 * longer than the wait time), addresses removed for good while their instance keeps running,
 * instances that join (also on the address of one that left), crash, pause and resume, resolvers
 * that fail or hang for a while, decisions in random order at random gaps around the re-resolve
 * interval. After every decision at most one instance holds the cluster. A failure names its seed;
 * {@code -Dpolling.dns.seed=N} replays it.
 */
class DnsDiscoverySimulationTest {

	private static final int SEEDS = Integer.getInteger("polling.dns.seeds", 100);

	private static final int STEPS = Integer.getInteger("polling.dns.steps", 400);

	@Test
	void neverTwoHoldersWhileTheNameChanges() {
		Integer only = Integer.getInteger("polling.dns.seed");
		long grants = 0;
		for (int seed = (only != null) ? only : 0; seed < ((only != null) ? only + 1 : SEEDS); seed++) {
			grants += run(seed);
		}
		// the runs are not vacuous: the cluster changed hands many times
		assertThat(grants).isGreaterThan(SEEDS);
	}

	/** One run; returns how many times a new holder was granted. */
	private long run(long seed) {
		Random random = new Random(seed);
		List<String> log = new ArrayList<>();
		long grants = 0;
		try (DnsCluster dns = new DnsCluster()) {
			Map<String, Long> restoreAt = new HashMap<>();
			Map<Node, Long> resolverBackAt = new HashMap<>();
			Map<Node, Long> nextRefresh = new HashMap<>();
			int instances = 0;
			for (int i = 1; i <= 3; i++) {
				join(dns, "n" + instances++, "10.0.0." + i, log);
			}
			for (int step = 0; step < STEPS; step++) {
				long now = dns.time.nanoTime();
				chaos(dns, random, now, restoreAt, resolverBackAt, log);
				if (random.nextInt(60) == 0) {
					join(dns, "n" + instances++, "10.0.0." + (1 + random.nextInt(5)), log);
				}
				for (var e : List.copyOf(restoreAt.entrySet())) {
					if (now - e.getValue() >= 0) {
						dns.records.add(e.getKey());
						restoreAt.remove(e.getKey());
						log.add(at(dns) + " " + e.getKey() + " back in the name");
					}
				}
				for (var e : List.copyOf(resolverBackAt.entrySet())) {
					if (now - e.getValue() >= 0) {
						e.getKey().resolverFails = false;
						e.getKey().resolverHangs = false;
						resolverBackAt.remove(e.getKey());
					}
				}
				List<Node> order = new ArrayList<>(dns.nodes.values());
				java.util.Collections.shuffle(order, random);
				for (Node node : order) {
					if (!node.running) {
						continue;
					}
					if (now - nextRefresh.getOrDefault(node, Long.MIN_VALUE / 2) >= 0) {
						node.refresh();
						nextRefresh.put(node, now + DnsCluster.INTERVAL.toNanos() - random.nextInt(200) * 1_000_000L);
					}
					boolean held = node.holds();
					Decision decision = node.decide();
					if (decision.isGranted() && !held) {
						grants++;
					}
					log.add(at(dns) + " " + node.id + " " + decision.reason() + " holders=" + dns.holders());
					if (dns.holders().size() > 1) {
						throw new AssertionError("seed " + seed + ": two holders " + dns.holders() + "\n"
								+ String.join("\n", log.subList(Math.max(0, log.size() - 80), log.size())));
					}
				}
				dns.time.advance(Duration.ofMillis(300 + random.nextInt(1000)));
			}
		}
		return grants;
	}

	private static void chaos(DnsCluster dns, Random random, long now, Map<String, Long> restoreAt, Map<Node, Long> resolverBackAt,
			List<String> log) {
		int r = random.nextInt(100);
		List<Node> running = dns.nodes.values().stream().filter((n) -> n.running).toList();
		if (running.isEmpty()) {
			return;
		}
		Node node = running.get(random.nextInt(running.size()));
		long seconds = 1_000_000_000L;
		if (r < 4) {
			// one address leaves the name for 1-25 s (a blip, or longer than the wait time)
			if (dns.records.remove(node.address)) {
				long back = now + (1 + random.nextInt(25)) * seconds;
				restoreAt.put(node.address, back);
				log.add(at(dns) + " " + node.address + " (" + node.id + ") out of the name for " + (back - now) / seconds + " s");
			}
		}
		else if (r < 5) {
			// the whole name resolves to nothing for 1-8 s
			for (String address : List.copyOf(dns.records)) {
				dns.records.remove(address);
				restoreAt.put(address, now + (1 + random.nextInt(8)) * seconds);
			}
			log.add(at(dns) + " the name resolves to nothing");
		}
		else if (r < 6) {
			node.resolverFails = random.nextBoolean();
			node.resolverHangs = !node.resolverFails;
			resolverBackAt.put(node, now + (1 + random.nextInt(6)) * seconds);
			log.add(at(dns) + " " + node.id + "'s resolver " + (node.resolverFails ? "fails" : "hangs"));
		}
		else if (r < 7) {
			node.running = false;
			dns.records.remove(node.address);
			restoreAt.remove(node.address);
			log.add(at(dns) + " " + node.id + " crashes and leaves the name");
		}
		else if (r < 10) {
			node.manager.release(DnsCluster.CLUSTER);
			log.add(at(dns) + " " + node.id + " releases");
		}
		else if (r < 12) {
			if (node.manager.isPaused(DnsCluster.CLUSTER)) {
				node.manager.resume(DnsCluster.CLUSTER);
			}
			else {
				node.manager.pause(DnsCluster.CLUSTER);
			}
		}
	}

	/** Starts an instance at the address (replacing a crashed one there) and adds the address to the name. */
	private static void join(DnsCluster dns, String id, String address, List<String> log) {
		Node previous = dns.nodes.get(address + ":" + DnsCluster.PORT);
		if (previous != null && previous.running) {
			return;
		}
		if (previous != null) {
			previous.manager.close();
		}
		dns.start(id, address);
		dns.records.add(address);
		log.add(at(dns) + " " + id + " joins at " + address);
	}

	private static String at(DnsCluster dns) {
		return String.format("%9.3f", dns.time.nanoTime() / 1e9);
	}

}
