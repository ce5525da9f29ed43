package dev.polling.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.util.TestSocketUtils.findAvailableTcpPort;

import java.nio.file.Path;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.polling.core.Decision;
import dev.polling.core.Decision.Reason;
import dev.polling.core.PeerState;
import dev.polling.core.PollingManager;
import dev.polling.core.jmx.PollingJmxServer;
import dev.polling.core.test.TestCertificates;

/** TLS between instances from Spring Boot SSL bundles: a server bundle and a peer bundle. */
class PollingTlsAutoConfigurationTests {

	@TempDir
	static Path directory;

	static Path server;

	static Path client;

	@BeforeAll
	static void certificates() {
		server = TestCertificates.keyStore(directory, "server");
		client = TestCertificates.keyStore(directory, "client");
	}

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class, PollingAutoConfiguration.class))
		.withPropertyValues("polling.clusters.MAILABRUF_CLUSTER.wait-time=10s", "polling.jmx.domain=dev.polling.tlstest");

	@Test
	void servesAndReadsPeersOverTlsFromSslBundles() throws Exception {
		int port = findAvailableTcpPort();
		this.runner
			.withPropertyValues("polling.instance-id=holder", "polling.jmx.server.port=" + port, "polling.jmx.server.ssl-bundle=server",
					"polling.jmx.server.require-client-certificate=true")
			.withPropertyValues(bundle("server", server, client))
			.run((holderContext) -> {
				assertThat(holderContext).hasNotFailed();
				assertThat(holderContext.getBean(PollingJmxServerLifecycle.class).server().isTls()).isTrue();
				assertThat(holderContext.getBean(PollingManager.class).decide("MAILABRUF_CLUSTER").isGranted()).isTrue();
				this.runner
					.withPropertyValues("polling.instance-id=standby", "polling.jmx.peers.HOLDER.host=127.0.0.1",
							"polling.jmx.peers.HOLDER.port=" + port, "polling.jmx.peers.HOLDER.ssl-bundle=client")
					.withPropertyValues(bundle("client", client, server))
					.run((standbyContext) -> {
						Decision decision = standbyContext.getBean(PollingManager.class).decide("MAILABRUF_CLUSTER");
						assertThat(decision.peers().get(0).state()).as(decision.peers().get(0).toString()).isEqualTo(PeerState.ANSWERED);
						assertThat(decision.reason()).isEqualTo(Reason.PEER_ACTIVE);
					});
			});
	}

	private static String[] bundle(String name, Path keyStore, Path trustStore) {
		String prefix = "spring.ssl.bundle.jks." + name + ".";
		return new String[] { prefix + "keystore.location=file:" + keyStore, prefix + "keystore.password=changeit",
				prefix + "keystore.type=PKCS12", prefix + "truststore.location=file:" + trustStore,
				prefix + "truststore.password=changeit", prefix + "truststore.type=PKCS12" };
	}

}
