package de.bund.bva.isyfact.polling.compat;

import java.util.Map;

import de.bund.bva.isyfact.polling.PollingVerwalter;
import de.bund.bva.isyfact.polling.annotation.PollingAktion;
import de.bund.bva.isyfact.polling.autoconfigure.IsyPollingAutoConfiguration;
import de.bund.bva.isyfact.polling.common.exception.PollingClusterKonfigurationException;
import de.bund.bva.isyfact.polling.common.exception.PollingClusterUnbekanntException;
import de.bund.bva.isyfact.polling.config.IsyPollingProperties;
import de.bund.bva.isyfact.polling.impl.NativerPollingVerwalter;
import de.bund.bva.isyfact.polling.impl.PollingVerwalterImpl;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/** The auto-configuration: binding of {@code isy.polling.*}, start checks, {@code @PollingAktion}, the native switch. */
class IsyPollingAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(IsyPollingAutoConfiguration.class));

	private static final String[] CLUSTERED = { "isy.polling.jmx.verbindungen.S1.host=localhost",
			"isy.polling.jmx.verbindungen.S1.port=1", "isy.polling.jmx.timeout=300ms", "isy.polling.cluster.C1.name=Eins",
			"isy.polling.cluster.C1.wartezeit=10" };

	@Test
	void bindsIsyPollingPropertiesDirectly() {
		this.runner.withPropertyValues("isy.polling.jmx.domain=test.domain", "isy.polling.jmx.verbindungen.S1.host=h1",
				"isy.polling.jmx.verbindungen.S1.port=9001", "isy.polling.jmx.verbindungen.S1.benutzer=u",
				"isy.polling.jmx.verbindungen.S1.passwort=p", "isy.polling.cluster.C1.name=Eins",
				"isy.polling.cluster.C1.wartezeit=600", "isy.polling.cluster.C1.jmxverbindungen=S1, S1")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				IsyPollingProperties p = context.getBean(IsyPollingProperties.class);
				assertThat(p.getJmx().getDomain()).isEqualTo("test.domain");
				assertThat(p.getJmx().getVerbindungen().get("S1").getPort()).isEqualTo(9001);
				assertThat(p.getCluster().get("C1").getWartezeit()).isEqualTo(600);
				assertThat(p.getCluster().get("C1").getJmxverbindungen()).containsExactly("S1", "S1");
				assertThat(context.getBean(PollingVerwalter.class)).isInstanceOf(PollingVerwalterImpl.class);
			});
	}

	@Test
	void bindsEnvironmentVariables() {
		this.runner.withInitializer((context) -> context.getEnvironment().getPropertySources()
			.replace(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
					new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, Map.of("ISY_POLLING_CLUSTER_C1_NAME", "Eins",
					"ISY_POLLING_CLUSTER_C1_WARTEZEIT", "30", "ISY_POLLING_JMX_DOMAIN", "env.domain"))))
			.run((context) -> {
				IsyPollingProperties p = context.getBean(IsyPollingProperties.class);
				assertThat(p.getJmx().getDomain()).isEqualTo("env.domain");
				assertThat(p.getCluster()).hasSize(1);
				assertThat(p.getCluster().values().iterator().next().getWartezeit()).isEqualTo(30);
			});
	}

	@Test
	void anInvalidPortOrMissingHostFailsAsABeanCreationFailure() {
		this.runner.withPropertyValues("isy.polling.jmx.verbindungen.S1.port=-1")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.cause()
				.isInstanceOf(BeanCreationException.class)
				.hasStackTraceContaining("isy.polling.jmx.verbindungen.S1.host is not set")
				.hasStackTraceContaining("isy.polling.jmx.verbindungen.S1.port is -1"));
	}

	@Test
	void startsAndChecksWithoutABeanValidationProvider() {
		ApplicationContextRunner withoutProvider = this.runner.withClassLoader(new FilteredClassLoader("org.hibernate.validator"));
		withoutProvider.withPropertyValues(CLUSTERED).run((context) -> assertThat(context).hasNotFailed());
		withoutProvider.withPropertyValues("isy.polling.jmx.verbindungen.S1.port=70000")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.cause()
				.isInstanceOf(BeanCreationException.class)
				.hasStackTraceContaining("isy.polling.jmx.verbindungen.S1.port is 70000"));
	}

	@Test
	void aWaitTimeUnderTenFailsTheStartWithConnectionsAndIsIgnoredStandalone() {
		this.runner.withPropertyValues(CLUSTERED).withPropertyValues("isy.polling.cluster.C1.wartezeit=5")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.isInstanceOf(BeanCreationException.class)
				.rootCause()
				.hasMessageContaining("wartezeit is 5"));
		this.runner.withPropertyValues("isy.polling.cluster.C1.name=Eins", "isy.polling.cluster.C1.wartezeit=5")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void anUnknownConnectionIdFailsTheStartWithConnectionsAndIsIgnoredStandalone() {
		this.runner.withPropertyValues(CLUSTERED).withPropertyValues("isy.polling.cluster.C1.jmxverbindungen=S9")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOfSatisfying(PollingClusterKonfigurationException.class,
						(ex) -> assertThat(ex.getAusnahmeId()).isEqualTo("POLLI01006")));
		this.runner.withPropertyValues("isy.polling.cluster.C1.name=Eins", "isy.polling.cluster.C1.wartezeit=10",
				"isy.polling.cluster.C1.jmxverbindungen=S9")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void connectionsWithTheSameHostAndPortAreAccepted() {
		this.runner.withPropertyValues(CLUSTERED)
			.withPropertyValues("isy.polling.jmx.verbindungen.S2.host=localhost", "isy.polling.jmx.verbindungen.S2.port=1")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void pollingAktionRecordsActivityAfterTheMethodAndReportsAnUnknownClusterAtCallTime() {
		this.runner.withPropertyValues(CLUSTERED).withUserConfiguration(Actions.class).run((context) -> {
			assertThat(context).hasNotFailed();
			PollingVerwalter verwalter = context.getBean(PollingVerwalter.class);
			Aktionen aktionen = context.getBean(Aktionen.class);
			assertThat(verwalter.getZeitpunktLetztePollingAktivitaet("C1")).isZero();
			aktionen.known();
			assertThat(verwalter.getZeitpunktLetztePollingAktivitaet("C1")).isPositive();
			assertThatExceptionOfType(PollingClusterUnbekanntException.class).isThrownBy(aktionen::unknown);
			assertThat(aktionen.unknownCalls()).isEqualTo(1);
			assertThatExceptionOfType(IllegalStateException.class).isThrownBy(aktionen::failing);
			assertThat(verwalter.getZeitpunktLetztePollingAktivitaet("C1")).isPositive();
		});
	}

	@Test
	void pollingAktionWithAnUnknownClusterDoesNotThrowStandalone() {
		this.runner.withPropertyValues("isy.polling.cluster.C1.name=Eins", "isy.polling.cluster.C1.wartezeit=10")
			.withUserConfiguration(Actions.class)
			.run((context) -> {
				Aktionen aktionen = context.getBean(Aktionen.class);
				aktionen.unknown();
				assertThat(aktionen.unknownCalls()).isEqualTo(1);
				assertThat(context.getBean(PollingVerwalter.class).getZeitpunktLetztePollingAktivitaet("C1")).isZero();
			});
	}

	@Test
	void anApplicationsOwnPollingVerwalterIsUsed() {
		PollingVerwalter own = new PollingVerwalter() {

			@Override
			public boolean startePolling(String clusterId) {
				return false;
			}

			@Override
			public void aktualisiereZeitpunktLetztePollingAktivitaet(String clusterId) {
			}

			@Override
			public long getZeitpunktLetztePollingAktivitaet(String clusterId) {
				return 42;
			}
		};
		this.runner.withBean("eigenerVerwalter", PollingVerwalter.class, () -> own)
			.withPropertyValues(CLUSTERED)
			.run((context) -> assertThat(context.getBean(PollingVerwalter.class).getZeitpunktLetztePollingAktivitaet("x")).isEqualTo(42));
	}

	@Test
	void nativeBehaviourIsOnePropertyAway() {
		this.runner.withPropertyValues(CLUSTERED).withPropertyValues("isy.polling.nativ.aktiv=true").run((context) -> {
			assertThat(context).hasNotFailed();
			PollingVerwalter verwalter = context.getBean(PollingVerwalter.class);
			assertThat(verwalter).isInstanceOf(NativerPollingVerwalter.class);
			// activity only extends a hold this instance was granted
			verwalter.aktualisiereZeitpunktLetztePollingAktivitaet("C1");
			assertThat(verwalter.getZeitpunktLetztePollingAktivitaet("C1")).isZero();
			assertThatExceptionOfType(PollingClusterUnbekanntException.class).isThrownBy(() -> verwalter.startePolling("X"));
		});
	}

	@Test
	void nativeBehaviourChecksStrictlyAtStart() {
		this.runner.withPropertyValues(CLUSTERED)
			.withPropertyValues("isy.polling.nativ.aktiv=true", "isy.polling.jmx.verbindungen.S2.host=localhost",
					"isy.polling.jmx.verbindungen.S2.port=1")
			.run((context) -> assertThat(context).hasFailed().getFailure().rootCause().hasMessageContaining("same address"));
		this.runner.withPropertyValues(CLUSTERED)
			.withPropertyValues("isy.polling.nativ.aktiv=true")
			.withUserConfiguration(Actions.class)
			.run((context) -> assertThat(context).hasFailed().getFailure().hasMessageContaining("names cluster 'UNKNOWN'"));
		this.runner.withPropertyValues("isy.polling.nativ.aktiv=true", "isy.polling.cluster.C1.name=Eins",
				"isy.polling.cluster.C1.wartezeit=10", "isy.polling.cluster.C1.jmxverbindungen=S9")
			.run((context) -> assertThat(context).hasFailed().getFailure().rootCause()
				.isInstanceOf(PollingClusterKonfigurationException.class));
	}

	@Configuration(proxyBeanMethods = false)
	static class Actions {

		@Bean
		Aktionen aktionen() {
			return new Aktionen();
		}

	}

	static class Aktionen {

		private int unknownCalls;

		int unknownCalls() {
			return this.unknownCalls;
		}

		@PollingAktion(pollingCluster = "C1")
		public void known() {
		}

		@PollingAktion(pollingCluster = "C1")
		public void failing() {
			throw new IllegalStateException("cycle failed");
		}

		@PollingAktion(pollingCluster = "UNKNOWN")
		public void unknown() {
			this.unknownCalls++;
		}

	}

}
