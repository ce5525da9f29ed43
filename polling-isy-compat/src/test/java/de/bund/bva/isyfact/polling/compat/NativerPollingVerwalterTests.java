package de.bund.bva.isyfact.polling.compat;

import java.lang.management.ManagementFactory;

import de.bund.bva.isyfact.polling.PollingVerwalter;
import de.bund.bva.isyfact.polling.autoconfigure.IsyPollingAutoConfiguration;
import de.bund.bva.isyfact.polling.impl.NativerPollingVerwalter;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code isy.polling.nativ.aktiv=true}: polling-core's {@code PollingManager} decides. */
class NativerPollingVerwalterTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(IsyPollingAutoConfiguration.class));

	@Test
	void recognisesAConnectionToThisInstanceAsItselfAndKeepsItsHold() throws Exception {
		try (JmxTestServer self = JmxTestServer.platform()) {
			this.runner.withPropertyValues("isy.polling.nativ.aktiv=true", "isy.polling.jmx.verbindungen.SELF.host=localhost",
					"isy.polling.jmx.verbindungen.SELF.port=" + self.port, "isy.polling.jmx.timeout=1s",
					"isy.polling.cluster.C1.name=Nativ-Eins", "isy.polling.cluster.C1.wartezeit=10")
				.run((context) -> {
					assertThat(context).hasNotFailed();
					PollingVerwalter verwalter = context.getBean(PollingVerwalter.class);
					assertThat(verwalter).isInstanceOf(NativerPollingVerwalter.class);
					// the manager's own MBean, under isy-polling's name
					assertThat(ManagementFactory.getPlatformMBeanServer().isRegistered(JmxTestServer.isyName("Nativ-Eins"))).isTrue();
					assertThat(verwalter.startePolling("C1")).isTrue();
					long granted = verwalter.getZeitpunktLetztePollingAktivitaet("C1");
					assertThat(granted).isPositive();
					verwalter.aktualisiereZeitpunktLetztePollingAktivitaet("C1");
					// isy-polling would read its own fresh activity here and refuse
					assertThat(verwalter.startePolling("C1")).isTrue();
				});
			assertThat(ManagementFactory.getPlatformMBeanServer().isRegistered(JmxTestServer.isyName("Nativ-Eins"))).isFalse();
		}
	}

	@Test
	void refusesWhileAnIsyPollingPeerIsActive() throws Exception {
		try (JmxTestServer peer = JmxTestServer.other()) {
			peer.publish("Nativ-Zwei", 1_000);
			this.runner.withPropertyValues("isy.polling.nativ.aktiv=true", "isy.polling.jmx.verbindungen.PEER.host=localhost",
					"isy.polling.jmx.verbindungen.PEER.port=" + peer.port, "isy.polling.jmx.timeout=1s",
					"isy.polling.cluster.C2.name=Nativ-Zwei", "isy.polling.cluster.C2.wartezeit=10")
				.run((context) -> assertThat(context.getBean(PollingVerwalter.class).startePolling("C2")).isFalse());
		}
	}

}
