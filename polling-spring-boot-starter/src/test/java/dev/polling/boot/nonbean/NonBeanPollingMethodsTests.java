package dev.polling.boot.nonbean;

import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import dev.polling.boot.annotation.PollingAction;
import dev.polling.boot.annotation.PollingCycle;
import dev.polling.core.PollingManager;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code @PollingCycle} on a method of a class that is not a bean (a helper created with
 * {@code new}) ran on every instance without a word (issue 31 item 1): a real
 * {@code SpringApplication} whose package (this test's own) holds such a helper, a bean with the
 * annotation, and a superclass of a bean.
 */
@ExtendWith(OutputCaptureExtension.class)
class NonBeanPollingMethodsTests {

	/** Set by {@link MailHelper}'s static initializer: the scan must not run it. */
	static final AtomicBoolean helperInitialized = new AtomicBoolean();

	@Test
	void anAnnotatedMethodOfAClassThatIsNoBeanIsNamedAtStartWithTheFix(CapturedOutput output) {
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(HelperApplication.class)
			.web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off", "polling.jmx.domain=dev.polling.nonbeantest",
					"polling.clusters.MAILBOX.wait-time=10s")
			.run()) {
			assertThat(context.getBean(PollingManager.class).clusterIds()).containsExactly("MAILBOX");
		}
		String helper = "dev.polling.boot.nonbean.NonBeanPollingMethodsTests$MailHelper";
		assertThat(output.getOut().lines().filter((line) -> line.contains(helper)))
			.as("one WARN per annotated method of the helper")
			.hasSize(2)
			.allSatisfy((line) -> assertThat(line).contains(" WARN ")
				.contains("its class is not a Spring bean (no bean has this type), so the method runs unguarded, on every instance")
				.contains("Fix: make the class a bean (@Component, or a @Bean method) and call the method through that bean"));
		assertThat(output.getOut()).contains("@PollingCycle(\"MAILBOX\") on " + helper + ".fetchMail() has no effect")
			.contains("@PollingAction(\"MAILBOX\") on " + helper + ".markRead() has no effect")
			.doesNotContain("NonBeanPollingMethodsTests$GuardedMailbox")
			.doesNotContain("NonBeanPollingMethodsTests$MailboxBase");
		assertThat(helperInitialized).as("the helper's static initializer ran").isFalse();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class HelperApplication {

		@Bean
		GuardedMailbox guardedMailbox() {
			return new GuardedMailbox();
		}

	}

	/** Created with new somewhere in the application: its annotations do nothing. */
	static class MailHelper {

		static {
			helperInitialized.set(true);
		}

		@PollingCycle("MAILBOX")
		public void fetchMail() {
		}

		@PollingAction("MAILBOX")
		public void markRead() {
		}

	}

	/** A superclass of a bean: its method is advised on the bean. */
	abstract static class MailboxBase {

		@PollingCycle("MAILBOX")
		public void poll() {
		}

	}

	static class GuardedMailbox extends MailboxBase {

		@PollingCycle(cluster = "MAILBOX")
		public void fetch() {
		}

	}

}
