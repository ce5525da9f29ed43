package dev.polling.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What the soak measures of a process from outside (Linux): its open file descriptors
 * ({@code /proc/<pid>/fd}), its TCP connections ({@code /proc/<pid>/net/tcp} and {@code tcp6},
 * matched to the process by the socket inodes among its descriptors), its heap after a forced full
 * collection ({@code jcmd <pid> GC.run} then {@code GC.heap_info}, in one attach), values from a
 * Prometheus text page; and, to say what a series' scatter is made of: its class histogram
 * ({@code GC.class_histogram}), its Java threads grouped by name ({@code Thread.print}) and its
 * native threads' names ({@code /proc/<pid>/task/<tid>/comm}, cut to 15 characters by Linux).
 */
final class ProcessProbe {

	/** ESTABLISHED in {@code /proc/net/tcp}. */
	static final String ESTABLISHED = "01";

	/** LISTEN in {@code /proc/net/tcp}. */
	static final String LISTEN = "0A";

	private static final Pattern SOCKET_LINK = Pattern.compile("socket:\\[(\\d+)]");

	private static final Pattern GENERATION_USED = Pattern.compile("(?m)^\\s*\\S.*generation\\s+total\\s+\\d+K,\\s+used\\s+(\\d+)K");

	private static final Pattern METASPACE_USED = Pattern.compile("(?m)^\\s*Metaspace\\s+used\\s+(\\d+)K");

	/** A line of {@code GC.class_histogram}: {@code    1:   40961   3744528  [B (java.base@17.0.15)}. */
	private static final Pattern HISTOGRAM_LINE = Pattern.compile("(?m)^\\s*\\d+:\\s+(\\d+)\\s+(\\d+)\\s+(\\S+)");

	/**
	 * The header of a thread in {@code Thread.print}: the name in quotes, then {@code #<n>} for a Java
	 * thread (the JVM's own threads, {@code "VM Thread" os_prio=0 ...}, have none).
	 */
	private static final Pattern THREAD_HEADER = Pattern.compile("(?m)^\"(.*)\"\\s+(#\\d+\\s)?");

	private static final Pattern DIGITS = Pattern.compile("\\d+");

	private ProcessProbe() {
	}

	/**
	 * One line of {@code /proc/net/tcp}.
	 * @param localPort the local port
	 * @param remotePort the remote port
	 * @param state the state in hex ({@value #ESTABLISHED}, {@value #LISTEN}, ...)
	 * @param inode the socket's inode
	 */
	record TcpSocket(int localPort, int remotePort, String state, long inode) {
	}

	/**
	 * The heap after a full collection.
	 * @param heapKiB used in all generations
	 * @param metaspaceKiB metaspace used
	 */
	record Heap(long heapKiB, long metaspaceKiB) {
	}

	/**
	 * One class of a class histogram.
	 * @param name the class's name as the JVM prints it ({@code [B}, {@code java.lang.String})
	 * @param instances its live instances
	 * @param bytes their shallow size
	 */
	record ClassBytes(String name, long instances, long bytes) {
	}

	/** The number of open file descriptors, or -1 when the process is gone. */
	static int fileDescriptors(long pid) {
		try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
			return (int) fds.count();
		}
		catch (IOException | RuntimeException ex) {
			return -1;
		}
	}

	/**
	 * The process's TCP sockets (IPv4 and IPv6) in the given state: those of the network namespace's
	 * table whose inode is one of the process's descriptors.
	 * @param pid the process
	 * @param state {@value #ESTABLISHED}, {@value #LISTEN}, ...
	 */
	static List<TcpSocket> sockets(long pid, String state) throws IOException {
		Set<Long> inodes = socketInodes(pid);
		List<TcpSocket> sockets = new ArrayList<>();
		for (String file : List.of("tcp", "tcp6")) {
			Path path = Path.of("/proc", Long.toString(pid), "net", file);
			if (!Files.exists(path)) {
				continue;
			}
			for (TcpSocket socket : parseTcp(Files.readAllLines(path, StandardCharsets.US_ASCII))) {
				if (socket.state().equals(state) && inodes.contains(socket.inode())) {
					sockets.add(socket);
				}
			}
		}
		return sockets;
	}

	/** How many of the process's established TCP connections go to one of the ports. */
	static int connectionsTo(long pid, Set<Integer> remotePorts) throws IOException {
		return (int) sockets(pid, ESTABLISHED).stream().filter((s) -> remotePorts.contains(s.remotePort())).count();
	}

	private static Set<Long> socketInodes(long pid) throws IOException {
		Set<Long> inodes = new HashSet<>();
		try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
			for (Path fd : fds.toList()) {
				try {
					Matcher matcher = SOCKET_LINK.matcher(Files.readSymbolicLink(fd).toString());
					if (matcher.matches()) {
						inodes.add(Long.parseLong(matcher.group(1)));
					}
				}
				catch (IOException ex) {
					// closed meanwhile
				}
			}
		}
		return inodes;
	}

	/**
	 * The lines of {@code /proc/net/tcp} or {@code tcp6}, header skipped: {@code sl local rem st ... inode}
	 * with addresses as {@code HEXADDR:HEXPORT}.
	 */
	static List<TcpSocket> parseTcp(List<String> lines) {
		List<TcpSocket> sockets = new ArrayList<>();
		for (String line : lines) {
			String[] fields = line.trim().split("\\s+");
			if (fields.length < 10 || !fields[0].endsWith(":")) {
				continue;
			}
			sockets.add(new TcpSocket(port(fields[1]), port(fields[2]), fields[3].toUpperCase(java.util.Locale.ROOT),
					Long.parseLong(fields[9])));
		}
		return sockets;
	}

	private static int port(String address) {
		return Integer.parseInt(address.substring(address.lastIndexOf(':') + 1), 16);
	}

	/**
	 * Forces a full collection in the process and reads its heap ({@code jcmd <pid> -f commands} with
	 * {@code GC.run} and {@code GC.heap_info}: one attach; the first attach starts the JVM's attach
	 * listener thread, which stays).
	 * @param jcmd the jcmd executable
	 * @param pid the process
	 * @param commands a file with the two commands, one a line
	 * @return the heap after the collection
	 * @throws IOException when jcmd fails or its output has no heap figures
	 */
	static Heap heapAfterGc(String jcmd, long pid, Path commands) throws IOException, InterruptedException {
		return parseHeapInfo(jcmd(jcmd, pid, commands));
	}

	/**
	 * Runs the diagnostic commands of a file, one a line, in one attach ({@code jcmd <pid> -f commands}).
	 * @return jcmd's output (and its error output)
	 * @throws IOException when jcmd cannot start or does not end within 60 s
	 */
	static String jcmd(String jcmd, long pid, Path commands) throws IOException, InterruptedException {
		Process process = new ProcessBuilder(jcmd, Long.toString(pid), "-f", commands.toString()).redirectErrorStream(true).start();
		String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		if (!process.waitFor(60, TimeUnit.SECONDS)) {
			process.destroyForcibly();
			throw new IOException("jcmd " + pid + " did not end within 60 s");
		}
		return output;
	}

	/**
	 * The classes of {@code GC.class_histogram}'s output, in its order (most bytes first); the
	 * {@code Total} line is not a class.
	 */
	static List<ClassBytes> parseClassHistogram(String output) {
		List<ClassBytes> classes = new ArrayList<>();
		Matcher line = HISTOGRAM_LINE.matcher(output);
		while (line.find()) {
			classes.add(new ClassBytes(line.group(3), Long.parseLong(line.group(1)), Long.parseLong(line.group(2))));
		}
		return classes;
	}

	/**
	 * The Java threads of a {@code Thread.print} output, counted per {@linkplain #threadGroup group}
	 * of their names; the JVM's own threads (no {@code #<n>} after the name) are left out, as
	 * {@code ThreadMXBean}'s live thread count leaves them out.
	 */
	static Map<String, Integer> javaThreadGroups(String threadDump) {
		Map<String, Integer> groups = new TreeMap<>();
		Matcher header = THREAD_HEADER.matcher(threadDump);
		while (header.find()) {
			if (header.group(2) != null) {
				groups.merge(threadGroup(header.group(1)), 1, Integer::sum);
			}
		}
		return groups;
	}

	/**
	 * A thread's name with every run of digits as {@code #}: the threads of one pool or kind in one
	 * group ({@code RMI TCP Connection(17)-127.0.0.1} is {@code RMI TCP Connection(#)-#.#.#.#},
	 * {@code polling-peer-12} is {@code polling-peer-#}).
	 */
	static String threadGroup(String name) {
		return DIGITS.matcher(name).replaceAll("#");
	}

	/**
	 * The process's threads, Java and native, per {@linkplain #threadGroup group} of the names Linux
	 * keeps for them ({@code /proc/<pid>/task/<tid>/comm}, at most 15 characters: the JVM gives each
	 * Java thread its name cut so); empty when the process is gone. Reading it does not touch the JVM.
	 */
	static Map<String, Integer> nativeThreadGroups(long pid) {
		Map<String, Integer> groups = new TreeMap<>();
		try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
			for (Path task : tasks.toList()) {
				try {
					groups.merge(threadGroup(Files.readString(task.resolve("comm"), StandardCharsets.UTF_8).strip()), 1, Integer::sum);
				}
				catch (IOException ex) {
					// the thread ended meanwhile
				}
			}
		}
		catch (IOException | RuntimeException ex) {
			return Map.of();
		}
		return groups;
	}

	/**
	 * The used KiB of every generation and of the metaspace in {@code GC.heap_info}'s output (Serial
	 * or Parallel GC: lines {@code ... generation total NK, used NK}).
	 * @throws IOException when there is no generation line
	 */
	static Heap parseHeapInfo(String output) throws IOException {
		Matcher generation = GENERATION_USED.matcher(output);
		long heap = 0;
		boolean found = false;
		while (generation.find()) {
			heap += Long.parseLong(generation.group(1));
			found = true;
		}
		if (!found) {
			throw new IOException("no heap figures in jcmd's output: " + output.strip().lines().limit(3).toList());
		}
		Matcher metaspace = METASPACE_USED.matcher(output);
		return new Heap(heap, metaspace.find() ? Long.parseLong(metaspace.group(1)) : -1);
	}

	/**
	 * The sum of the samples of one metric in a Prometheus text page (every label set), or empty when
	 * the page has none.
	 * @param page the page
	 * @param name the metric's name as on the page, e.g. {@code jvm_threads_live_threads}
	 */
	static OptionalDouble prometheus(String page, String name) {
		double sum = 0;
		boolean found = false;
		for (String line : page.split("\n")) {
			if (line.startsWith(name) && line.length() > name.length()
					&& (line.charAt(name.length()) == '{' || line.charAt(name.length()) == ' ')) {
				String value = line.substring(line.lastIndexOf(' ') + 1).strip();
				try {
					sum += Double.parseDouble(value);
					found = true;
				}
				catch (NumberFormatException ex) {
					// a timestamp-less sample always ends with its value; anything else is not one
				}
			}
		}
		return found ? OptionalDouble.of(sum) : OptionalDouble.empty();
	}

}
