package dev.polling.boot.aop;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.Test;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.polling.boot.annotation.PollingAction;
import dev.polling.boot.annotation.PollingCycle;
import dev.polling.boot.autoconfigure.PollingAutoConfiguration;
import dev.polling.core.PollingManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

class PollingAnnotationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(PollingAutoConfiguration.class))
		.withPropertyValues("polling.instance-id=aop", "polling.jmx.domain=dev.polling.aoptest",
				"polling.clusters.MAILABRUF_CLUSTER.wait-time=10s", "polling.clusters.OTHER_CLUSTER.wait-time=10s");

	@Test
	void runsAGatedMethodWhenGrantedAndRecordsActivity() {
		this.runner.withUserConfiguration(PollerConfiguration.class).run((context) -> {
			Poller poller = context.getBean(Poller.class);
			PollingManager manager = context.getBean(PollingManager.class);
			assertThat(AopUtils.isAopProxy(poller)).isTrue();
			assertThat(poller.poll()).isEqualTo("polled");
			assertThat(poller.cycles()).isEqualTo(1);
			assertThat(manager.isHolding("MAILABRUF_CLUSTER")).isTrue();
			assertThat(manager.lastActivity("MAILABRUF_CLUSTER")).isPresent();
			assertThat(manager.isHolding("OTHER_CLUSTER")).isFalse();
		});
	}

	@Test
	void skipsAGatedMethodWhilePaused() {
		this.runner.withUserConfiguration(PollerConfiguration.class).run((context) -> {
			Poller poller = context.getBean(Poller.class);
			context.getBean(PollingManager.class).pause("MAILABRUF_CLUSTER");
			assertThat(poller.poll()).isNull();
			assertThat(poller.cycles()).isZero();
		});
	}

	@Test
	void skipsAGatedMethodWhileACycleOfTheSameClusterRunsLocally() {
		this.runner.withUserConfiguration(PollerConfiguration.class).run((context) -> {
			Poller poller = context.getBean(Poller.class);
			PollingManager manager = context.getBean(PollingManager.class);
			CompletableFuture<Void> first = CompletableFuture.runAsync(poller::blockingPoll);
			try {
				assertThat(poller.entered().await(5, TimeUnit.SECONDS)).isTrue();
				assertThat(manager.isCycleRunning("MAILABRUF_CLUSTER")).isTrue();
				poller.blockingPoll();
				assertThat(poller.blockingCycles()).isEqualTo(1);
			}
			finally {
				poller.release().countDown();
			}
			first.get(5, TimeUnit.SECONDS);
			await().atMost(Duration.ofSeconds(5)).until(() -> !manager.isCycleRunning("MAILABRUF_CLUSTER"));
			assertThat(poller.blockingCycles()).isEqualTo(1);
		});
	}

	@Test
	void passesOnWhatAGatedMethodThrows() {
		this.runner.withUserConfiguration(PollerConfiguration.class).run((context) -> {
			Poller poller = context.getBean(Poller.class);
			assertThatIllegalStateException().isThrownBy(poller::failingPoll).withMessage("mailbox down");
			assertThat(context.getBean(PollingManager.class).isCycleRunning("MAILABRUF_CLUSTER")).isFalse();
		});
	}

	@Test
	void refreshesActivityAfterAnActionMethodOnAHoldingInstance() {
		this.runner.withUserConfiguration(PollerConfiguration.class).run((context) -> {
			Processor processor = context.getBean(Processor.class);
			assertActivityRefreshedBy(context.getBean(PollingManager.class), "OTHER_CLUSTER", () -> processor.process("one"));
			assertThat(processor.processed()).isEqualTo(1);
		});
	}

	@Test
	void appliesAClassLevelActionToEveryMethod() {
		this.runner.withUserConfiguration(PollerConfiguration.class).run((context) -> {
			ClassLevelProcessor processor = context.getBean(ClassLevelProcessor.class);
			assertActivityRefreshedBy(context.getBean(PollingManager.class), "MAILABRUF_CLUSTER", processor::handle);
		});
	}

	@Test
	void doesNotCreateAHoldFromAnActionMethod() {
		this.runner.withUserConfiguration(PollerConfiguration.class).run((context) -> {
			context.getBean(Processor.class).process("one");
			assertThat(context.getBean(PollingManager.class).isHolding("OTHER_CLUSTER")).isFalse();
		});
	}

	@Test
	void failsAtStartupForAnUnknownClusterInAGate() {
		this.runner.withUserConfiguration(UnknownClusterConfiguration.class).run((context) -> {
			assertAnnotationFailure(context, "@PollingCycle on " + UnknownClusterPoller.class.getName() + ".poll()",
					"unknown cluster 'MAILABRUF'",
					"[MAILABRUF_CLUSTER, OTHER_CLUSTER]",
					"Fix: ");
			assertThat(((UnknownClusterPoller) UnknownClusterConfiguration.created).cycles).hasValue(0);
			FailureAnalysis analysis = new PollingAnnotationFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis.getAction()).contains("define polling.clusters.MAILABRUF.wait-time");
		});
	}

	@Test
	void failsAtStartupForAnUnknownClusterInAnAction() {
		this.runner.withUserConfiguration(UnknownActionConfiguration.class).run((context) -> {
			assertAnnotationFailure(context, "@PollingAction on " + UnknownActionProcessor.class.getName(),
					"unknown cluster 'NOPE'");
		});
	}

	@Test
	void failsAtStartupWhenAnnotationsAreUsedWithoutClusters() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(PollingAutoConfiguration.class))
			.withUserConfiguration(PollerConfiguration.class)
			.run((context) -> {
				assertAnnotationFailure(context, "no polling clusters are configured",
						"define polling.clusters.MAILABRUF_CLUSTER.wait-time");
			});
	}

	@Test
	void namesBuildTimeProcessingWhenClustersAreSetButTheManagerWasNotDefined() {
		// what an application processed ahead of time without polling.clusters meets when it is
		// given clusters at run time: the annotation processing exists, the manager does not
		new ApplicationContextRunner().withUserConfiguration(AnnotationProcessingOnly.class, PollerConfiguration.class)
			.withPropertyValues("polling.clusters.MAILABRUF_CLUSTER.wait-time=10s")
			.run((context) -> {
				assertAnnotationFailure(context, "polling.clusters is set now, but was not when the application's bean definitions were fixed",
						"packaged with the application");
			});
	}

	@Test
	void failsAtStartupForAGatedMethodReturningAPrimitive() {
		this.runner.withUserConfiguration(PrimitiveConfiguration.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(PollingAnnotationException.class)
				.hasMessageContaining("returns int")
				.hasMessageContaining("return void or an object type");
		});
	}

	@Test
	void leavesMethodsUnadvisedWhenPollingIsDisabled() {
		this.runner.withPropertyValues("polling.enabled=false").withUserConfiguration(PollerConfiguration.class).run((context) -> {
			Poller poller = context.getBean(Poller.class);
			assertThat(AopUtils.isAopProxy(poller)).isFalse();
			assertThat(poller.poll()).isEqualTo("polled");
		});
	}

	/**
	 * Asserts that a call on a holding instance refreshes the cluster's activity: the cluster is
	 * taken, its activity left to age, and after the call it is no older than the call.
	 */
	private static void assertActivityRefreshedBy(PollingManager manager, String cluster, Runnable call) {
		assertThat(manager.tryStartPolling(cluster)).isTrue();
		await().atMost(Duration.ofSeconds(2)).until(() -> manager.status(cluster).elapsed().toMillis() >= 20);
		long before = System.nanoTime();
		call.run();
		// recorded during the call: no older than the call (not a fixed bound a starved machine can exceed)
		assertThat(manager.status(cluster).elapsed()).isLessThanOrEqualTo(Duration.ofNanos(System.nanoTime() - before).plusMillis(1));
	}

	/**
	 * Asserts that the context failed to start with a {@link PollingAnnotationException} whose
	 * message contains every text.
	 */
	private static void assertAnnotationFailure(AssertableApplicationContext context, String... texts) {
		assertThat(context).hasFailed();
		AbstractThrowableAssert<?, ?> failure = assertThat(context.getStartupFailure()).isInstanceOf(PollingAnnotationException.class);
		for (String text : texts) {
			failure.hasMessageContaining(text);
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class AnnotationProcessingOnly {

		@Bean
		static PollingAnnotationBeanPostProcessor pollingAnnotationBeanPostProcessor() {
			return new PollingAnnotationBeanPostProcessor();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class PollerConfiguration {

		@Bean
		Poller poller() {
			return new Poller();
		}

		@Bean
		Processor processor() {
			return new Processor();
		}

		@Bean
		ClassLevelProcessor classLevelProcessor() {
			return new ClassLevelProcessor();
		}

	}

	static class Poller {

		final AtomicInteger cycles = new AtomicInteger();

		final AtomicInteger blockingCycles = new AtomicInteger();

		final CountDownLatch entered = new CountDownLatch(1);

		final CountDownLatch release = new CountDownLatch(1);

		int cycles() {
			return this.cycles.get();
		}

		int blockingCycles() {
			return this.blockingCycles.get();
		}

		CountDownLatch entered() {
			return this.entered;
		}

		CountDownLatch release() {
			return this.release;
		}

		@PollingCycle("MAILABRUF_CLUSTER")
		String poll() {
			this.cycles.incrementAndGet();
			return "polled";
		}

		@PollingCycle(cluster = "MAILABRUF_CLUSTER")
		void blockingPoll() {
			this.blockingCycles.incrementAndGet();
			this.entered.countDown();
			try {
				this.release.await(10, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

		@PollingCycle("MAILABRUF_CLUSTER")
		void failingPoll() {
			throw new IllegalStateException("mailbox down");
		}

	}

	static class Processor {

		final AtomicInteger processed = new AtomicInteger();

		int processed() {
			return this.processed.get();
		}

		@PollingAction("OTHER_CLUSTER")
		void process(String message) {
			this.processed.incrementAndGet();
		}

	}

	@PollingAction(cluster = "MAILABRUF_CLUSTER")
	static class ClassLevelProcessor {

		void handle() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UnknownClusterConfiguration {

		static Object created;

		@Bean
		UnknownClusterPoller unknownClusterPoller() {
			UnknownClusterPoller poller = new UnknownClusterPoller();
			created = poller;
			return poller;
		}

	}

	static class UnknownClusterPoller {

		final AtomicInteger cycles = new AtomicInteger();

		@PollingCycle("MAILABRUF")
		void poll() {
			this.cycles.incrementAndGet();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UnknownActionConfiguration {

		@Bean
		UnknownActionProcessor unknownActionProcessor() {
			return new UnknownActionProcessor();
		}

	}

	@PollingAction("NOPE")
	static class UnknownActionProcessor {

	}

	@Configuration(proxyBeanMethods = false)
	static class PrimitiveConfiguration {

		@Bean
		PrimitivePoller primitivePoller() {
			return new PrimitivePoller();
		}

	}

	static class PrimitivePoller {

		@PollingCycle("MAILABRUF_CLUSTER")
		int poll() {
			return 1;
		}

	}

}
