package dev.polling.jdbc.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import dev.polling.jdbc.ConnectionProvider;
import dev.polling.jdbc.Dialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Bad input is rejected with one clear message before the database is touched (the connection
 * provider here fails the test if it is ever asked).
 */
class InboxValidationTest {

	private final Inbox inbox = Inbox.builder(new ConnectionProvider() {
		@Override
		public Connection getConnection() throws SQLException {
			throw new AssertionError("validation must happen before a connection is obtained");
		}

		@Override
		public void releaseConnection(Connection connection) {
		}
	}).dialect(Dialect.H2).build();

	@Test
	void rejectsANullKeyNamingTheArgumentAndTheSource() {
		assertThatNullPointerException().isThrownBy(() -> this.inbox.receive("mailbox-a", null))
			.withMessage("externalKey must not be null (source 'mailbox-a')");
	}

	@Test
	void rejectsANullSource() {
		assertThatNullPointerException().isThrownBy(() -> this.inbox.receive(null, "key"))
			.withMessage("source must not be null");
	}

	@Test
	void rejectsABlankKeyAndSaysHowToMakeOne() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.inbox.receive("mailbox-a", "  "))
			.withMessageStartingWith("externalKey must not be blank but was '  ' (source 'mailbox-a')")
			.withMessageContaining("InboxKeys.messageId");
	}

	@Test
	void rejectsAnOversizeKeyWithItsLengthButWithoutItsContent() {
		String huge = "secret-content-".repeat(1000);

		assertThatIllegalArgumentException().isThrownBy(() -> this.inbox.receive("mailbox-a", huge))
			.withMessage("externalKey is 15000 characters long (source 'mailbox-a'), the limit is 255: "
					+ "pass InboxKeys.sha256(key) for longer keys, or InboxKeys.messageId(header) for Message-IDs")
			.withMessageNotContaining("secret-content");
	}

	@Test
	void acceptsAKeyOfExactlyTheLimit() {
		Inbox.validate("s", "k".repeat(Inbox.MAX_KEY_LENGTH));
		Inbox.validate("s".repeat(Inbox.MAX_SOURCE_LENGTH), "k");
		assertThat(Inbox.MAX_KEY_LENGTH).isEqualTo(255);
	}

	@Test
	void rejectsAnOversizeSource() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.inbox.receive("s".repeat(Inbox.MAX_SOURCE_LENGTH + 1), "key"))
			.withMessageStartingWith("source is 101 characters long, the limit is 100");
	}

	@Test
	void rejectsSurroundingWhitespaceBecauseDatabasesCompareTrailingSpacesDifferently() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.inbox.receive("mailbox-a", "key "))
			.withMessageContaining("externalKey 'key ' (length 4) starts or ends with whitespace")
			.withMessageContaining("String.strip()");
	}

	@Test
	void rejectsControlCharactersNamingTheirPosition() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.inbox.receive("mailbox-a", "a\u0000b"))
			.withMessageContaining("control character U+0000 at index 1");
	}

	@Test
	void rejectsANonPositiveRetention() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.inbox.purge(Duration.ZERO))
			.withMessageContaining("retention must be positive but was PT0S");
	}

	@Test
	void rejectsAPurgeBatchSizeOutOfRange() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> Inbox.builder(ConnectionProvider.of(new org.h2.jdbcx.JdbcDataSource())).purgeBatchSize(0))
			.withMessageContaining("purgeBatchSize must be between 1 and 100000 but was 0");
	}

}
