package dev.polling.sample;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

import com.icegreen.greenmail.junit5.GreenMailExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample processed ahead of time (the build runs spring-boot-maven-plugin's {@code process-aot}
 * before the tests) and started twice in separate JVMs with {@code -Dspring.aot.enabled=true}, each
 * given its JMX port, its id and its peers only on the command line: both JMX servers open, a
 * JMX client reads the cluster MBeans through them, and the two instances share the three mailboxes
 * (each mailbox held by exactly one instance, both holding some, which needs each to reach the
 * other's JMX server). Stopped with SIGTERM and default settings, an instance ends with every
 * shutdown phase within {@code spring.lifecycle.timeout-per-shutdown-phase} (Spring logs "still
 * running after timeout" otherwise), and the other instance takes over its mailboxes.
 */
class AotInstancesTests {

	@RegisterExtension
	static final GreenMailExtension mailServer = TestMails.mailServerWithTheSampleMailboxes();

	private static final List<String> MAILBOXES = List.of("MAILBOX_1", "MAILBOX_2", "MAILBOX_3");

	@TempDir
	Path work;

	private final List<Instance> instances = new ArrayList<>();

	private final HttpClient http = HttpClient.newHttpClient();

	private final JsonMapper json = JsonMapper.builder().build();

	@AfterEach
	void stopInstances() throws InterruptedException {
		for (Instance instance : this.instances) {
			instance.process.destroy();
		}
		for (Instance instance : this.instances) {
			if (!instance.process.waitFor(60, TimeUnit.SECONDS)) {
				instance.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
			}
		}
	}

	@Test
	void twoInstancesProcessedAheadOfTimeOpenTheirJmxServersOnRunTimePortsShareTheMailboxesAndHandThemOverOnShutdown() throws Exception {
		// the build's process-aot produced the initializer that spring.aot.enabled=true runs
		assertThat(Class.forName("dev.polling.sample.SampleApplication__ApplicationContextInitializer")).isNotNull();
		int[] jmxPorts = { freePort(), freePort() };
		for (int i = 0; i < 2; i++) {
			this.instances.add(start("instance-" + (i + 1), freePort(), jmxPorts[i], jmxPorts));
		}
		await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
			for (Instance instance : this.instances) {
				assertThat(instance.process.isAlive()).as("%s is running (log: %s)", instance.id, instance.log).isTrue();
				assertThat(pollingStatus(instance)).as("/actuator/polling of %s", instance.id).isNotNull();
			}
		});
		for (Instance instance : this.instances) {
			assertThat(instanceIdOverJmx(instance.jmxPort)).isEqualTo(instance.id);
		}
		await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
			Map<String, List<String>> holders = holders();
			assertThat(holders).allSatisfy((mailbox, ids) -> assertThat(ids).as(mailbox).hasSize(1));
			assertThat(holders.values().stream().flatMap(List::stream).distinct()).as("instances holding a mailbox")
				.containsExactlyInAnyOrder("instance-1", "instance-2");
		});
		// shutdown with the default settings: every phase ends within Boot's timeout, and the
		// clusters released first go to the other instance
		Instance stopped = this.instances.get(0);
		stopped.process.destroy();
		assertThat(stopped.process.waitFor(90, TimeUnit.SECONDS)).as("%s ended after SIGTERM", stopped.id).isTrue();
		String log = Files.readString(stopped.log);
		assertThat(log).contains("Commencing graceful shutdown").doesNotContain("still running after timeout");
		await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
			JsonNode status = pollingStatus(this.instances.get(1));
			assertThat(status).isNotNull();
			for (String mailbox : MAILBOXES) {
				assertThat(status.path("clusters").path(mailbox).path("holding").asBoolean(false)).as(mailbox).isTrue();
			}
		});
	}

	private Instance start(String id, int httpPort, int jmxPort, int[] jmxPorts) throws IOException {
		Path log = this.work.resolve(id + ".log");
		List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
				"-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Dspring.aot.enabled=true", "-cp",
				System.getProperty("java.class.path"), SampleApplication.class.getName(), "--server.port=" + httpPort,
				"--polling.instance-id=" + id, "--polling.jmx.server.port=" + jmxPort,
				"--spring.datasource.url=jdbc:h2:file:" + this.work.resolve("db/orders") + ";AUTO_SERVER=TRUE",
				"--sample.mail.imap-port=" + mailServer.getImap().getPort(),
				"--sample.mail.smtp-port=" + mailServer.getSmtp().getPort(), "--sample.poll-delay-millis=200"));
		for (int i = 0; i < jmxPorts.length; i++) {
			command.add("--polling.jmx.peers.instance-" + (i + 1) + ".host=127.0.0.1");
			command.add("--polling.jmx.peers.instance-" + (i + 1) + ".port=" + jmxPorts[i]);
		}
		Process process = new ProcessBuilder(command).directory(this.work.toFile())
			.redirectErrorStream(true)
			.redirectOutput(log.toFile())
			.start();
		return new Instance(id, httpPort, jmxPort, process, log);
	}

	/** The instance id the cluster MBean of {@code MAILBOX_1} reports to a remote JMX client. */
	private static Object instanceIdOverJmx(int port) throws Exception {
		JMXServiceURL url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + port + "/jmxrmi");
		try (JMXConnector connector = JMXConnectorFactory.connect(url)) {
			MBeanServerConnection connection = connector.getMBeanServerConnection();
			ObjectName mailbox1 = connection.queryNames(new ObjectName("dev.polling:*"), null)
				.stream()
				.filter((name) -> name.toString().contains("MAILBOX_1"))
				.findFirst()
				.orElseThrow();
			return connection.getAttribute(mailbox1, "InstanceId");
		}
	}

	private Map<String, List<String>> holders() throws IOException, InterruptedException {
		Map<String, List<String>> holders = new java.util.LinkedHashMap<>();
		MAILBOXES.forEach((mailbox) -> holders.put(mailbox, new ArrayList<>()));
		for (Instance instance : this.instances) {
			JsonNode status = pollingStatus(instance);
			assertThat(status).as("/actuator/polling of %s", instance.id).isNotNull();
			for (String mailbox : MAILBOXES) {
				if (status.path("clusters").path(mailbox).path("holding").asBoolean(false)) {
					holders.get(mailbox).add(instance.id);
				}
			}
		}
		return holders;
	}

	private JsonNode pollingStatus(Instance instance) throws InterruptedException {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + instance.httpPort + "/actuator/polling"))
			.timeout(Duration.ofSeconds(5))
			.build();
		try {
			HttpResponse<String> response = this.http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
			return (response.statusCode() == 200) ? this.json.readTree(response.body()) : null;
		}
		catch (IOException ex) {
			return null;
		}
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
	}

	private record Instance(String id, int httpPort, int jmxPort, Process process, Path log) {

		@Override
		public String toString() {
			try {
				return this.id + ":\n" + Files.readString(this.log);
			}
			catch (IOException ex) {
				return this.id;
			}
		}

	}

}
