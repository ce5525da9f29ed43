package dev.polling.core.sim;

/**
 * What happened in a run, line by line: the last lines kept for a failure report, and a digest of
 * all lines to compare a replay with. Each line carries the virtual time, the instance and what
 * happened. Nothing random outside the seed goes into a line (no incarnation, no real time).
 */
public final class Trace {

	/** How many lines a report shows. */
	public static final int KEPT = 200;

	private final String[] ring = new String[KEPT];

	private long lines;

	private long digest = 0xcbf29ce484222325L;

	private final StringBuilder line = new StringBuilder(160);

	void add(long nanos, String who, String what) {
		StringBuilder b = this.line;
		b.setLength(0);
		appendTime(b, nanos);
		b.append(' ').append(who).append(": ").append(what);
		String text = b.toString();
		this.ring[(int) (this.lines % KEPT)] = text;
		this.lines++;
		for (int i = 0; i < text.length(); i++) {
			this.digest = (this.digest ^ text.charAt(i)) * 0x100000001b3L;
		}
		this.digest = (this.digest ^ '\n') * 0x100000001b3L;
	}

	/** Virtual time as seconds with microseconds, counted from the start of the run. */
	static void appendTime(StringBuilder b, long nanos) {
		long micros = (nanos - Simulation.START) / 1_000L;
		b.append("t=").append(micros / 1_000_000L).append('.');
		String fraction = Long.toString(micros % 1_000_000L);
		b.append("000000", 0, 6 - fraction.length()).append(fraction).append('s');
	}

	/** How many lines the run wrote. */
	public long lines() {
		return this.lines;
	}

	/** A digest (FNV-1a) of every line, in order. */
	public long digest() {
		return this.digest;
	}

	/** The last {@link #KEPT} lines, oldest first. */
	public String tail() {
		StringBuilder b = new StringBuilder();
		long first = Math.max(0, this.lines - KEPT);
		for (long i = first; i < this.lines; i++) {
			b.append("  ").append(this.ring[(int) (i % KEPT)]).append('\n');
		}
		return b.toString();
	}

}
