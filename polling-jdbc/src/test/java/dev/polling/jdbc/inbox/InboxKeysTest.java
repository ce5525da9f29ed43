package dev.polling.jdbc.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class InboxKeysTest {

	@Test
	void stripsAngleBracketsAndSurroundingWhitespaceFromAMessageId() {
		assertThat(InboxKeys.messageId(" <1234.5678@mail.example.com> ")).isEqualTo("1234.5678@mail.example.com");
		assertThat(InboxKeys.messageId("1234.5678@mail.example.com")).isEqualTo("1234.5678@mail.example.com");
	}

	@Test
	void unfoldsAFoldedHeaderAndIgnoresCommentsOutsideTheBrackets() {
		assertThat(InboxKeys.messageId("(sent by gateway)\r\n <abc.def@\r\n example.com> (trailing)"))
			.isEqualTo("abc.def@example.com");
	}

	@Test
	void keepsLetterCase() {
		assertThat(InboxKeys.messageId("<ABC@Example.COM>")).isEqualTo("ABC@Example.COM");
	}

	@Test
	void hashesAMessageIdLongerThanTheKeyLimitIntoAValidKey() {
		String longId = "<" + "x".repeat(300) + "@example.com>";

		String key = InboxKeys.messageId(longId);

		assertThat(key).startsWith(InboxKeys.HASHED_PREFIX).hasSizeLessThanOrEqualTo(Inbox.MAX_KEY_LENGTH);
		assertThat(key).isEqualTo(InboxKeys.messageId(" " + longId + " "));
		Inbox.validate("source", key);
	}

	@Test
	void rejectsAMessageIdWithoutIdOrClosingBracket() {
		assertThatIllegalArgumentException().isThrownBy(() -> InboxKeys.messageId(" <> "))
			.withMessageContaining("contains no id")
			.withMessageContaining("InboxKeys.sha256");
		assertThatIllegalArgumentException().isThrownBy(() -> InboxKeys.messageId("<abc@example.com"))
			.withMessageContaining("no closing '>'");
		assertThatNullPointerException().isThrownBy(() -> InboxKeys.messageId(null))
			.withMessageContaining("messageId header must not be null");
	}

	@Test
	void hashesContentToSixtyFourLowerCaseHexDigits() {
		assertThat(InboxKeys.sha256("abc"))
			.isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
		assertThat(InboxKeys.sha256("abc".getBytes(StandardCharsets.UTF_8))).isEqualTo(InboxKeys.sha256("abc"));
		assertThat(InboxKeys.sha256("äbc")).hasSize(64).isNotEqualTo(InboxKeys.sha256("abc"));
	}

}
