package dev.polling.core.e2e;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import dev.polling.core.ClusterDefinition;
import dev.polling.core.Decision;
import dev.polling.core.PeerDefinition;
import dev.polling.core.PollingManager;
import dev.polling.core.PollingSettings;
import dev.polling.core.jmx.JmxServerSettings;
import dev.polling.core.jmx.PollingJmxServer;

/**
 * One instance as its own process, for end-to-end tests: a JMX server on the given port, one
 * cluster ticking at a fixed delay, peers given as ports on loopback (the list may include itself).
 * Exits when standard input closes, so it never outlives the test.
 *
 * <p>Arguments: instance-id port peer-ports(comma-separated) tick-millis peer-timeout-millis
 */
public final class PeerProcess {

	public static final String CLUSTER = "MAILABRUF_CLUSTER";

	private PeerProcess() {
	}

	public static void main(String[] args) throws IOException {
		String id = args[0];
		int port = Integer.parseInt(args[1]);
		List<PeerDefinition> peers = new ArrayList<>();
		for (String peerPort : args[2].split(",")) {
			peers.add(PeerDefinition.of("peer-" + peerPort, "127.0.0.1", Integer.parseInt(peerPort)));
		}
		long tick = Long.parseLong(args[3]);
		Duration timeout = Duration.ofMillis(Long.parseLong(args[4]));
		PollingJmxServer server = PollingJmxServer.start(JmxServerSettings.loopback(port));
		PollingManager manager = PollingManager.builder()
			.settings(PollingSettings.defaults().withInstanceId(id).withPeerTimeout(timeout))
			.cluster(ClusterDefinition.of(CLUSTER, Duration.ofSeconds(10)))
			.peers(peers)
			.mbeanServer(server.mbeanServer())
			.build();
		tickUntilTheParentGoes(manager, server, CLUSTER, tick, (decision) -> {
			if (decision.isGranted()) {
				System.out.println("granted " + decision.reason() + " in " + decision.duration().toMillis() + " ms");
			}
		}, "READY " + id + " " + server.port());
	}

	/**
	 * Runs the cluster's cycle (20 ms) at a fixed delay, handing each decision to the reporter; prints the
	 * ready line and exits when standard input closes (the parent went away), closing the manager and the
	 * server on the way out.
	 */
	static void tickUntilTheParentGoes(PollingManager manager, PollingJmxServer server, String cluster, long tick,
			Consumer<Decision> reporter, String ready) throws IOException {
		ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
		timer.scheduleWithFixedDelay(() -> {
			try {
				reporter.accept(manager.runIfGranted(cluster, () -> Thread.sleep(20)));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			catch (RuntimeException ex) {
				ex.printStackTrace();
			}
		}, 0, tick, TimeUnit.MILLISECONDS);
		Runtime.getRuntime().addShutdownHook(new Thread(() -> {
			timer.shutdownNow();
			manager.close();
			server.close();
		}));
		System.out.println(ready);
		System.out.flush();
		while (System.in.read() >= 0) {
			// wait for the parent to go away
		}
		System.exit(0);
	}

}
