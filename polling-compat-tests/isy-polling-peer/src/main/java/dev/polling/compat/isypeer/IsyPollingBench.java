package dev.polling.compat.isypeer;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import de.bund.bva.isyfact.polling.config.IsyPollingProperties;
import de.bund.bva.isyfact.polling.impl.PollingVerwalterImpl;

/**
 * The isy-polling 4.0.0 side of the side-by-side benchmark ({@code SideBySideBenchmark} in
 * polling-benchmarks), run in its own JVM with isy-polling's Spring 6.1 class path. Compiled against
 * isy-polling's public API only.
 *
 * <p>Per scenario it configures a fresh {@link PollingVerwalterImpl} with one cluster whose JMX
 * connections are the scenario's peers, and times {@code startePolling(clusterId)}. Without calling
 * {@code aktualisiereZeitpunktLetztePollingAktivitaet} every call asks every peer, as a holder's
 * tick does in isy-polling.
 *
 * <p>Arguments: {@code jmx-domain cluster-name scenario...}, each scenario
 * {@code fast|<name>|<warm-up>|<iterations>|host:port,...} (timed one after another) or
 * {@code slow|<name>|<cap-seconds>|host:port,...} (one call each, all slow scenarios at the same
 * time on threads of their own, since they only wait; a call still running after the cap is
 * reported as not returned). Standard output, one line per scenario (other output is isy-polling's
 * logging):
 * {@code BENCH <name>|<calls>|<median ns>|<p99 ns>|<max ns>|<granted calls>} or
 * {@code BENCH <name>|0|-1|-1|-1|did not return within <cap> s}.
 */
public final class IsyPollingBench {

	private IsyPollingBench() {
	}

	public static void main(String[] args) throws Exception {
		String domain = args[0];
		String clusterName = args[1];
		List<String[]> slow = new ArrayList<>();
		for (int i = 2; i < args.length; i++) {
			String[] spec = args[i].split("\\|");
			if (spec[0].equals("fast")) {
				fast(domain, clusterName, spec[1], Integer.parseInt(spec[2]), Integer.parseInt(spec[3]), spec[4]);
			}
			else {
				slow.add(spec);
			}
		}
		ExecutorService threads = Executors.newCachedThreadPool((runnable) -> {
			Thread thread = new Thread(runnable, "isy-slow-call");
			thread.setDaemon(true);
			return thread;
		});
		List<Future<Long>> calls = new ArrayList<>();
		List<Long> starts = new ArrayList<>();
		for (String[] spec : slow) {
			PollingVerwalterImpl verwalter = verwalter(domain, clusterName, spec[3]);
			starts.add(System.nanoTime());
			calls.add(threads.submit(() -> {
				long start = System.nanoTime();
				verwalter.startePolling(clusterName);
				return System.nanoTime() - start;
			}));
		}
		for (int i = 0; i < slow.size(); i++) {
			String[] spec = slow.get(i);
			long capNanos = TimeUnit.SECONDS.toNanos(Long.parseLong(spec[2]));
			long left = starts.get(i) + capNanos - System.nanoTime();
			try {
				long nanos = calls.get(i).get(Math.max(left, 0), TimeUnit.NANOSECONDS);
				print(spec[1], 1, nanos, nanos, nanos, "1 call");
			}
			catch (TimeoutException ex) {
				System.out.println("BENCH " + spec[1] + "|0|-1|-1|-1|did not return within " + spec[2] + " s");
				System.out.flush();
			}
		}
		System.exit(0);
	}

	private static void fast(String domain, String clusterName, String name, int warmup, int iterations, String peers)
			throws Exception {
		PollingVerwalterImpl verwalter = verwalter(domain, clusterName, peers);
		for (int i = 0; i < warmup; i++) {
			verwalter.startePolling(clusterName);
		}
		long[] nanos = new long[iterations];
		int granted = 0;
		for (int i = 0; i < iterations; i++) {
			long start = System.nanoTime();
			if (verwalter.startePolling(clusterName)) {
				granted++;
			}
			nanos[i] = System.nanoTime() - start;
		}
		Arrays.sort(nanos);
		print(name, iterations, nanos[iterations / 2], nanos[(int) Math.ceil(iterations * 0.99) - 1], nanos[iterations - 1],
				granted + " granted");
	}

	private static void print(String name, int calls, long median, long p99, long max, String note) {
		System.out.println(String.format(Locale.ROOT, "BENCH %s|%d|%d|%d|%d|%s", name, calls, median, p99, max, note));
		System.out.flush();
	}

	private static PollingVerwalterImpl verwalter(String domain, String clusterName, String peers) throws Exception {
		IsyPollingProperties properties = new IsyPollingProperties();
		properties.getJmx().setDomain(domain);
		int n = 0;
		for (String peer : peers.split(",")) {
			int colon = peer.lastIndexOf(':');
			IsyPollingProperties.Jmx.Verbindung connection = new IsyPollingProperties.Jmx.Verbindung();
			connection.setHost(peer.substring(0, colon));
			connection.setPort(Integer.parseInt(peer.substring(colon + 1)));
			properties.getJmx().getVerbindungen().put("PEER" + (++n), connection);
		}
		IsyPollingProperties.Cluster cluster = new IsyPollingProperties.Cluster();
		cluster.setName(clusterName);
		cluster.setWartezeit(600);
		properties.getCluster().put(clusterName, cluster);
		PollingVerwalterImpl verwalter = new PollingVerwalterImpl();
		verwalter.setIsyPollingProperties(properties);
		verwalter.afterPropertiesSet();
		return verwalter;
	}

}
