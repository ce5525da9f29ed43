package dev.polling.e2e;

import java.io.IOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * A process the demo starts: the mail server or an instance. Output goes to a log file in the
 * work directory (appended, so a restarted instance keeps its first life's log).
 */
class DemoProcess {

	private final String name;

	private final List<String> command;

	private final Path log;

	private @Nullable Process process;

	DemoProcess(String name, List<String> command, Path log) {
		this.name = name;
		this.command = List.copyOf(command);
		this.log = log;
	}

	String name() {
		return this.name;
	}

	Path log() {
		return this.log;
	}

	synchronized void start() throws IOException {
		this.process = new ProcessBuilder(this.command).redirectErrorStream(true)
			.redirectOutput(Redirect.appendTo(this.log.toFile()))
			.start();
	}

	synchronized boolean isAlive() {
		return this.process != null && this.process.isAlive();
	}

	synchronized long pid() {
		return (this.process != null) ? this.process.pid() : -1;
	}

	/** SIGKILL: no shutdown hook, no release of its clusters; waits until it is gone. */
	synchronized void kill() throws InterruptedException {
		if (this.process != null) {
			this.process.destroyForcibly();
			this.process.waitFor(10, TimeUnit.SECONDS);
		}
	}

	/** SIGTERM (graceful shutdown), then SIGKILL if it is still there after the grace period. */
	synchronized void stop(long graceMillis) throws InterruptedException {
		if (this.process != null && this.process.isAlive()) {
			this.process.destroy();
			if (!this.process.waitFor(graceMillis, TimeUnit.MILLISECONDS)) {
				this.process.destroyForcibly();
				this.process.waitFor(10, TimeUnit.SECONDS);
			}
		}
	}

	/** Starts stopping (SIGTERM) without waiting. */
	synchronized void requestStop() {
		if (this.process != null && this.process.isAlive()) {
			this.process.destroy();
		}
	}

}
