package dev.polling.jdbc.internal;

import java.time.Duration;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * Argument checks that fail with one message naming the argument, the value or its size, and the
 * fix.
 */
public final class Arguments {

	private Arguments() {
	}

	/**
	 * Checks a name or key: not null, not blank, at most {@code maxLength} characters, no surrounding
	 * whitespace, no control characters.
	 * @param name the argument's name
	 * @param value the value
	 * @param maxLength the longest accepted length
	 * @param fix what to do instead
	 * @return the value
	 */
	public static String key(String name, @Nullable String value, int maxLength, String fix) {
		if (value == null) {
			throw new NullPointerException(name + " must not be null: " + fix);
		}
		if (value.isBlank()) {
			throw new IllegalArgumentException(name + " must not be blank but was '" + value + "': " + fix);
		}
		if (value.length() > maxLength) {
			throw new IllegalArgumentException(name + " is " + value.length() + " characters long, the limit is "
					+ maxLength + ": " + fix);
		}
		if (Character.isWhitespace(value.charAt(0)) || Character.isWhitespace(value.charAt(value.length() - 1))) {
			throw new IllegalArgumentException(name + " '" + abbreviate(value) + "' (length " + value.length()
					+ ") starts or ends with whitespace: strip it, e.g. with String.strip()");
		}
		for (int i = 0; i < value.length(); i++) {
			if (Character.isISOControl(value.charAt(i))) {
				throw new IllegalArgumentException(name + " (length " + value.length()
						+ ") contains the control character U+" + String.format("%04X", (int) value.charAt(i))
						+ " at index " + i + ": remove it, or use a hash of the value as " + name);
			}
		}
		return value;
	}

	/**
	 * Checks a payload: not null, at most {@code maxLength} characters, no NUL character (U+0000:
	 * PostgreSQL cannot store it in text and aborts the caller's transaction; refused on every
	 * database alike).
	 * @param name the argument's name
	 * @param value the value
	 * @param maxLength the longest accepted length
	 * @return the value
	 */
	public static String payload(String name, @Nullable String value, int maxLength) {
		if (value == null) {
			throw new NullPointerException(name + " must not be null: pass \"\" for an empty payload");
		}
		if (value.length() > maxLength) {
			throw new IllegalArgumentException(name + " is " + value.length() + " characters long, the limit is "
					+ maxLength + ": store large content elsewhere (a table, a file store) and pass its id");
		}
		int nul = value.indexOf('\u0000');
		if (nul >= 0) {
			throw new IllegalArgumentException(name + " (length " + value.length() + ") contains the character U+0000 "
					+ "(NUL) at index " + nul + ", which text columns cannot store: remove it, or encode binary "
					+ "content as text (e.g. Base64) before passing it");
		}
		return value;
	}

	/**
	 * Checks a number against its range.
	 * @param name the argument's name
	 * @param value the value
	 * @param min the smallest accepted value
	 * @param max the largest accepted value
	 * @param fix what to pass instead, e.g. {@code "e.g. 10"}
	 * @return the value
	 */
	public static int between(String name, int value, int min, int max, String fix) {
		if (value < min || value > max) {
			throw new IllegalArgumentException(name + " must be between " + min + " and " + max + " but was " + value
					+ ": " + fix);
		}
		return value;
	}

	/**
	 * Checks that a duration is given and positive.
	 * @param name the argument's name
	 * @param value the value
	 * @param fix what to pass instead, e.g. {@code "e.g. 1s"}
	 * @return the value
	 */
	public static Duration positive(String name, @Nullable Duration value, String fix) {
		Objects.requireNonNull(value, name + " must not be null");
		if (value.isNegative() || value.isZero()) {
			throw new IllegalArgumentException(name + " must be positive but was " + value + ": " + fix);
		}
		return value;
	}

	/**
	 * Checks the keyset paging arguments of an operator's listing: {@code afterId} 0 or more,
	 * {@code limit} 1 to {@code maxLimit}.
	 * @param afterId only rows with a greater id
	 * @param limit the most rows of the page
	 * @param maxLimit the largest page
	 */
	public static void page(long afterId, int limit, int maxLimit) {
		if (afterId < 0) {
			throw new IllegalArgumentException("afterId must be 0 (the first page) or the last id of the previous page "
					+ "but was " + afterId + ": pass 0 to start from the beginning");
		}
		if (limit < 1 || limit > maxLimit) {
			throw new IllegalArgumentException("limit must be between 1 and " + maxLimit + " but was " + limit
					+ ": list more in several pages (afterId = the last id of the previous page)");
		}
	}

	/**
	 * Describes a failure for the {@code last_error} column: exception class and message, without
	 * stack trace, cut to {@code maxLength} characters.
	 * @param failure the failure
	 * @param maxLength the column size
	 * @return the description
	 */
	public static String describe(Throwable failure, int maxLength) {
		String message = failure.getMessage();
		String text = failure.getClass().getName() + ((message != null) ? ": " + message : "");
		return cut(text, maxLength);
	}

	/**
	 * Cuts text to a length, marking the cut.
	 * @param text the text
	 * @param maxLength the longest result
	 * @return the text
	 */
	public static String cut(String text, int maxLength) {
		return (text.length() <= maxLength) ? text : text.substring(0, maxLength - 3) + "...";
	}

	private static String abbreviate(String value) {
		return (value.length() <= 40) ? value : value.substring(0, 40) + "...";
	}

}
