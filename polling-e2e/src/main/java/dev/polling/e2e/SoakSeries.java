package dev.polling.e2e;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The soak's per-minute samples and its flatness verdict ({@link SoakDriver}): one row per minute,
 * each with a value per series (e.g. {@code instance-1 heap KiB}) and a note (which instance was
 * restarted). A series is flat when, over the minutes of the window, every value lies within
 * ±{@link #FLAT_PERCENT} % of the middle of its range: {@code (max - min) / (max + min) <= 5 %}
 * (a series that is 0 throughout is flat). A minute in the window without a value (the instance did
 * not answer) makes the series not flat: nothing is left out. Beside the verdict, the trend (the
 * least-squares slope) tells a series that grows from one that only scatters.
 */
final class SoakSeries {

	static final double FLAT_PERCENT = 5.0;

	private final List<Row> rows = new ArrayList<>();

	private final Set<String> names = new LinkedHashSet<>();

	/**
	 * One minute's sample.
	 * @param minute minutes since the traffic began
	 * @param note what happened since the previous sample (a restart), or ""
	 * @param values per series its value; a series missing here had no value this minute
	 */
	record Row(int minute, String note, Map<String, Double> values) {
	}

	/**
	 * One series over the window.
	 * @param name the series
	 * @param min smallest value
	 * @param max largest value
	 * @param missing minutes of the window without a value
	 * @param slopePercent the least-squares slope of the values over the minutes, in % of their mean per
	 * 10 minutes (0 when the mean is 0 or there are fewer than two values): a trend, apart from the spread
	 */
	record Summary(String name, double min, double max, int missing, double slopePercent) {

		/** Half the range relative to its middle, in %: all values lie within ± this of {@code (max + min) / 2}. */
		double spreadPercent() {
			return (this.max + this.min == 0) ? 0 : 100.0 * (this.max - this.min) / (this.max + this.min);
		}

		boolean flat() {
			return this.missing == 0 && spreadPercent() <= FLAT_PERCENT;
		}

		/** How far outside the goal: the spread beyond ±5 %, in percentage points (0 when flat). */
		double missedBy() {
			return Math.max(0, spreadPercent() - FLAT_PERCENT);
		}

	}

	void add(int minute, String note, Map<String, Double> values) {
		this.names.addAll(values.keySet());
		this.rows.add(new Row(minute, note, new LinkedHashMap<>(values)));
	}

	List<Row> rows() {
		return List.copyOf(this.rows);
	}

	/**
	 * The first minute of the window: minute 10 of a run of 20 minutes or more (the "from
	 * minute 10 to 60"), else a third of the run, so that a short trial run has a window too.
	 * @param minutes the run's length
	 * @return the window's first minute
	 */
	static int windowStart(int minutes) {
		return (minutes >= 20) ? 10 : (minutes + 2) / 3;
	}

	/**
	 * Every series over the minutes {@code from..to}, in the order they were first seen.
	 * @param from first minute, inclusive
	 * @param to last minute, inclusive
	 * @return one summary per series
	 */
	List<Summary> summaries(int from, int to) {
		List<Summary> summaries = new ArrayList<>();
		for (String name : this.names) {
			double min = Double.POSITIVE_INFINITY;
			double max = Double.NEGATIVE_INFINITY;
			int missing = 0;
			List<double[]> points = new ArrayList<>();
			for (Row row : this.rows) {
				if (row.minute < from || row.minute > to) {
					continue;
				}
				Double value = row.values.get(name);
				if (value == null) {
					missing++;
					continue;
				}
				min = Math.min(min, value);
				max = Math.max(max, value);
				points.add(new double[] { row.minute, value });
			}
			if (min > max) {
				min = 0;
				max = 0;
			}
			summaries.add(new Summary(name, min, max, missing, slopePercent(points)));
		}
		return summaries;
	}

	/** The least-squares slope of (minute, value) points in % of the mean value per 10 minutes. */
	static double slopePercent(List<double[]> points) {
		int n = points.size();
		if (n < 2) {
			return 0;
		}
		double meanX = points.stream().mapToDouble((p) -> p[0]).average().orElse(0);
		double meanY = points.stream().mapToDouble((p) -> p[1]).average().orElse(0);
		double covariance = 0;
		double variance = 0;
		for (double[] point : points) {
			covariance += (point[0] - meanX) * (point[1] - meanY);
			variance += (point[0] - meanX) * (point[0] - meanX);
		}
		return (meanY == 0 || variance == 0) ? 0 : 100.0 * 10 * covariance / variance / meanY;
	}

	/**
	 * The rows as a Markdown table: one line per minute, one column per series.
	 * @param shortNames per series its column header
	 * @return the lines
	 */
	List<String> table(Map<String, String> shortNames) {
		List<String> lines = new ArrayList<>();
		StringBuilder header = new StringBuilder("| min |");
		StringBuilder rule = new StringBuilder("|---:|");
		for (String name : this.names) {
			header.append(' ').append(shortNames.getOrDefault(name, name)).append(" |");
			rule.append("---:|");
		}
		header.append(" note |");
		rule.append("---|");
		lines.add(header.toString());
		lines.add(rule.toString());
		for (Row row : this.rows) {
			StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "| %d |", row.minute));
			for (String name : this.names) {
				Double value = row.values.get(name);
				line.append(' ').append((value == null) ? "-" : format(value)).append(" |");
			}
			line.append(' ').append(row.note).append(" |");
			lines.add(line.toString());
		}
		return lines;
	}

	/**
	 * The summaries as a Markdown table: per series min, max, spread, trend and verdict.
	 * @param summaries the summaries
	 * @return the lines
	 */
	static List<String> summaryTable(List<Summary> summaries) {
		List<String> lines = new ArrayList<>();
		lines.add("| series | min | max | spread | trend per 10 min | flat (±5 %) |");
		lines.add("|---|---:|---:|---:|---:|---|");
		for (Summary summary : summaries) {
			lines.add(String.format(Locale.ROOT, "| %s | %s | %s | ±%.1f %% | %+.1f %% | %s |", summary.name(), format(summary.min()),
					format(summary.max()), summary.spreadPercent(), summary.slopePercent(),
					summary.flat() ? "yes"
							: (summary.missing() > 0) ? "no: " + summary.missing() + " minutes without a value"
									: String.format(Locale.ROOT, "no, by %.1f points", summary.missedBy())));
		}
		return lines;
	}

	static String format(double value) {
		return (value == Math.rint(value)) ? Long.toString((long) value) : String.format(Locale.ROOT, "%.1f", value);
	}

}
