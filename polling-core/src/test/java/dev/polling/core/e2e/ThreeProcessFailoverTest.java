package dev.polling.core.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.polling.core.jmx.JmxNames;

/**
 * Three instances in three JVMs on one cluster with a 1 s tick, sampled every 100 ms for 60 s:
 * never more than one holder; the holder is killed (SIGKILL) after 30 s and another instance holds
 * within one tick plus the peer timeout; the killed one restarts and rejoins as a standby.
 */
class ThreeProcessFailoverTest {

	private static final long TICK_MILLIS = 1000;

	private static final long PEER_TIMEOUT_MILLIS = 500;

	private static final ObjectName NAME = JmxNames.clusterName("dev.polling", PeerProcess.CLUSTER);

	private final Map<String, Process> processes = new HashMap<>();

	private final Map<String, JMXConnector> connectors = new HashMap<>();

	private final Map<String, Integer> ports = new HashMap<>();

	@AfterEach
	void stop() {
		this.connectors.values().forEach(ThreeProcessFailoverTest::closeQuietly);
		this.processes.values().forEach(Process::destroyForcibly);
	}

	@Test
	void neverHasTwoHoldersAndFailsOverWithinOneTickPlusThePeerTimeout() throws Exception {
		for (String id : List.of("a", "b", "c")) {
			this.ports.put(id, freePort());
		}
		String peerPorts = this.ports.values().stream().map(String::valueOf).collect(Collectors.joining(","));
		for (String id : this.ports.keySet()) {
			launch(id, peerPorts);
		}
		await().atMost(Duration.ofSeconds(60)).until(() -> holders().size() == 1);

		int samples = 0;
		int maxHolders = 0;
		int samplesWithoutHolder = 0;
		long takeoverMillis = -1;
		String killed = null;
		long start = System.nanoTime();
		long killedAt = 0;
		boolean restarted = false;
		while (System.nanoTime() - start < Duration.ofSeconds(60).toNanos()) {
			List<String> holders = holders();
			samples++;
			maxHolders = Math.max(maxHolders, holders.size());
			assertThat(holders).as("holders at sample %d", samples).hasSizeLessThanOrEqualTo(1);
			long elapsed = (System.nanoTime() - start) / 1_000_000;
			if (killed == null && elapsed >= 30_000) {
				killed = holders.get(0);
				this.processes.get(killed).destroyForcibly().waitFor();
				closeQuietly(this.connectors.remove(killed));
				killedAt = System.nanoTime();
			}
			else if (killed != null && takeoverMillis < 0) {
				if (holders.isEmpty()) {
					samplesWithoutHolder++;
				}
				else {
					takeoverMillis = (System.nanoTime() - killedAt) / 1_000_000;
				}
			}
			else if (killed == null && holders.isEmpty()) {
				samplesWithoutHolder++;
			}
			if (killed != null && !restarted && elapsed >= 40_000) {
				launch(killed, peerPorts);
				restarted = true;
			}
			Thread.sleep(100);
		}
		System.out.printf("samples=%d maxHolders=%d samplesWithoutHolder=%d killed=%s takeoverMillis=%d%n", samples, maxHolders,
				samplesWithoutHolder, killed, takeoverMillis);
		assertThat(samples).isGreaterThan(400);
		assertThat(maxHolders).isEqualTo(1);
		assertThat(takeoverMillis).isBetween(0L, TICK_MILLIS + PEER_TIMEOUT_MILLIS + 100);
		assertThat(restarted).isTrue();
		// The restarted instance is a standby: the cluster stayed with the one that took over.
		List<String> holders = holders();
		assertThat(holders).hasSize(1).doesNotContain(killed);
	}

	private void launch(String id, String peerPorts) throws IOException {
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
		File log = new File("target/e2e-" + id + ".log");
		Process process = new ProcessBuilder(java, "-Xmx128m", "-XX:TieredStopAtLevel=1", "-cp", classpath, PeerProcess.class.getName(),
				id, String.valueOf(this.ports.get(id)), peerPorts, String.valueOf(TICK_MILLIS), String.valueOf(PEER_TIMEOUT_MILLIS))
			.redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.appendTo(log))
			.start();
		this.processes.put(id, process);
		await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> connect(id));
	}

	private boolean connect(String id) {
		try {
			JMXServiceURL url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + this.ports.get(id) + "/jmxrmi");
			JMXConnector connector = JMXConnectorFactory.connect(url);
			connector.getMBeanServerConnection().getAttribute(NAME, "Holding");
			this.connectors.put(id, connector);
			return true;
		}
		catch (Exception ex) {
			return false;
		}
	}

	private List<String> holders() {
		List<String> holders = new ArrayList<>();
		for (Map.Entry<String, JMXConnector> entry : this.connectors.entrySet()) {
			try {
				if (Boolean.TRUE.equals(entry.getValue().getMBeanServerConnection().getAttribute(NAME, "Holding"))) {
					holders.add(entry.getKey());
				}
			}
			catch (Exception ex) {
				// an instance that cannot be read holds nothing we can see
			}
		}
		return holders;
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
	}

	private static void closeQuietly(JMXConnector connector) {
		if (connector == null) {
			return;
		}
		try {
			connector.close();
		}
		catch (Exception ex) {
			// gone
		}
	}

}
