package dev.polling.jdbc.inbox;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;

/**
 * Helpers that turn what a message carries into an {@link Inbox} key that fits the inbox's limits
 * ({@value Inbox#MAX_KEY_LENGTH} characters, no surrounding whitespace, no control characters).
 */
public final class InboxKeys {

	/** Prefix of keys that {@link #messageId} hashed because the Message-ID was too long. */
	public static final String HASHED_PREFIX = "sha256:";

	private InboxKeys() {
	}

	/**
	 * Normalises an SMTP {@code Message-ID} header value (RFC 5322 {@code msg-id}) to a key: unfolds
	 * the header, takes the text between the first {@code <} and the following {@code >} (or the
	 * whole value when it has no angle brackets) and removes all whitespace and control characters,
	 * which a {@code msg-id} cannot contain. Letter case is kept. A result longer than
	 * {@value Inbox#MAX_KEY_LENGTH} characters becomes {@code "sha256:"} followed by the SHA-256 of
	 * the normalised id, so every Message-ID yields a valid key.
	 * <p>
	 * Example: {@code " <1234.5678@mail.example.com> "} becomes {@code 1234.5678@mail.example.com}.
	 * @param header the header value, e.g. from {@code MimeMessage.getMessageID()}
	 * @return the key
	 * @throws IllegalArgumentException if the value has no id
	 */
	public static String messageId(String header) {
		Objects.requireNonNull(header, "messageId header must not be null: a mail without a Message-ID "
				+ "needs another key, e.g. InboxKeys.sha256(rawMessageBytes)");
		String id = header;
		int open = id.indexOf('<');
		if (open >= 0) {
			int close = id.indexOf('>', open + 1);
			if (close < 0) {
				throw new IllegalArgumentException("messageId header has '<' but no closing '>' (length "
						+ header.length() + "): pass the complete Message-ID header value");
			}
			id = id.substring(open + 1, close);
		}
		StringBuilder normalised = new StringBuilder(id.length());
		id.codePoints()
			.filter((c) -> !Character.isWhitespace(c) && !Character.isISOControl(c) && !Character.isSpaceChar(c))
			.forEach(normalised::appendCodePoint);
		if (normalised.isEmpty()) {
			throw new IllegalArgumentException("messageId header '" + abbreviate(header)
					+ "' contains no id: a mail without a usable Message-ID needs another key, "
					+ "e.g. InboxKeys.sha256(rawMessageBytes)");
		}
		if (normalised.length() > Inbox.MAX_KEY_LENGTH) {
			return HASHED_PREFIX + sha256(normalised.toString());
		}
		return normalised.toString();
	}

	/**
	 * The SHA-256 of content as 64 lower-case hex digits, a key for messages without an id of their
	 * own (two messages with the same bytes count as the same message).
	 * @param content the content
	 * @return the hex digest
	 */
	public static String sha256(byte[] content) {
		Objects.requireNonNull(content, "content must not be null");
		try {
			return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("Every Java platform provides SHA-256", ex);
		}
	}

	/**
	 * The SHA-256 of the UTF-8 bytes of text as 64 lower-case hex digits.
	 * @param content the text
	 * @return the hex digest
	 */
	public static String sha256(String content) {
		Objects.requireNonNull(content, "content must not be null");
		return sha256(content.getBytes(StandardCharsets.UTF_8));
	}

	static String abbreviate(String value) {
		return (value.length() <= 40) ? value : value.substring(0, 40) + "...";
	}

}
