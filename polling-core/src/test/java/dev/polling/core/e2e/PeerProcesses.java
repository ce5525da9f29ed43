package dev.polling.core.e2e;

import static org.awaitility.Awaitility.await;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

import dev.polling.core.JmxNames;

/**
 * Instances of {@link PeerProcess}, each in a JVM of its own, all peers of each other on loopback;
 * read through a JMX connection per instance. Close it to end them all.
 */
final class PeerProcesses implements AutoCloseable {

	private static final ObjectName NAME = JmxNames.clusterName("dev.polling", PeerProcess.CLUSTER);

	private final long tickMillis;

	private final long peerTimeoutMillis;

	private final Map<String, Integer> ports = new LinkedHashMap<>();

	private final Map<String, Process> processes = new LinkedHashMap<>();

	private final Map<String, JMXConnector> connectors = new LinkedHashMap<>();

	private final String peerPorts;

	/** Starts one JVM per instance id and waits until each answers over JMX. */
	PeerProcesses(long tickMillis, long peerTimeoutMillis, String... ids) throws IOException {
		this.tickMillis = tickMillis;
		this.peerTimeoutMillis = peerTimeoutMillis;
		for (String id : ids) {
			this.ports.put(id, freePort());
		}
		this.peerPorts = this.ports.values().stream().map(String::valueOf).collect(Collectors.joining(","));
		for (String id : ids) {
			launch(id);
		}
	}

	/** Starts the instance's JVM (again) and waits until it answers over JMX. */
	void launch(String id) throws IOException {
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
		File log = new File("target/e2e-" + id + ".log");
		Process process = new ProcessBuilder(java, "-Xmx128m", "-XX:TieredStopAtLevel=1", "-cp", classpath, PeerProcess.class.getName(),
				id, String.valueOf(this.ports.get(id)), this.peerPorts, String.valueOf(this.tickMillis),
				String.valueOf(this.peerTimeoutMillis))
			.redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.appendTo(log))
			.start();
		this.processes.put(id, process);
		await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> connect(id));
	}

	/** Ends the instance's JVM at once (SIGKILL). */
	void kill(String id) throws InterruptedException {
		this.processes.get(id).destroyForcibly().waitFor();
		closeQuietly(this.connectors.remove(id));
	}

	/** Sends a signal (e.g. STOP, CONT) to the instance's JVM. */
	void signal(String id, String signal) throws IOException, InterruptedException {
		Process kill = new ProcessBuilder("kill", "-" + signal, String.valueOf(this.processes.get(id).pid())).inheritIO().start();
		if (kill.waitFor() != 0) {
			throw new IllegalStateException("kill -" + signal + " " + id + " failed");
		}
	}

	/** Whether the instance says it holds the cluster; false when it cannot be read. Blocks while it is stopped. */
	boolean isHolding(String id) {
		JMXConnector connector = this.connectors.get(id);
		if (connector == null) {
			return false;
		}
		try {
			return Boolean.TRUE.equals(connector.getMBeanServerConnection().getAttribute(NAME, "Holding"));
		}
		catch (Exception ex) {
			return false; // an instance that cannot be read holds nothing we can see
		}
	}

	/** The instances that say they hold the cluster. */
	List<String> holders() {
		List<String> holders = new ArrayList<>();
		for (String id : this.connectors.keySet()) {
			if (isHolding(id)) {
				holders.add(id);
			}
		}
		return holders;
	}

	@Override
	public void close() {
		this.connectors.values().forEach(PeerProcesses::closeQuietly);
		for (Process process : this.processes.values()) {
			try {
				new ProcessBuilder("kill", "-CONT", String.valueOf(process.pid())).start().waitFor();
			}
			catch (IOException ex) {
				// gone
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			process.destroyForcibly();
		}
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
