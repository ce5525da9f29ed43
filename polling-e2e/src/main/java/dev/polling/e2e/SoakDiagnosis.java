package dev.polling.e2e;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import dev.polling.e2e.DemoDriver.Instance;

/**
 * What the soak's scattered series are made of (issue 33 §3, "where a goal is missed, say why"):
 * written beside the series, never part of them.
 *
 * <p>Only with {@code ./soak.sh ... diagnose}: every minute, per instance, after the sample's probes:
 * one further attach ({@code jcmd <pid> -f} with {@code GC.class_histogram} and {@code Thread.print};
 * the histogram forces a full collection of its own) whose whole output goes to
 * {@code probes/<instance>-m<minute>.txt}; from it the top {@value #TOP_CLASSES} classes by bytes
 * ({@code soak-classes.tsv}) and the Java threads per name group ({@code soak-threads.tsv}); and the
 * The run of 2026-11-28 (docs/reliability.md) had it on; its pauses (a second full collection, a
 * safepoint for the dump, under a load of 20 to 80) coincided with peer requests timing out.
 * Always, every minute: the instance's established TCP connections to each JMX port and to its own
 * ({@code soak-jmx-tcp.tsv}).
 *
 * <p>Every second, from {@code /proc} only (no attach, nothing the instances notice): per instance its
 * TCP connections to each JMX port, those accepted at its own, and its threads per group of their
 * Linux names ({@code soak-seconds.tsv}); and each client connection to a JMX port from the first
 * second it was seen to the last ({@code soak-jmx-tcp-lifetimes.tsv}).
 */
final class SoakDiagnosis implements AutoCloseable {

	static final int TOP_CLASSES = 15;

	private final Path work;

	private final String jcmd;

	private final Path commands;

	private final List<Instance> instances;

	private final long start;

	private final Writer classes;

	private final Writer threads;

	private final BufferedWriter jmxTcp;

	private final BufferedWriter seconds;

	private final BufferedWriter lifetimes;

	/** Client connections to a JMX port seen in the last second: key, {first second, last second}. */
	private final Map<String, long[]> open = new HashMap<>();

	private final Thread watcher;

	private volatile boolean stopped;

	SoakDiagnosis(Path work, String jcmd, List<Instance> instances, long startNanos, boolean attach) throws IOException {
		this.work = work;
		this.jcmd = jcmd;
		this.instances = instances;
		this.start = startNanos;
		// a former run's attach files would read as this run's
		Path probes = work.resolve("probes");
		if (Files.isDirectory(probes)) {
			try (var files = Files.list(probes)) {
				for (Path file : files.toList()) {
					Files.delete(file);
				}
			}
		}
		Files.deleteIfExists(work.resolve("soak-classes.tsv"));
		Files.deleteIfExists(work.resolve("soak-threads.tsv"));
		if (attach) {
			Files.createDirectories(probes);
		}
		this.commands = work.resolve("jcmd-diagnosis.txt");
		Files.writeString(this.commands, "GC.class_histogram\nThread.print\n", StandardCharsets.UTF_8);
		this.classes = attach ? writer("soak-classes.tsv", "minute\tinstance\trank\tclass\tinstances\tKiB") : Writer.nullWriter();
		this.threads = attach ? writer("soak-threads.tsv", "minute\tinstance\tgroup\tthreads") : Writer.nullWriter();
		this.jmxTcp = writer("soak-jmx-tcp.tsv", "minute\tinstance\tconnections\tcount");
		this.seconds = writer("soak-seconds.tsv", "second\tinstance\tmeasure\tvalue");
		this.lifetimes = writer("soak-jmx-tcp-lifetimes.tsv", "instance\tto\tlocal-port\tfirst-second\tlast-second\tseen-seconds\tended");
		this.watcher = new Thread(this::watch, "soak-diagnosis");
		this.watcher.setDaemon(true);
	}

	private BufferedWriter writer(String name, String header) throws IOException {
		BufferedWriter writer = Files.newBufferedWriter(this.work.resolve(name), StandardCharsets.UTF_8);
		writer.write(header);
		writer.newLine();
		return writer;
	}

	/** Starts the per-second watch. */
	void start() {
		this.watcher.start();
	}

	/**
	 * The minute's tables for one instance: its JMX TCP connections; with {@code attach} also the
	 * attach's class histogram and thread groups.
	 * @throws IOException when jcmd fails or a table cannot be written
	 */
	void minute(int minute, Instance instance, boolean attach) throws IOException, InterruptedException {
		long pid = instance.process().pid();
		for (Map.Entry<String, Integer> connections : jmxConnections(instance, pid).entrySet()) {
			row(this.jmxTcp, minute, instance.id(), connections.getKey(), connections.getValue());
		}
		this.jmxTcp.flush();
		if (attach) {
			attach(minute, instance, pid);
		}
	}

	private void attach(int minute, Instance instance, long pid) throws IOException, InterruptedException {
		String output = ProcessProbe.jcmd(this.jcmd, pid, this.commands);
		Files.writeString(this.work.resolve("probes/" + instance.id() + "-m" + minute + ".txt"), output, StandardCharsets.UTF_8);
		List<ProcessProbe.ClassBytes> histogram = ProcessProbe.parseClassHistogram(output);
		long total = histogram.stream().mapToLong(ProcessProbe.ClassBytes::bytes).sum();
		row(this.classes, minute, instance.id(), 0, "(all classes)", histogram.stream().mapToLong(ProcessProbe.ClassBytes::instances).sum(),
				total / 1024);
		for (int rank = 1; rank <= Math.min(TOP_CLASSES, histogram.size()); rank++) {
			ProcessProbe.ClassBytes entry = histogram.get(rank - 1);
			row(this.classes, minute, instance.id(), rank, entry.name(), entry.instances(), entry.bytes() / 1024);
		}
		Map<String, Integer> groups = ProcessProbe.javaThreadGroups(output);
		row(this.threads, minute, instance.id(), "(all Java threads)", groups.values().stream().mapToInt(Integer::intValue).sum());
		for (Map.Entry<String, Integer> group : groups.entrySet()) {
			row(this.threads, minute, instance.id(), group.getKey(), group.getValue());
		}
		this.classes.flush();
		this.threads.flush();
	}

	/**
	 * An instance's established TCP connections to each instance's JMX port ({@code to instance-2})
	 * and those accepted at its own ({@code accepted}).
	 */
	private Map<String, Integer> jmxConnections(Instance instance, long pid) throws IOException {
		Map<String, Integer> counts = new LinkedHashMap<>();
		Map<Integer, String> owners = new HashMap<>();
		for (Instance other : this.instances) {
			owners.put(other.jmxPort(), other.id());
			counts.put("to " + other.id(), 0);
		}
		counts.put("accepted", 0);
		for (ProcessProbe.TcpSocket socket : ProcessProbe.sockets(pid, ProcessProbe.ESTABLISHED)) {
			String to = owners.get(socket.remotePort());
			if (to != null) {
				counts.merge("to " + to, 1, Integer::sum);
			}
			if (socket.localPort() == instance.jmxPort()) {
				counts.merge("accepted", 1, Integer::sum);
			}
		}
		return counts;
	}

	private void watch() {
		long next = System.nanoTime();
		while (!this.stopped) {
			try {
				long second = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - this.start);
				Set<String> seen = new HashSet<>();
				Map<Integer, String> owners = new HashMap<>();
				this.instances.forEach((i) -> owners.put(i.jmxPort(), i.id()));
				for (Instance instance : this.instances) {
					long pid = instance.process().pid();
					if (pid < 0 || !instance.process().isAlive()) {
						continue;
					}
					Map<String, Integer> counts = new TreeMap<>();
					for (ProcessProbe.TcpSocket socket : ProcessProbe.sockets(pid, ProcessProbe.ESTABLISHED)) {
						String to = owners.get(socket.remotePort());
						if (to != null) {
							counts.merge("to " + to, 1, Integer::sum);
							String key = instance.id() + '\t' + to + '\t' + socket.localPort() + '\t' + socket.inode();
							seen.add(key);
							this.open.computeIfAbsent(key, (k) -> new long[] { second, second })[1] = second;
						}
						if (socket.localPort() == instance.jmxPort()) {
							counts.merge("accepted", 1, Integer::sum);
						}
					}
					for (Map.Entry<String, Integer> count : counts.entrySet()) {
						row(this.seconds, second, instance.id(), count.getKey(), count.getValue());
					}
					for (Map.Entry<String, Integer> group : ProcessProbe.nativeThreadGroups(pid).entrySet()) {
						row(this.seconds, second, instance.id(), "threads " + group.getKey(), group.getValue());
					}
				}
				for (var entry : List.copyOf(this.open.entrySet())) {
					if (!seen.contains(entry.getKey())) {
						lifetime(entry.getKey(), entry.getValue(), "closed");
						this.open.remove(entry.getKey());
					}
				}
				this.seconds.flush();
				next += TimeUnit.SECONDS.toNanos(1);
				long sleep = next - System.nanoTime();
				if (sleep > 0) {
					TimeUnit.NANOSECONDS.sleep(sleep);
				}
				else {
					next = System.nanoTime();
				}
			}
			catch (InterruptedException ex) {
				return;
			}
			catch (IOException | UncheckedIOException ex) {
				// a process gone between the listing and the reading; the next second reads again
			}
		}
	}

	private void lifetime(String key, long[] seen, String ended) throws IOException {
		String[] parts = key.split("\t");
		row(this.lifetimes, parts[0], parts[1], parts[2], seen[0], seen[1], seen[1] - seen[0] + 1, ended);
	}

	private static void row(Writer writer, Object... cells) throws IOException {
		StringBuilder line = new StringBuilder();
		for (Object cell : cells) {
			if (!line.isEmpty()) {
				line.append('\t');
			}
			line.append(cell);
		}
		writer.write(line.append('\n').toString());
	}

	/** Stops the watch; the client connections still open go to the lifetimes as {@code open}. */
	@Override
	public void close() throws IOException {
		this.stopped = true;
		this.watcher.interrupt();
		try {
			this.watcher.join(5000);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		for (var entry : this.open.entrySet()) {
			lifetime(entry.getKey(), entry.getValue(), "open");
		}
		this.open.clear();
		for (Writer writer : List.of(this.classes, this.threads, this.jmxTcp, this.seconds, this.lifetimes)) {
			writer.close();
		}
	}

}
