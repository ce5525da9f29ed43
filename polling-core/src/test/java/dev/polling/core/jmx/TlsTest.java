package dev.polling.core.jmx;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import javax.management.MBeanServerFactory;
import javax.net.ssl.SSLContext;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.polling.core.ClusterDefinition;
import dev.polling.core.Decision;
import dev.polling.core.PeerDefinition;
import dev.polling.core.PeerFault;
import dev.polling.core.PeerState;
import dev.polling.core.PollingManager;
import dev.polling.core.TestBuilders;
import dev.polling.core.PollingSettings;
import dev.polling.core.jmx.PollingJmxServer.ServerTls;
import dev.polling.core.test.TestCertificates;

/** Peers over TLS: real certificates, real connector servers. */
class TlsTest {

	private static final String CLUSTER = "MAILABRUF_CLUSTER";

	@TempDir
	static Path certificates;

	static Path server;

	static Path client;

	static Path stranger;

	private final List<AutoCloseable> closeables = new ArrayList<>();

	@BeforeAll
	static void makeCertificates() {
		server = TestCertificates.keyStore(certificates, "server");
		client = TestCertificates.keyStore(certificates, "client");
		stranger = TestCertificates.keyStore(certificates, "stranger");
	}

	@AfterEach
	void close() throws Exception {
		for (AutoCloseable closeable : this.closeables) {
			closeable.close();
		}
	}

	@Test
	void readsAPeerOverTls() throws Exception {
		PollingJmxServer peer = holdingPeer(false);
		Decision decision = decide(peer, TestCertificates.context(client, server));
		assertThat(decision.peers().get(0).state()).as(decision.peers().get(0).toString()).isEqualTo(PeerState.ANSWERED);
		assertThat(decision.isGranted()).isFalse();
	}

	@Test
	void classifiesAnUntrustedServerCertificateAsATlsErrorWithoutThrowing() throws Exception {
		PollingJmxServer peer = holdingPeer(false);
		Decision decision = decide(peer, TestCertificates.context(client, stranger));
		assertThat(decision.peers().get(0).state()).isEqualTo(PeerState.ERROR);
		assertThat(decision.peers().get(0).fault()).isEqualTo(PeerFault.TLS);
	}

	@Test
	void requiresAClientCertificateWhenAsked() throws Exception {
		PollingJmxServer peer = holdingPeer(true);
		assertThat(decide(peer, TestCertificates.context(client, server)).peers().get(0).state()).isEqualTo(PeerState.ANSWERED);
		Decision untrustedClient = decide(peer, TestCertificates.context(stranger, server));
		assertThat(untrustedClient.peers().get(0).state()).isEqualTo(PeerState.ERROR);
		assertThat(untrustedClient.peers().get(0).fault()).isIn(PeerFault.TLS, PeerFault.IO);
	}

	/** A TLS mismatch does not pass by itself: a configuration fault, never an idle peer, and no exception. */
	@Test
	void aPlainClientAgainstATlsServerIsAConfigurationFaultNotAnIdlePeer() throws Exception {
		PollingJmxServer peer = holdingPeer(false);
		Decision decision = decide(peer, null);
		assertThat(decision.peers().get(0).state()).isEqualTo(PeerState.ERROR);
		assertThat(decision.peers().get(0).fault().isConfigurationFault()).as(decision.peers().get(0).toString()).isTrue();
		assertThat(decision.reason()).isEqualTo(Decision.Reason.PEER_MISCONFIGURED);
	}

	/** A TLS server whose instance holds the cluster; it trusts the client's certificate. */
	private PollingJmxServer holdingPeer(boolean requireClientAuth) throws Exception {
		PollingJmxServer peer = PollingJmxServer.start(JmxServerSettings.loopback(0), MBeanServerFactory.newMBeanServer(),
				new ServerTls(TestCertificates.context(server, client), requireClientAuth));
		this.closeables.add(peer);
		PollingManager holder = TestBuilders.ignoringStarvation(PollingManager.builder())
			.settings(PollingSettings.defaults().withInstanceId("holder"))
			.cluster(ClusterDefinition.of(CLUSTER, Duration.ofSeconds(10)))
			.mbeanServer(peer.mbeanServer())
			.build();
		this.closeables.add(0, holder);
		assertThat(holder.decide(CLUSTER).isGranted()).isTrue();
		return peer;
	}

	private Decision decide(PollingJmxServer peer, SSLContext tls) {
		PollingManager.Builder builder = TestBuilders.ignoringStarvation(PollingManager.builder())
			.settings(PollingSettings.defaults().withInstanceId("me").withPeerTimeout(Duration.ofSeconds(2)))
			.cluster(ClusterDefinition.of(CLUSTER, Duration.ofSeconds(10)))
			.peer(PeerDefinition.of("peer", "127.0.0.1", peer.port()));
		if (tls != null) {
			builder.peerTls("peer", tls);
		}
		PollingManager me = builder.build();
		this.closeables.add(0, me);
		return me.decide(CLUSTER);
	}

}
