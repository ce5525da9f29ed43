package dev.polling.compat.mixed;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.JarURLConnection;
import java.net.ServerSocket;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A mixed cluster: one JVM runs isy-polling 4.0.0 (its own class path with Spring 6.1, resolved by
 * Maven in the isy-polling-peer module; its {@code PollingMBean} exported under isy-polling's
 * ObjectName and served by the JVM's own JMX agent), the other runs this starter with
 * {@code polling.jmx.contract=isy-polling} and its own JMX server. They are each other's only peer, share one cluster with a 10 s wait time and tick every
 * 500 ms. In both directions: while one holds the cluster the other is refused; when the holder
 * stops polling for longer than the wait time, or is killed, the other takes over.
 */
class MixedClusterTest {

	private static final String DOMAIN = "de.bund.bva.mixed";

	private static final String CLUSTER = OurPollingApplication.CLUSTER;

	private static final String CLUSTER_NAME = "XY-Nachrichten";

	private static final int WAIT_SECONDS = 10;

	private static final long TICK_MILLIS = 500;

	private final List<ChildJvm> children = new ArrayList<>();

	private int isyPort;

	private int ourPort;

	@BeforeEach
	void choosePorts() throws IOException {
		this.isyPort = freePort();
		this.ourPort = freePort();
	}

	@AfterEach
	void stop() {
		this.children.forEach(ChildJvm::destroy);
	}

	/**
	 * In both directions, between isy-polling 4.0.0 and ours, and between isy-polling 4.0.0 and the same
	 * isy-polling application on polling-isy-compat (binary drop-in: the launcher is compiled against
	 * isy-polling). The first holds: the second, started then, is refused and the first keeps polling. The
	 * first stops polling: the second takes over once the wait time has passed since the first's last
	 * activity. The first ticks again: it is refused while the second holds. The second dies: the first takes
	 * over at its next tick.
	 */
	@ParameterizedTest(name = "{0} holds first, then {1}")
	@CsvSource({ "ISY_POLLING, OURS", "OURS, ISY_POLLING", "ISY_POLLING, ISY_COMPAT", "ISY_COMPAT, ISY_POLLING" })
	void whoeverHoldsRefusesTheOtherWhichTakesOverWhenItStopsAndTheFirstTakesOverWhenTheOtherDies(Side firstSide, Side secondSide)
			throws Exception {
		ChildJvm first = firstSide.start(this);
		await().atMost(Duration.ofSeconds(30)).until(() -> first.firstSince(0, "granted") >= 0);
		ChildJvm second = secondSide.start(this);
		holdsAndRefuses(first, firstSide, second, secondSide);

		long takeover = takeoverAfterStop(first, second);
		System.out.printf("%s stopped: %s took over %d ms after its last activity%n", firstSide.label, secondSide.label, takeover);
		assertThat(takeover).as("ms from %s's last activity to the takeover by %s", firstSide.label, secondSide.label)
			.isGreaterThanOrEqualTo(WAIT_SECONDS * 1000L - 1000);

		int firstMark = first.mark();
		int secondMark = second.mark();
		first.send("start");
		awaitDecisions(first, firstMark, 4);
		assertThat(first.decisionsSince(firstMark)).as(firstSide.label + " while " + secondSide.label + " holds")
			.allMatch(firstSide.refusal);
		assertThat(second.decisionsSince(secondMark)).as(secondSide.label + " while it holds").allMatch(secondSide.holding);

		long dies = killAndAwaitTakeover(second, first);
		System.out.printf("%s killed: %s took over %d ms later%n", secondSide.label, firstSide.label, dies);
	}

	private static void holdsAndRefuses(ChildJvm holder, Side holderSide, ChildJvm other, Side otherSide) {
		int otherMark = other.mark();
		int holderMark = holder.mark();
		awaitDecisions(other, otherMark, 4);
		assertThat(other.decisionsSince(otherMark)).as(otherSide.label + " while " + holderSide.label + " holds")
			.allMatch(otherSide.refusal);
		assertThat(holder.decisionsSince(holderMark)).as(holderSide.label + " while it holds").isNotEmpty()
			.allMatch(holderSide.holding);
	}

	/** A side of the mixed cluster: how it starts, and how its decisions read (a refusal, a grant while it holds). */
	enum Side {

		/** This starter: its refusals name the reason, its grants while it holds are renewals. */
		OURS("ours", (d) -> d.startsWith("refused"), (d) -> d.equals("granted RENEWED")),

		ISY_POLLING("isy-polling", (d) -> d.equals("refused"), (d) -> d.equals("granted")),

		ISY_COMPAT("polling-isy-compat", (d) -> d.equals("refused"), (d) -> d.equals("granted"));

		final String label;

		final Predicate<String> refusal;

		final Predicate<String> holding;

		Side(String label, Predicate<String> refusal, Predicate<String> holding) {
			this.label = label;
			this.refusal = refusal;
			this.holding = holding;
		}

		ChildJvm start(MixedClusterTest test) throws IOException {
			return switch (this) {
				case OURS -> test.startOurs();
				case ISY_POLLING -> test.startIsyPolling();
				case ISY_COMPAT -> test.startIsyCompat();
			};
		}

		@Override
		public String toString() {
			return this.label;
		}

	}

	/**
	 * Stops the holder's timer and waits for the other to be granted; the other must be refused until
	 * then. Returns the time from the holder's last grant (its last activity) to the takeover.
	 */
	private static long takeoverAfterStop(ChildJvm holder, ChildJvm other) {
		int otherMark = other.mark();
		int holderMark = holder.mark();
		holder.send("stop");
		await().atMost(Duration.ofSeconds(10)).until(() -> holder.since(holderMark).contains("STOPPED"));
		long lastActivity = holder.lastBefore("STOPPED", "granted");
		assertThat(lastActivity).as(holder + " granted before it stopped").isPositive();
		await().atMost(Duration.ofSeconds(WAIT_SECONDS + 15)).until(() -> other.firstSince(otherMark, "granted") >= 0);
		long takeover = other.firstSince(otherMark, "granted");
		List<String> before = other.decisionsSince(otherMark);
		assertThat(before.subList(0, before.size() - 1)).as(other + " before the takeover").isNotEmpty()
			.allMatch((d) -> d.startsWith("refused"));
		assertThat(holder.decisionsAfter("STOPPED")).as(holder + " after it stopped").isEmpty();
		return (takeover - lastActivity) / 1_000_000L;
	}

	private static long killAndAwaitTakeover(ChildJvm holder, ChildJvm other) throws InterruptedException {
		int otherMark = other.mark();
		long killed = System.nanoTime();
		holder.kill();
		await().atMost(Duration.ofSeconds(15)).until(() -> other.firstSince(otherMark, "granted") >= 0);
		return (other.firstSince(otherMark, "granted") - killed) / 1_000_000L;
	}

	private static void awaitDecisions(ChildJvm child, int mark, int count) {
		await().atMost(Duration.ofSeconds(30)).until(() -> child.decisionsSince(mark).size() >= count);
	}

	private ChildJvm startIsyPolling() throws IOException {
		return startIsyPollingPeer("isy-polling", isyPollingPeerRoot() + java.io.File.pathSeparator + isyPollingClasspath(),
				this.isyPort, this.ourPort);
	}

	/**
	 * The same isy-polling application (the launcher class compiled against isy-polling 4.0.0), with
	 * polling-isy-compat in place of isy-polling: this module's test class path, which holds
	 * polling-isy-compat and not isy-polling.
	 */
	private ChildJvm startIsyCompat() throws IOException {
		String classpath = isyPollingPeerRoot() + java.io.File.pathSeparator
				+ System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
		return startIsyPollingPeer("isy-compat", classpath, this.ourPort, this.isyPort);
	}

	private ChildJvm startIsyPollingPeer(String name, String classpath, int ownPort, int peerPort) throws IOException {
		List<String> command = List.of(java(), "-Xmx128m", "-XX:TieredStopAtLevel=1",
				// the JVM's own JMX agent serves the platform MBean server, as in isy-polling deployments
				"-Dcom.sun.management.jmxremote.port=" + ownPort, "-Dcom.sun.management.jmxremote.rmi.port=" + ownPort,
				"-Dcom.sun.management.jmxremote.host=127.0.0.1", "-Djava.rmi.server.hostname=127.0.0.1",
				"-Dcom.sun.management.jmxremote.authenticate=false", "-Dcom.sun.management.jmxremote.ssl=false", "-cp", classpath,
				"dev.polling.compat.isypeer.IsyPollingPeer", DOMAIN, CLUSTER, CLUSTER_NAME, String.valueOf(WAIT_SECONDS), "127.0.0.1",
				String.valueOf(peerPort), String.valueOf(TICK_MILLIS));
		ChildJvm child = ChildJvm.start(name, command, Path.of("target", "mixed-" + name + ".log"));
		this.children.add(child);
		return child;
	}

	private ChildJvm startOurs() throws IOException {
		String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
		List<String> command = List.of(java(), "-Xmx256m", "-XX:TieredStopAtLevel=1",
				// plain JDK stubs (isy-polling contract) carry this host
				"-Djava.rmi.server.hostname=127.0.0.1", "-cp", classpath, OurPollingApplication.class.getName(),
				"--spring.main.banner-mode=off", "--tick-millis=" + TICK_MILLIS, "--polling.instance-id=ours",
				// 4 s: the instance lets go after a pause of half the peer timeout; with 1 s, a CI machine starting the
				// other JVM paused it for 800 ms, it let go (as designed) and isy-polling was rightly granted
				"--polling.jmx.peer-timeout=4s", "--polling.jmx.server.port=" + this.ourPort,
				// isy-polling's JMX contract and domain, its connection and cluster in the starter's keys
				"--polling.jmx.contract=isy-polling", "--polling.jmx.domain=" + DOMAIN, "--polling.jmx.peers.ISY.host=127.0.0.1",
				"--polling.jmx.peers.ISY.port=" + this.isyPort, "--polling.clusters." + CLUSTER + ".name=" + CLUSTER_NAME,
				"--polling.clusters." + CLUSTER + ".wait-time=" + WAIT_SECONDS + "s");
		ChildJvm child = ChildJvm.start("ours", command, Path.of("target", "mixed-ours.log"));
		this.children.add(child);
		return child;
	}

	/** Where the isy-polling peer's launcher class is: its jar, or its classes folder. */
	private static String isyPollingPeerRoot() throws IOException {
		URL resource = resource();
		try {
			if (resource.getProtocol().equals("jar")) {
				return Path.of(((JarURLConnection) resource.openConnection()).getJarFileURL().toURI()).toString();
			}
			return Path.of(resource.toURI()).getParent().toString();
		}
		catch (URISyntaxException ex) {
			throw new IOException(ex);
		}
	}

	/** isy-polling 4.0.0 and its dependencies, as resolved by Maven for the isy-polling-peer module. */
	private static String isyPollingClasspath() throws IOException {
		try (InputStream in = resource().openStream()) {
			return new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
		}
	}

	private static URL resource() {
		URL resource = MixedClusterTest.class.getClassLoader().getResource("isy-polling-peer.classpath");
		assertThat(resource).as("isy-polling-peer.classpath from the polling-isy-polling-peer module").isNotNull();
		return resource;
	}

	private static String java() {
		return Path.of(System.getProperty("java.home"), "bin", "java").toString();
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
	}

}
