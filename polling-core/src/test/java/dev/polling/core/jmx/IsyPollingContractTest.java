package dev.polling.core.jmx;

import dev.polling.core.JmxNames;
import dev.polling.core.JmxContract;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Date;
import java.util.List;
import java.util.Set;

import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;
import javax.management.StandardMBean;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.polling.core.ClusterDefinition;
import dev.polling.core.Decision;
import dev.polling.core.Decision.Reason;
import dev.polling.core.PeerObservation;
import dev.polling.core.PeerState;
import dev.polling.core.PollingManager;
import dev.polling.core.TestBuilders;
import dev.polling.core.PollingSettings;
import dev.polling.core.test.Instance;

/**
 * The isy-polling JMX contract: our MBean under isy-polling's ObjectName and attributes, and peers
 * read there. The real isy-polling library is exercised in polling-compat-tests; here its MBean is a
 * stand-in with exactly its two attributes.
 */
class IsyPollingContractTest {

	private static final ClusterDefinition CLUSTER = ClusterDefinition.of(Instance.CLUSTER, Duration.ofSeconds(10)).withName("XY-Nachrichten");

	private final List<AutoCloseable> closeables = new ArrayList<>();

	@AfterEach
	void close() throws Exception {
		for (AutoCloseable closeable : this.closeables) {
			closeable.close();
		}
	}

	@Test
	void namesTheMBeanAfterTheClusterNameAsIsyPollingDoes() throws Exception {
		ObjectName name = JmxContract.ISY_POLLING.objectName("de.bund.bva.domaene.anwendung", CLUSTER);
		assertThat(name).isEqualTo(new ObjectName("de.bund.bva.domaene.anwendung:type=PollingStatus,name=\"Polling-Aktivitaet-XY-Nachrichten\""));
		assertThat(JmxContract.NATIVE.objectName("dev.polling", CLUSTER)).isEqualTo(JmxNames.clusterName("dev.polling", Instance.CLUSTER));
		assertThat(JmxContract.ISY_POLLING.defaultDomain()).isEqualTo("de.bund.bva.isyfact.polling");
	}

	@Test
	void registersTheMBeanUnderIsyPollingsNameWithItsAttributes() throws Exception {
		MBeanServer mbeanServer = MBeanServerFactory.newMBeanServer();
		PollingManager manager = manager(mbeanServer, List.of());
		ObjectName name = new ObjectName("de.bund.bva.test:type=PollingStatus,name=\"Polling-Aktivitaet-XY-Nachrichten\"");
		assertThat(mbeanServer.isRegistered(name)).isTrue();
		assertThat(mbeanServer.isRegistered(JmxNames.clusterName("de.bund.bva.test", Instance.CLUSTER))).isFalse();
		assertThat(mbeanServer.getAttribute(name, "ZeitraumLetztePollingAktivitaet")).isEqualTo(Long.MAX_VALUE);
		assertThat(mbeanServer.getAttribute(name, "ZeitpunktLetztePollingAktivitaet")).isEqualTo(new Date(0));

		long before = System.currentTimeMillis();
		assertThat(manager.tryStartPolling(Instance.CLUSTER)).isTrue();
		assertThat((Long) mbeanServer.getAttribute(name, "ZeitraumLetztePollingAktivitaet")).isBetween(0L, 5_000L);
		assertThat((Date) mbeanServer.getAttribute(name, "ZeitpunktLetztePollingAktivitaet")).isBetween(new Date(before - 1000),
				new Date(System.currentTimeMillis() + 1000));
		assertThat(mbeanServer.getAttribute(name, "InstanceId")).isEqualTo("ours");

		manager.close();
		assertThat(mbeanServer.isRegistered(name)).isFalse();
	}

	@Test
	void keepsIsyPollingsAttributesOutOfTheNativeMBean() throws Exception {
		MBeanServer mbeanServer = MBeanServerFactory.newMBeanServer();
		PollingManager manager = TestBuilders.ignoringStarvation(PollingManager.builder())
			.settings(PollingSettings.defaults().withInstanceId("ours"))
			.cluster(CLUSTER)
			.mbeanServer(mbeanServer)
			.build();
		this.closeables.add(manager);
		MBeanAttributeInfo[] attributes = mbeanServer.getMBeanInfo(JmxNames.clusterName("dev.polling", Instance.CLUSTER)).getAttributes();
		assertThat(Arrays.stream(attributes).map(MBeanAttributeInfo::getName)).contains("ElapsedMillis", "InstanceId")
			.doesNotContain("ZeitraumLetztePollingAktivitaet", "ZeitpunktLetztePollingAktivitaet");
	}

	@Test
	void refusesWhileAPeerWithOnlyIsyPollingsAttributesIsActiveAndGrantsWhenItIsIdle() throws Exception {
		PollingJmxServer peerServer = PollingJmxServer.start(JmxServerSettings.loopback(0).withReadableDomains(Set.of("de.bund.bva.test")));
		this.closeables.add(peerServer);
		IsyLikeStatus peerStatus = new IsyLikeStatus();
		peerServer.mbeanServer()
			.registerMBean(new StandardMBean(peerStatus, IsyLikeStatusMBean.class),
					JmxContract.ISY_POLLING.objectName("de.bund.bva.test", CLUSTER));
		PollingManager manager = manager(MBeanServerFactory.newMBeanServer(),
				List.of(dev.polling.core.PeerDefinition.of("SERVER2", "127.0.0.1", peerServer.port())));

		peerStatus.elapsed = 3_000;
		Decision refused = manager.decide(Instance.CLUSTER);
		assertThat(refused.reason()).isEqualTo(Reason.PEER_ACTIVE);
		PeerObservation observation = refused.peers().get(0);
		assertThat(observation.state()).isEqualTo(PeerState.ANSWERED);
		assertThat(observation.elapsedMillis()).isEqualTo(3_000);
		assertThat(observation.instanceId()).isNull();
		assertThat(observation.isCandidate()).isFalse();

		peerStatus.elapsed = 10_001;
		assertThat(manager.decide(Instance.CLUSTER).reason()).isEqualTo(Reason.NO_ACTIVE_PEER);
		peerStatus.elapsed = Long.MAX_VALUE;
		assertThat(manager.decide(Instance.CLUSTER).reason()).isEqualTo(Reason.RENEWED);
	}

	@Test
	void showsItsCandidacyToIsyPollingPeersAsActivitySoThatTheyHoldBackWhileItSettles() throws Exception {
		PollingJmxServer peerServer = PollingJmxServer.start(JmxServerSettings.loopback(0).withReadableDomains(Set.of("de.bund.bva.test")));
		this.closeables.add(peerServer);
		MBeanServer ours = MBeanServerFactory.newMBeanServer();
		ObjectName ourName = JmxContract.ISY_POLLING.objectName("de.bund.bva.test", CLUSTER);
		// the stand-in peer, each time it is asked, looks at what an isy-polling peer would read from us at that moment
		List<Object> seenByIsyPolling = new ArrayList<>();
		IsyLikeStatus peerStatus = new IsyLikeStatus() {

			@Override
			public long getZeitraumLetztePollingAktivitaet() {
				try {
					seenByIsyPolling.add(ours.getAttribute(ourName, "ZeitraumLetztePollingAktivitaet"));
				}
				catch (Exception ex) {
					seenByIsyPolling.add(ex);
				}
				return super.getZeitraumLetztePollingAktivitaet();
			}

		};
		peerServer.mbeanServer().registerMBean(new StandardMBean(peerStatus, IsyLikeStatusMBean.class), ourName);
		PollingManager manager = manager(ours, List.of(dev.polling.core.PeerDefinition.of("SERVER2", "127.0.0.1", peerServer.port())));

		assertThat(manager.decide(Instance.CLUSTER).reason()).isEqualTo(Reason.NO_ACTIVE_PEER);
		// first round: not yet a candidate (never active); second round, while settling: a candidate, shown as just active
		assertThat(seenByIsyPolling).containsExactly(Long.MAX_VALUE, 0L);
		assertThat((Long) ours.getAttribute(ourName, "ZeitraumLetztePollingAktivitaet")).isBetween(0L, 5_000L);
	}

	@Test
	void instancesOfOursRecogniseThemselvesAndEachOtherUnderTheIsyPollingContract() {
		List<Instance> instances = Instance.cluster(2, (s) -> s.withJmxContract(JmxContract.ISY_POLLING));
		this.closeables.addAll(instances);
		Decision first = instances.get(0).manager().decide(Instance.CLUSTER);
		assertThat(first.reason()).isEqualTo(Reason.NO_ACTIVE_PEER);
		assertThat(first.peers()).extracting(PeerObservation::state).containsExactly(PeerState.SELF, PeerState.ANSWERED);
		assertThat(instances.get(1).manager().decide(Instance.CLUSTER).reason()).isEqualTo(Reason.PEER_ACTIVE);
	}

	private PollingManager manager(MBeanServer mbeanServer, List<dev.polling.core.PeerDefinition> peers) {
		PollingManager manager = TestBuilders.ignoringStarvation(PollingManager.builder())
			.settings(PollingSettings.defaults()
				.withInstanceId("ours")
				.withPeerTimeout(Duration.ofSeconds(4)) // a cold JVM's first JMX read on a starved CI machine took over 500 ms
				.withJmxDomain("de.bund.bva.test")
				.withJmxContract(JmxContract.ISY_POLLING))
			.cluster(CLUSTER)
			.peers(peers)
			.mbeanServer(mbeanServer)
			.build();
		this.closeables.add(manager);
		return manager;
	}

	/** isy-polling's MBean as its peers see it: two attributes, nothing else. */
	public interface IsyLikeStatusMBean {

		long getZeitraumLetztePollingAktivitaet();

		Date getZeitpunktLetztePollingAktivitaet();

	}

	static class IsyLikeStatus implements IsyLikeStatusMBean {

		volatile long elapsed = Long.MAX_VALUE;

		@Override
		public long getZeitraumLetztePollingAktivitaet() {
			return this.elapsed;
		}

		@Override
		public Date getZeitpunktLetztePollingAktivitaet() {
			return new Date(0);
		}

	}

}
