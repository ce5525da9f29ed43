package dev.polling.jdbc.delivery;

import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import org.junit.jupiter.api.Test;

/** Bad arguments of the delivery guard fail with one message naming the argument and the fix. */
class DeliveryArgumentValidationTest {

	@Test
	void rejectsANullIdempotencyKeyNamingTheArgument() {
		assertThatNullPointerException().isThrownBy(() -> DeliveryGuard.validate("smtp", null, "p"))
			.withMessageStartingWith("idempotencyKey must not be null");
	}

	@Test
	void rejectsAnOversizeIdempotencyKeyWithItsLengthAndTheFix() {
		assertThatIllegalArgumentException().isThrownBy(() -> DeliveryGuard.validate("smtp", "k".repeat(300), "p"))
			.withMessageContaining("idempotencyKey is 300 characters long, the limit is 255")
			.withMessageContaining("SHA-256");
	}

	@Test
	void rejectsABlankDestination() {
		assertThatIllegalArgumentException().isThrownBy(() -> DeliveryGuard.validate("", "k", "p"))
			.withMessageContaining("destination must not be blank");
	}

	@Test
	void rejectsANullPayload() {
		assertThatNullPointerException().isThrownBy(() -> DeliveryGuard.validate("smtp", "k", null))
			.withMessageContaining("payload must not be null");
	}

	@Test
	void rejectsADestinationWithoutSender() {
		assertThatNullPointerException().isThrownBy(() -> DeliveryDestination.of("smtp", null))
			.withMessageContaining("sender must not be null");
	}

}
