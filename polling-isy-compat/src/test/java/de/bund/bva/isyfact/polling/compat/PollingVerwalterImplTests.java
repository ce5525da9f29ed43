package de.bund.bva.isyfact.polling.compat;

import java.net.ServerSocket;
import java.net.Socket;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import javax.management.ObjectName;

import de.bund.bva.isyfact.datetime.test.TestClock;
import de.bund.bva.isyfact.datetime.util.DateTimeUtil;
import de.bund.bva.isyfact.polling.PollingMBean;
import de.bund.bva.isyfact.polling.common.exception.PollingClusterUnbekanntException;
import de.bund.bva.isyfact.polling.config.IsyPollingProperties;
import de.bund.bva.isyfact.polling.impl.PollingVerwalterImpl;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.jmx.export.MBeanExporter;
import org.springframework.jmx.export.annotation.AnnotationJmxAttributeSource;
import org.springframework.jmx.export.assembler.MetadataMBeanInfoAssembler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/** isy-polling's behaviour of {@link PollingVerwalterImpl}, against real JMX servers. */
class PollingVerwalterImplTests {

	private final List<AutoCloseable> closeables = new ArrayList<>();

	private TestClock clock;

	@BeforeEach
	void clock() {
		this.clock = TestClock.now();
		DateTimeUtil.setClock(this.clock);
	}

	@AfterEach
	void close() throws Exception {
		DateTimeUtil.setClock(Clock.systemDefaultZone());
		for (AutoCloseable c : this.closeables) {
			c.close();
		}
	}

	private static IsyPollingProperties properties() {
		IsyPollingProperties p = new IsyPollingProperties();
		p.getJmx().setTimeout(Duration.ofMillis(500));
		return p;
	}

	private static void connection(IsyPollingProperties p, String id, int port) {
		IsyPollingProperties.Jmx.Verbindung v = new IsyPollingProperties.Jmx.Verbindung();
		v.setHost("localhost");
		v.setPort(port);
		p.getJmx().getVerbindungen().put(id, v);
	}

	private static void cluster(IsyPollingProperties p, String id, String name, int wartezeit, String... connections) {
		IsyPollingProperties.Cluster c = new IsyPollingProperties.Cluster();
		c.setName(name);
		c.setWartezeit(wartezeit);
		c.getJmxverbindungen().addAll(List.of(connections));
		p.getCluster().put(id, c);
	}

	private PollingVerwalterImpl verwalter(IsyPollingProperties p) throws Exception {
		PollingVerwalterImpl v = new PollingVerwalterImpl();
		v.setIsyPollingProperties(p);
		v.afterPropertiesSet();
		this.closeables.add(v::destroy);
		return v;
	}

	/** Cluster A (wait time 10 s) with one peer, ONE, at a port where nothing listens. */
	private PollingVerwalterImpl clusterAWithOneAbsentPeer() throws Exception {
		IsyPollingProperties p = properties();
		connection(p, "ONE", JmxTestServer.freePort());
		cluster(p, "A", "A", 10);
		return verwalter(p);
	}

	/** Another instance's JMX server with the activity MBean of one cluster name. */
	private JmxTestServer other(String clusterName, long millisSinceActivity) throws Exception {
		JmxTestServer s = JmxTestServer.other();
		this.closeables.add(s);
		s.publish(clusterName, millisSinceActivity);
		return s;
	}

	@Test
	void refusesWhileAPeerWasActiveWithinTheWaitTimeAndGrantsOtherwise() throws Exception {
		JmxTestServer active = other("A", 3_000);
		active.publish("B", 30_000);
		JmxTestServer idle = other("A", Long.MAX_VALUE);
		idle.publish("B", Long.MAX_VALUE);
		IsyPollingProperties p = properties();
		connection(p, "ACTIVE", active.port);
		connection(p, "IDLE", idle.port);
		cluster(p, "A", "A", 10);
		cluster(p, "B", "B", 10, "ACTIVE", "IDLE");
		PollingVerwalterImpl v = verwalter(p);

		assertThat(v.startePolling("A")).isFalse();
		assertThat(v.getZeitpunktLetztePollingAktivitaet("A")).isZero();
		assertThat(v.startePolling("B")).isTrue();
		assertThat(v.getZeitpunktLetztePollingAktivitaet("B")).isEqualTo(this.clock.millis());
	}

	@Test
	void readsAConnectionToThisJvmAndRefusesWhileItsOwnActivityIsFresh() throws Exception {
		JmxTestServer self = JmxTestServer.platform();
		this.closeables.add(self);
		IsyPollingProperties p = properties();
		connection(p, "SELF", self.port);
		cluster(p, "C", "Self-Cluster", 12);
		PollingVerwalterImpl v = verwalter(p);
		exportPollingMBean(v, "C", "Self-Cluster");

		v.aktualisiereZeitpunktLetztePollingAktivitaet("C");
		assertThat(v.startePolling("C")).isFalse();
		this.clock.advanceBy(Duration.ofSeconds(11));
		assertThat(v.startePolling("C")).isFalse();
		this.clock.advanceBy(Duration.ofSeconds(2));
		assertThat(v.startePolling("C")).isTrue();
		assertThat(v.getZeitpunktLetztePollingAktivitaet("C")).isEqualTo(this.clock.millis());
	}

	private void exportPollingMBean(PollingVerwalterImpl v, String clusterId, String clusterName) throws Exception {
		PollingMBean bean = new PollingMBean();
		bean.setClusterId(clusterId);
		bean.setPollingVerwalter(v);
		MBeanExporter exporter = new MBeanExporter();
		exporter.setServer(java.lang.management.ManagementFactory.getPlatformMBeanServer());
		exporter.setAssembler(new MetadataMBeanInfoAssembler(new AnnotationJmxAttributeSource()));
		ObjectName name = JmxTestServer.isyName(clusterName);
		exporter.registerManagedResource(bean, name);
		this.closeables.add(exporter::destroy);
		this.closeables.add(() -> {
			if (java.lang.management.ManagementFactory.getPlatformMBeanServer().isRegistered(name)) {
				java.lang.management.ManagementFactory.getPlatformMBeanServer().unregisterMBean(name);
			}
		});
	}

	@Test
	void activityIsAlwaysSetAlsoWithoutAGrant() throws Exception {
		JmxTestServer active = other("A", 1_000);
		IsyPollingProperties p = properties();
		connection(p, "ACTIVE", active.port);
		cluster(p, "A", "A", 10);
		PollingVerwalterImpl v = verwalter(p);

		assertThat(v.startePolling("A")).isFalse();
		v.aktualisiereZeitpunktLetztePollingAktivitaet("A");
		assertThat(v.getZeitpunktLetztePollingAktivitaet("A")).isEqualTo(this.clock.millis());
	}

	@Test
	void anUnreachablePeerCountsAsNoActivityAndNoFaultEscapes() throws Exception {
		int closedPort = JmxTestServer.freePort();
		JmxTestServer idle = other("A", Long.MAX_VALUE);
		IsyPollingProperties p = properties();
		connection(p, "CLOSED", closedPort);
		connection(p, "IDLE", idle.port);
		cluster(p, "A", "A", 10);
		PollingVerwalterImpl v = verwalter(p);

		assertThat(v.startePolling("A")).isTrue();
	}

	/**
	 * Issue 29, defect 8: a peer that runs but whose activity cannot be read (here: it has no MBean
	 * of that name, as with another JMX domain or cluster name) must not count as idle, or two
	 * instances poll. On 3b5282d it counted as no activity and the call was granted.
	 */
	@Test
	void aPeerThatAnswersWithoutAReadableActivityCountsAsActive() throws Exception {
		JmxTestServer withoutMBean = other("ANOTHER-NAME", Long.MAX_VALUE);
		IsyPollingProperties p = properties();
		connection(p, "NO_MBEAN", withoutMBean.port);
		cluster(p, "A", "A", 10);
		PollingVerwalterImpl v = verwalter(p);

		assertThat(v.startePolling("A")).isFalse();
		assertThat(v.getZeitpunktLetztePollingAktivitaet("A")).as("no grant, no activity").isZero();
	}

	/**
	 * Issue 29, defect 8: a domain that forms no ObjectName fails the start, naming the property,
	 * instead of failing every read (which counted as no activity). On 3b5282d the start succeeded.
	 */
	@Test
	void aDomainThatFormsNoObjectNameFailsTheStart() {
		IsyPollingProperties p = properties();
		p.getJmx().setDomain("de.bund.bva\nisyfact");
		connection(p, "ONE", 1);
		cluster(p, "A", "A", 10);

		assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> verwalter(p))
			.withMessageContaining("isy.polling.jmx.domain")
			.withMessageContaining("isy.polling.cluster.A.name");
	}

	@Test
	void aPeerThatNeverAnswersIsWaitedForOnlyUpToTheTimeout() throws Exception {
		try (ServerSocket silent = new ServerSocket(0)) {
			List<Socket> accepted = new ArrayList<>();
			Thread acceptor = new Thread(() -> {
				try {
					while (true) {
						accepted.add(silent.accept()); // accepts and never answers
					}
				}
				catch (Exception ex) {
					// closed
				}
			});
			acceptor.setDaemon(true);
			acceptor.start();
			IsyPollingProperties p = properties();
			connection(p, "SILENT", silent.getLocalPort());
			cluster(p, "A", "A", 10);
			PollingVerwalterImpl v = verwalter(p);

			long start = System.nanoTime();
			assertThat(v.startePolling("A")).isTrue();
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
		}
	}

	@Test
	void duplicateConnectionEntriesAreAccepted() throws Exception {
		JmxTestServer idle = other("A", Long.MAX_VALUE);
		IsyPollingProperties p = properties();
		connection(p, "ONE", idle.port);
		connection(p, "TWO", idle.port);
		cluster(p, "A", "A", 10, "ONE", "TWO");
		PollingVerwalterImpl v = verwalter(p);

		assertThat(v.isModusStandalone()).isFalse();
		assertThat(v.startePolling("A")).isTrue();
	}

	@Test
	void anUnknownClusterThrowsWithItsMessageId() throws Exception {
		PollingVerwalterImpl v = clusterAWithOneAbsentPeer();

		assertThatExceptionOfType(PollingClusterUnbekanntException.class).isThrownBy(() -> v.startePolling("X"))
			.satisfies((ex) -> assertThat(ex.getAusnahmeId()).isEqualTo("POLLI01005"))
			.withMessageContaining("\"X\"");
		assertThatExceptionOfType(PollingClusterUnbekanntException.class)
			.isThrownBy(() -> v.aktualisiereZeitpunktLetztePollingAktivitaet("X"));
		assertThatExceptionOfType(PollingClusterUnbekanntException.class).isThrownBy(() -> v.getZeitpunktLetztePollingAktivitaet("X"));
	}

	@Test
	void standaloneGrantsEverythingKeepsNoActivityAndChecksNoIds() throws Exception {
		IsyPollingProperties p = properties();
		cluster(p, "A", "A", 3, "NOT_CONFIGURED");
		PollingVerwalterImpl v = verwalter(p);

		assertThat(v.isModusStandalone()).isTrue();
		v.aktualisiereZeitpunktLetztePollingAktivitaet("A");
		assertThat(v.startePolling("A")).isTrue();
		assertThat(v.getZeitpunktLetztePollingAktivitaet("A")).isZero();
		assertThat(v.startePolling("UNKNOWN")).isTrue();
		v.aktualisiereZeitpunktLetztePollingAktivitaet("UNKNOWN");
		assertThat(v.getZeitpunktLetztePollingAktivitaet("UNKNOWN")).isZero();
	}

	@Test
	void pollingMBeanReportsTheTimeSinceTheActivityOnIsyDateTimesClock() throws Exception {
		PollingVerwalterImpl v = clusterAWithOneAbsentPeer();
		PollingMBean bean = new PollingMBean();
		bean.setClusterId("A");
		bean.setPollingVerwalter(v);

		assertThat(bean.getZeitraumLetztePollingAktivitaet()).isEqualTo(Long.MAX_VALUE);
		assertThat(bean.getZeitpunktLetztePollingAktivitaet().getTime()).isZero();
		v.aktualisiereZeitpunktLetztePollingAktivitaet("A");
		this.clock.advanceBy(Duration.ofMillis(4_321));
		assertThat(bean.getZeitraumLetztePollingAktivitaet()).isEqualTo(4_321);
		bean.setClusterId("UNKNOWN");
		assertThat(bean.getZeitraumLetztePollingAktivitaet()).isEqualTo(Long.MAX_VALUE);
	}

}
