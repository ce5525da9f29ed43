package dev.polling.jdbc.queue;

import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import dev.polling.jdbc.Backoff;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Bad arguments of the work queue fail with one message naming the argument, its size and the fix. */
class ArgumentValidationTest {

	@Test
	void rejectsANullQueueNameNamingTheArgument() {
		assertThatNullPointerException().isThrownBy(() -> QueueEnqueues.validate(null, "k", "p"))
			.withMessageStartingWith("queue must not be null");
	}

	@Test
	void rejectsABlankQueueName() {
		assertThatIllegalArgumentException().isThrownBy(() -> QueueEnqueues.validate("  ", "k", "p"))
			.withMessageContaining("queue must not be blank");
	}

	@Test
	void rejectsAnOversizeBusinessKeyWithItsLengthAndTheFix() {
		assertThatIllegalArgumentException().isThrownBy(() -> QueueEnqueues.validate("q", "k".repeat(256), "p"))
			.withMessageContaining("businessKey is 256 characters long, the limit is 255")
			.withMessageContaining("hash");
	}

	@Test
	void acceptsANullBusinessKeyForUnorderedMessages() {
		QueueEnqueues.validate("q", null, "p");
	}

	@Test
	void rejectsAControlCharacterInTheBusinessKey() {
		assertThatIllegalArgumentException().isThrownBy(() -> QueueEnqueues.validate("q", "a\u0000b", "p"))
			.withMessageContaining("control character U+0000 at index 1");
	}

	@Test
	void rejectsANullOrOversizePayload() {
		assertThatNullPointerException().isThrownBy(() -> QueueEnqueues.validate("q", null, null))
			.withMessageContaining("payload must not be null");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> QueueEnqueues.validate("q", null, "x".repeat(WorkQueue.MAX_PAYLOAD_LENGTH + 1)))
			.withMessageContaining("payload is 1000001 characters long, the limit is 1000000");
	}

	@Test
	void rejectsBackoffSettingsThatCannotWork() {
		assertThatIllegalArgumentException().isThrownBy(() -> new Backoff(Duration.ZERO, 2, Duration.ofSeconds(1)))
			.withMessageContaining("initial backoff must be positive");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new Backoff(Duration.ofSeconds(2), 2, Duration.ofSeconds(1)))
			.withMessageContaining("shorter than the initial backoff");
	}

	@Test
	void backoffGrowsByTheMultiplierUpToTheMaximum() {
		Backoff backoff = new Backoff(Duration.ofSeconds(1), 2, Duration.ofSeconds(5));
		org.assertj.core.api.Assertions.assertThat(backoff.delayAfter(1)).isEqualTo(Duration.ofSeconds(1));
		org.assertj.core.api.Assertions.assertThat(backoff.delayAfter(2)).isEqualTo(Duration.ofSeconds(2));
		org.assertj.core.api.Assertions.assertThat(backoff.delayAfter(3)).isEqualTo(Duration.ofSeconds(4));
		org.assertj.core.api.Assertions.assertThat(backoff.delayAfter(10)).isEqualTo(Duration.ofSeconds(5));
	}

}
