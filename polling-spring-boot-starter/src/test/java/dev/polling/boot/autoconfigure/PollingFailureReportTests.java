package dev.polling.boot.autoconfigure;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.mock.env.MockEnvironment;

import dev.polling.core.PollingManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/** The startup report a user sees, through Spring Boot's real failure analysis. */
@ExtendWith(OutputCaptureExtension.class)
class PollingFailureReportTests {

	@Test
	void reportsAnInvalidWaitTimeWithPropertyValueAndFix(CapturedOutput output) {
		assertThatException().isThrownBy(() -> run("polling.clusters.MAILABRUF_CLUSTER.wait-time=5s"));
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("Property: polling.clusters.MAILABRUF_CLUSTER.wait-time")
			.contains("Value: 5s")
			.contains("Fix: set polling.clusters.MAILABRUF_CLUSTER.wait-time to at least 10s");
	}

	@Test
	void reportsAnUnparsableDurationWithTheExpectedFormat(CapturedOutput output) {
		assertThatException()
			.isThrownBy(() -> run("polling.clusters.MAILABRUF_CLUSTER.wait-time=10s", "polling.jmx.peer-timeout=two seconds"));
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("Property: polling.jmx.peer-timeout")
			.contains("Value: 'two seconds'")
			.contains("Reason: the value cannot be read as a duration")
			.contains("500ms, 2s or 10m");
	}

	@Test
	void reportsAnUnknownClusterInAnAnnotation(CapturedOutput output) {
		assertThatException().isThrownBy(() -> new SpringApplicationBuilder(BadAnnotationApplication.class)
			.web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off", "polling.jmx.domain=dev.polling.reporttest",
					"polling.clusters.MAILABRUF_CLUSTER.wait-time=10s")
			.run());
		assertThat(output).contains("Invalid polling annotation: @PollingCycle on")
			.contains("names unknown cluster 'POSTFACH1_CLUSTER'")
			.contains("Fix: correct the id in the annotation");
	}

	@Test
	void explainsAMissingManagerWhenClustersAreSetAtRunTimeOnly() {
		MockEnvironment environment = new MockEnvironment().withProperty("polling.clusters.MAILBOX_1.wait-time", "10s");
		FailureAnalysis analysis = new MissingPollingBeanFailureAnalyzer(environment)
			.analyze(new NoSuchBeanDefinitionException(PollingManager.class));
		assertThat(analysis).isNotNull();
		assertThat(analysis.getDescription()).contains("polling.clusters is set now")
			.contains("Spring AOT decides at build time which beans exist");
		assertThat(analysis.getAction()).contains("configuration packaged with the application");
	}

	private static void run(String... properties) {
		new SpringApplicationBuilder(EmptyApplication.class).web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off", "polling.jmx.domain=dev.polling.reporttest")
			.properties(properties)
			.run()
			.close();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class EmptyApplication {

	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class BadAnnotationApplication {

		@org.springframework.context.annotation.Bean
		Poller poller() {
			return new Poller();
		}

	}

	static class Poller {

		@dev.polling.boot.annotation.PollingCycle("POSTFACH1_CLUSTER")
		void poll() {
		}

	}

}
