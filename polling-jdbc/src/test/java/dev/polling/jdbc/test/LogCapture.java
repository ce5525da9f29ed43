package dev.polling.jdbc.test;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Captures what slf4j-simple (the tests' logger) writes to {@code System.err}, while still passing
 * it through, so that a test can count log lines: {@code [thread] LEVEL logger.name - message}.
 * Closing it puts the original stream back.
 */
public final class LogCapture implements AutoCloseable {

	private final PrintStream original;

	private final ByteArrayOutputStream captured = new ByteArrayOutputStream();

	private LogCapture(PrintStream original) {
		this.original = original;
	}

	/**
	 * Starts capturing.
	 * @return the capture
	 */
	public static LogCapture start() {
		LogCapture capture = new LogCapture(System.err);
		OutputStream tee = new OutputStream() {

			@Override
			public void write(int b) {
				synchronized (capture.captured) {
					capture.captured.write(b);
				}
				capture.original.write(b);
			}

			@Override
			public void write(byte[] bytes, int offset, int length) {
				synchronized (capture.captured) {
					capture.captured.write(bytes, offset, length);
				}
				capture.original.write(bytes, offset, length);
			}

		};
		System.setErr(new PrintStream(tee, true, StandardCharsets.UTF_8));
		return capture;
	}

	/**
	 * The captured lines of a level whose logger name starts with a prefix and whose text contains a
	 * fragment (case-insensitive).
	 * @param level e.g. {@code WARN}
	 * @param loggerPrefix e.g. {@code dev.polling.jdbc}
	 * @param fragment text the line contains, {@code ""} for any
	 * @return the lines
	 */
	public List<String> lines(String level, String loggerPrefix, String fragment) {
		String text;
		synchronized (this.captured) {
			text = this.captured.toString(StandardCharsets.UTF_8);
		}
		String lowerFragment = fragment.toLowerCase(Locale.ROOT);
		return Arrays.stream(text.split("\\R"))
			.filter((line) -> line.contains("] " + level + " " + loggerPrefix))
			.filter((line) -> line.toLowerCase(Locale.ROOT).contains(lowerFragment))
			.toList();
	}

	@Override
	public void close() {
		System.setErr(this.original);
	}

}
