package dev.polling.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.function.UnaryOperator;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.polling.core.Decision.Reason;
import dev.polling.core.test.Instance;

class PollingManagerJmxTest {

	private List<Instance> instances = List.of();

	@AfterEach
	void close() {
		this.instances.forEach(Instance::close);
	}

	@Test
	void grantsTheFirstAndRefusesTheOthersWhileItIsActive() {
		this.instances = Instance.cluster(3, UnaryOperator.identity());
		PollingManager a = this.instances.get(0).manager();
		PollingManager b = this.instances.get(1).manager();
		PollingManager c = this.instances.get(2).manager();
		Decision first = a.decide(Instance.CLUSTER);
		assertThat(first.reason()).isEqualTo(Reason.NO_ACTIVE_PEER);
		assertThat(first.peers()).extracting(PeerObservation::state)
			.containsExactly(PeerState.SELF, PeerState.ANSWERED, PeerState.ANSWERED);
		assertThat(b.decide(Instance.CLUSTER).reason()).isEqualTo(Reason.PEER_ACTIVE);
		assertThat(c.decide(Instance.CLUSTER).reason()).isEqualTo(Reason.PEER_ACTIVE);
		assertThat(a.decide(Instance.CLUSTER).reason()).isEqualTo(Reason.RENEWED);
		assertThat(a.isHolding(Instance.CLUSTER)).isTrue();
		assertThat(b.isHolding(Instance.CLUSTER)).isFalse();
	}

}
