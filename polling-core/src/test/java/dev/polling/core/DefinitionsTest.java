package dev.polling.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import java.util.Set;

import org.junit.jupiter.api.Test;

/** Bad definitions fail with one message that names the item, the value and the fix. */
class DefinitionsTest {

	@Test
	void rejectsAWaitTimeBelowTenSeconds() {
		assertThatIllegalArgumentException().isThrownBy(() -> ClusterDefinition.of("MAILABRUF_CLUSTER", Duration.ofSeconds(5)))
			.withMessageContaining("'MAILABRUF_CLUSTER'")
			.withMessageContaining("5000 ms")
			.withMessageContaining("at least 10s");
	}

	/** Zero cannot order two candidates that announce in the same millisecond: both could be granted. */
	@Test
	void rejectsASettleTimeOfZero() {
		assertThatIllegalArgumentException().isThrownBy(() -> PollingSettings.defaults().withSettleTime(Duration.ZERO))
			.withMessageContaining("settleTime 0 ms")
			.withMessageContaining("10ms-5s");
	}

	@Test
	void rejectsASettleTimeNotShorterThanThePeerTimeout() {
		assertThatIllegalArgumentException().isThrownBy(() -> PollingManager.builder()
			.settings(PollingSettings.defaults().withPeerTimeout(Duration.ofMillis(200)).withSettleTime(Duration.ofMillis(200)))
			.cluster(ClusterDefinition.of("MAILABRUF_CLUSTER", Duration.ofSeconds(10)))
			.build()).withMessageContaining("Settle time 200 ms").withMessageContaining("peer timeout (200 ms)");
	}

	@Test
	void namesAClusterAfterItsIdByDefault() {
		assertThat(ClusterDefinition.of("MAILABRUF_CLUSTER", Duration.ofSeconds(10)).name()).isEqualTo("MAILABRUF_CLUSTER");
	}

	@Test
	void rejectsAPeerWithNeitherHostNorUrl() {
		assertThatIllegalArgumentException().isThrownBy(() -> new PeerDefinition("SERVER2", null, 9010, null, null, null))
			.withMessageContaining("'SERVER2'")
			.withMessageContaining("neither host nor url");
	}

	@Test
	void rejectsPortsOutOfRange() {
		assertThatIllegalArgumentException().isThrownBy(() -> PeerDefinition.of("SERVER2", "localhost", 0))
			.withMessageContaining("port 0");
		assertThatIllegalArgumentException().isThrownBy(() -> PeerDefinition.of("SERVER2", "localhost", 70000))
			.withMessageContaining("port 70000")
			.withMessageContaining("1-65535");
	}

	@Test
	void rejectsABlankHost() {
		assertThatIllegalArgumentException().isThrownBy(() -> PeerDefinition.of("SERVER2", " ", 9010))
			.withMessageContaining("host is blank");
	}

	@Test
	void rejectsAPasswordWithoutUsername() {
		assertThatIllegalArgumentException().isThrownBy(() -> new PeerDefinition("SERVER2", "localhost", 9010, null, null, "pwd"))
			.withMessageContaining("without a username")
			.withMessageNotContaining("pwd");
	}

	@Test
	void neverShowsThePasswordInToString() {
		PeerDefinition peer = PeerDefinition.of("SERVER2", "localhost", 9010).withCredentials("userid", "s3cret-pwd");
		assertThat(peer.toString()).contains("userid").doesNotContain("s3cret-pwd");
		assertThat(peer.serviceUrl()).isEqualTo("service:jmx:rmi:///jndi/rmi://localhost:9010/jmxrmi");
	}

	@Test
	void rejectsABlankInstanceId() {
		assertThatIllegalArgumentException().isThrownBy(() -> PollingSettings.defaults().withInstanceId(" "))
			.withMessageContaining("instanceId is blank");
	}

	@Test
	void rejectsAPeerTimeoutOfHalfTheWaitTimeOrMore() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> PollingManager.builder()
				.settings(PollingSettings.defaults().withPeerTimeout(Duration.ofSeconds(5)))
				.cluster(ClusterDefinition.of("MAILABRUF_CLUSTER", Duration.ofSeconds(10)))
				.build())
			.withMessageContaining("5000 ms")
			.withMessageContaining("'MAILABRUF_CLUSTER'")
			.withMessageContaining("lower the peer timeout or raise the wait time");
	}

	@Test
	void rejectsAClusterNamingAnUnknownPeer() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> PollingManager.builder()
				.cluster(ClusterDefinition.of("MAILABRUF_CLUSTER", Duration.ofSeconds(10)).withPeerIds(Set.of("SERVER3")))
				.peer(PeerDefinition.of("SERVER2", "localhost", 9010))
				.build())
			.withMessageContaining("unknown peer 'SERVER3'")
			.withMessageContaining("[SERVER2]");
	}

	@Test
	void rejectsTwoPeersWithTheSameAddress() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> PollingManager.builder()
				.cluster(ClusterDefinition.of("MAILABRUF_CLUSTER", Duration.ofSeconds(10)))
				.peer(PeerDefinition.of("SERVER2", "localhost", 9010))
				.peer(PeerDefinition.of("SERVER3", "LOCALHOST", 9010))
				.build())
			.withMessageContaining("'SERVER2' and 'SERVER3'")
			.withMessageContaining("same address LOCALHOST:9010");
	}

	@Test
	void rejectsAManagerWithoutClusters() {
		assertThatIllegalArgumentException().isThrownBy(() -> PollingManager.builder().build())
			.withMessageContaining("No polling clusters");
	}

}
