package dev.polling.compat.mixed;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.awaitility.Awaitility.await;

/**
 * A child JVM whose standard output is kept (and copied to a log file) as the lines it printed,
 * each with the time it arrived; commands go to its standard input.
 */
final class ChildJvm {

	private final String name;

	private final Process process;

	private final PrintWriter commands;

	private final List<Line> lines = new ArrayList<>();

	private ChildJvm(String name, Process process, Path log) throws IOException {
		this.name = name;
		this.process = process;
		this.commands = new PrintWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8), true);
		Writer logWriter = Files.newBufferedWriter(log, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
		Thread reader = new Thread(() -> {
			try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
					logWriter) {
				String line;
				while ((line = in.readLine()) != null) {
					synchronized (this.lines) {
						this.lines.add(new Line(System.nanoTime(), line));
					}
					logWriter.write(line);
					logWriter.write('\n');
					logWriter.flush();
				}
			}
			catch (IOException ex) {
				// the process is gone
			}
		}, "output-" + name);
		reader.setDaemon(true);
		reader.start();
	}

	static ChildJvm start(String name, List<String> command, Path log) throws IOException {
		Files.createDirectories(log.getParent());
		Files.writeString(log, "$ " + String.join(" ", command) + "\n", StandardCharsets.UTF_8);
		Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
		ChildJvm child = new ChildJvm(name, process, log);
		await().atMost(Duration.ofSeconds(60)).until(() -> child.since(0).contains("READY") || !process.isAlive());
		if (!process.isAlive()) {
			throw new IllegalStateException(name + " exited at startup; see " + log);
		}
		return child;
	}

	void send(String command) {
		this.commands.println(command);
	}

	/** Kills the process at once (SIGKILL), as a crash would. */
	void kill() throws InterruptedException {
		this.process.destroyForcibly().waitFor();
	}

	boolean isAlive() {
		return this.process.isAlive();
	}

	/** Current position in the output, for {@link #decisionsSince(int)}. */
	int mark() {
		synchronized (this.lines) {
			return this.lines.size();
		}
	}

	/** Output lines from the mark on. */
	List<String> since(int mark) {
		synchronized (this.lines) {
			return this.lines.subList(Math.min(mark, this.lines.size()), this.lines.size()).stream().map(Line::text).toList();
		}
	}

	/** Decision lines ({@code granted ...} or {@code refused ...}) from the mark on. */
	List<String> decisionsSince(int mark) {
		return since(mark).stream().filter((l) -> l.startsWith("granted") || l.startsWith("refused")).toList();
	}

	/** Arrival time (System.nanoTime) of the first decision line from the mark on that starts with the prefix, or -1. */
	long firstSince(int mark, String prefix) {
		synchronized (this.lines) {
			for (int i = mark; i < this.lines.size(); i++) {
				if (this.lines.get(i).text().startsWith(prefix)) {
					return this.lines.get(i).nanos();
				}
			}
			return -1;
		}
	}

	/** Arrival time of the last line starting with the prefix before the last line equal to the marker, or -1. */
	long lastBefore(String marker, String prefix) {
		synchronized (this.lines) {
			int end = lastIndexOf(marker);
			for (int i = end - 1; i >= 0; i--) {
				if (this.lines.get(i).text().startsWith(prefix)) {
					return this.lines.get(i).nanos();
				}
			}
			return -1;
		}
	}

	/** Decision lines after the last line equal to the marker (all of them when there is none). */
	List<String> decisionsAfter(String marker) {
		int index;
		synchronized (this.lines) {
			index = lastIndexOf(marker);
		}
		return decisionsSince(index + 1);
	}

	private int lastIndexOf(String marker) {
		for (int i = this.lines.size() - 1; i >= 0; i--) {
			if (this.lines.get(i).text().equals(marker)) {
				return i;
			}
		}
		return -1;
	}

	void destroy() {
		this.commands.close();
		this.process.destroyForcibly();
	}

	@Override
	public String toString() {
		return this.name;
	}

	private record Line(long nanos, String text) {
	}

}
