package dev.polling.core;

import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.time.Duration;
import java.util.Arrays;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Applications cannot select the known-bad check-then-act grant: the enum, the builder's setter and
 * the instance's getter are package-private and the settings have no such component; only the tests'
 * bridge {@link TestBuilders#checkThenAct} reaches it.
 */
class GrantProtocolVisibilityTests {

	@Test
	void theGrantProtocolIsNotPublicApi() throws NoSuchMethodException {
		assertThat(Modifier.isPublic(GrantProtocol.class.getModifiers())).isFalse();
		assertThat(Modifier.isPublic(PollingManager.Builder.class.getDeclaredMethod("grantProtocol", GrantProtocol.class).getModifiers()))
			.isFalse();
		assertThat(Arrays.stream(PollingSettings.class.getRecordComponents()).map(RecordComponent::getType))
			.doesNotContain(GrantProtocol.class);
	}

	@Test
	void aManagerUsesAnnounceUnlessTheTestsBridgeSelectsCheckThenAct() {
		PollingManager.Builder builder = PollingManager.builder().cluster(ClusterDefinition.of("C", Duration.ofSeconds(10)));
		try (PollingManager announce = TestBuilders.ignoringStarvation(builder).build()) {
			assertThat(announce.runtime("C").instance().grantProtocol()).isEqualTo(GrantProtocol.ANNOUNCE);
		}
		try (PollingManager checkThenAct = TestBuilders.checkThenAct(TestBuilders.ignoringStarvation(PollingManager.builder()
			.cluster(ClusterDefinition.of("C", Duration.ofSeconds(10))))).build()) {
			assertThat(checkThenAct.runtime("C").instance().grantProtocol()).isEqualTo(GrantProtocol.CHECK_THEN_ACT);
		}
	}

}
