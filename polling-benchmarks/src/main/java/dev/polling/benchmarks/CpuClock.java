package dev.polling.benchmarks;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * CPU time used so far by this JVM and by the PostgreSQL server processes of the machine (their
 * user and system time, plus that of the exited backends the postmaster reaped), read from
 * {@code /proc}, to tell how a run's CPU divides between the client and the database on a machine
 * whose cores both share. Linux only; elsewhere the server side reads 0.
 */
final class CpuClock {

	private static final double TICKS_PER_SECOND = 100.0; // USER_HZ on Linux

	private CpuClock() {
	}

	/** CPU nanoseconds of this JVM so far. */
	static long jvmNanos() {
		java.lang.management.OperatingSystemMXBean bean = ManagementFactory.getOperatingSystemMXBean();
		if (bean instanceof com.sun.management.OperatingSystemMXBean sun) {
			return sun.getProcessCpuTime();
		}
		return 0;
	}

	/** CPU nanoseconds of every process named postgres so far (children reaped included). */
	static long postgresNanos() {
		return postgresNanos(-1);
	}

	/**
	 * CPU nanoseconds so far of one PostgreSQL server: its postmaster and the processes it started
	 * (children reaped included), so that other servers on the machine do not count.
	 * @param postmaster the postmaster's process id, or -1 for every process named postgres
	 */
	static long postgresNanos(long postmaster) {
		long ticks = 0;
		try (Stream<Path> processes = Files.list(Path.of("/proc"))) {
			for (Path process : (Iterable<Path>) processes::iterator) {
				if (!process.getFileName().toString().chars().allMatch(Character::isDigit)) {
					continue;
				}
				try {
					String stat = Files.readString(process.resolve("stat"));
					int open = stat.indexOf('(');
					int close = stat.lastIndexOf(')');
					if (!stat.substring(open + 1, close).equals("postgres")) {
						continue;
					}
					String[] fields = stat.substring(close + 2).split(" ");
					// fields from state: ppid is the 2nd
					if (postmaster >= 0 && Long.parseLong(process.getFileName().toString()) != postmaster
							&& Long.parseLong(fields[1]) != postmaster) {
						continue;
					}
					// fields from state (3rd in stat): utime is 14th, stime 15th, cutime 16th, cstime 17th
					for (int field = 11; field <= 14; field++) {
						ticks += Long.parseLong(fields[field]);
					}
				}
				catch (IOException | RuntimeException ex) {
					// the process ended meanwhile
				}
			}
		}
		catch (IOException ex) {
			return 0;
		}
		return (long) (ticks * (1_000_000_000L / TICKS_PER_SECOND));
	}

}

/** The CPU this JVM and the PostgreSQL server used over a timed part of a harness. */
record CpuSpan(long jvmStart, long serverStart) {

	static CpuSpan start() {
		return new CpuSpan(CpuClock.jvmNanos(), CpuClock.postgresNanos());
	}

	/** Per message since the start: {@code "N µs client + M µs server"}. */
	String end(int messages) {
		return String.format(java.util.Locale.ROOT, "%.0f µs client + %.0f µs server",
				(CpuClock.jvmNanos() - this.jvmStart) / 1e3 / messages, (CpuClock.postgresNanos() - this.serverStart) / 1e3 / messages);
	}

}
