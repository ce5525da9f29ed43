package dev.polling.boot.compat;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.polling.boot.aop.PollingAnnotationException;
import dev.polling.boot.autoconfigure.PollingAutoConfiguration;
import dev.polling.boot.autoconfigure.compat.IsyPollingCompatibilityAutoConfiguration;
import dev.polling.core.PollingManager;
import dev.polling.core.UnknownClusterException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * isy-polling's Java API on this library: {@link PollingVerwalter} (startePolling,
 * aktualisiereZeitpunktLetztePollingAktivitaet, getZeitpunktLetztePollingAktivitaet) and
 * {@link PollingAktion @PollingAktion}, one test per row of the API table in the migration guide.
 */
class PollingVerwalterTests {

	private static final String CLUSTER = "MAILABRUF_CLUSTER";

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(PollingAutoConfiguration.class, IsyPollingCompatibilityAutoConfiguration.class))
		.withPropertyValues("polling.instance-id=verwalter", "polling.jmx.domain=dev.polling.verwaltertest",
				"polling.clusters." + CLUSTER + ".wait-time=600s");

	@Test
	void startePollingIsTryStartPolling() {
		this.runner.run((context) -> {
			PollingVerwalter verwalter = context.getBean(PollingVerwalter.class);
			assertThat(verwalter.startePolling(CLUSTER)).isTrue();
			assertThat(context.getBean(PollingManager.class).isHolding(CLUSTER)).isTrue();
			assertThatExceptionOfType(UnknownClusterException.class).isThrownBy(() -> verwalter.startePolling("UNKNOWN_CLUSTER"));
		});
	}

	@Test
	void getZeitpunktLetztePollingAktivitaetIsLastActivityInEpochMillisAndZeroForNever() {
		this.runner.run((context) -> {
			PollingVerwalter verwalter = context.getBean(PollingVerwalter.class);
			assertThat(verwalter.getZeitpunktLetztePollingAktivitaet(CLUSTER)).isZero();
			long before = System.currentTimeMillis();
			verwalter.startePolling(CLUSTER);
			assertThat(verwalter.getZeitpunktLetztePollingAktivitaet(CLUSTER)).isBetween(before - 1000, System.currentTimeMillis() + 1000);
		});
	}

	@Test
	void aktualisiereZeitpunktLetztePollingAktivitaetExtendsAHoldButNeverCreatesOne() {
		this.runner.run((context) -> {
			PollingVerwalter verwalter = context.getBean(PollingVerwalter.class);
			PollingManager manager = context.getBean(PollingManager.class);
			verwalter.aktualisiereZeitpunktLetztePollingAktivitaet(CLUSTER);
			assertThat(verwalter.getZeitpunktLetztePollingAktivitaet(CLUSTER)).isZero();
			assertThat(manager.isHolding(CLUSTER)).isFalse();
			verwalter.startePolling(CLUSTER);
			long granted = verwalter.getZeitpunktLetztePollingAktivitaet(CLUSTER);
			Thread.sleep(20);
			verwalter.aktualisiereZeitpunktLetztePollingAktivitaet(CLUSTER);
			assertThat(verwalter.getZeitpunktLetztePollingAktivitaet(CLUSTER)).isGreaterThan(granted);
		});
	}

	@Test
	void pollingAktionRefreshesTheActivityAfterEachCallLikePollingAction() {
		this.runner.withUserConfiguration(AktionConfiguration.class).run((context) -> {
			PollingManager manager = context.getBean(PollingManager.class);
			Processor processor = context.getBean(Processor.class);
			manager.tryStartPolling(CLUSTER);
			long granted = manager.lastActivity(CLUSTER).orElseThrow().toEpochMilli();
			Thread.sleep(20);
			processor.process();
			assertThat(processor.calls()).isEqualTo(1);
			assertThat(manager.lastActivity(CLUSTER).orElseThrow().toEpochMilli()).isGreaterThan(granted);
		});
	}

	@Test
	void pollingAktionWithAnUnknownClusterFailsTheStartup() {
		this.runner.withUserConfiguration(UnknownClusterConfiguration.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).isInstanceOf(PollingAnnotationException.class)
				.hasMessageContaining("names unknown cluster 'POSTFACH9_CLUSTER'");
		});
	}

	@Test
	void backsOffWhenTheApplicationDefinesItsOwnPollingVerwalter() {
		this.runner.withBean("ownVerwalter", PollingVerwalter.class, () -> new PollingVerwalter(null)).run((context) -> {
			assertThat(context).hasSingleBean(PollingVerwalter.class);
			assertThat(context).hasBean("ownVerwalter");
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class AktionConfiguration {

		@Bean
		Processor processor() {
			return new Processor();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UnknownClusterConfiguration {

		@Bean
		UnknownClusterProcessor unknownClusterProcessor() {
			return new UnknownClusterProcessor();
		}

	}

	static class Processor {

		private int calls;

		@PollingAktion(pollingCluster = CLUSTER)
		public void process() {
			this.calls++;
		}

		public int calls() {
			return this.calls;
		}

	}

	static class UnknownClusterProcessor {

		@PollingAktion(pollingCluster = "POSTFACH9_CLUSTER")
		public void process() {
		}

	}

}
