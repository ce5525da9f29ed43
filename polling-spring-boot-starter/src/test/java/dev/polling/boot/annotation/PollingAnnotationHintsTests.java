package dev.polling.boot.annotation;

import java.lang.reflect.Method;

import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.annotation.ReflectiveRuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Ahead-of-time processing (which runs {@link ReflectiveRuntimeHintsRegistrar} over the beans)
 * registers the methods the advisor calls reflectively: an annotated method for invocation, and for
 * a class-level {@code @PollingAction} every public method; an unannotated bean gets nothing.
 */
class PollingAnnotationHintsTests {

	private final RuntimeHints hints = new RuntimeHints();

	@Test
	void anAnnotatedMethodIsRegisteredForInvocationAndItsNeighbourIsNot() throws NoSuchMethodException {
		new ReflectiveRuntimeHintsRegistrar().registerRuntimeHints(this.hints, Poller.class);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Poller.class.getDeclaredMethod("poll"))).accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Poller.class.getDeclaredMethod("process", String.class)))
			.accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Poller.class.getDeclaredMethod("other")))
			.rejects(this.hints);
	}

	@Test
	void aClassLevelPollingActionRegistersEveryPublicMethodOfTheClass() {
		new ReflectiveRuntimeHintsRegistrar().registerRuntimeHints(this.hints, Processor.class);
		assertThat(RuntimeHintsPredicates.reflection().onType(Processor.class).withMemberCategory(MemberCategory.INVOKE_PUBLIC_METHODS))
			.accepts(this.hints);
		for (Method method : Processor.class.getDeclaredMethods()) {
			assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(method)).accepts(this.hints);
		}
	}

	@Test
	void aBeanWithoutPollingAnnotationsIsNoCandidate() {
		assertThat(new ReflectiveRuntimeHintsRegistrar().isCandidate(Plain.class)).isFalse();
		assertThat(new ReflectiveRuntimeHintsRegistrar().isCandidate(Poller.class)).isTrue();
		assertThat(new ReflectiveRuntimeHintsRegistrar().isCandidate(Processor.class)).isTrue();
	}

	static class Poller {

		@PollingCycle("MAILBOX")
		public void poll() {
		}

		@PollingAction("MAILBOX")
		public void process(String message) {
		}

		public void other() {
		}

	}

	@PollingAction("MAILBOX")
	public static class Processor {

		public void first() {
		}

		public String second(int number) {
			return Integer.toString(number);
		}

	}

	static class Plain {

		public void run() {
		}

	}

}
