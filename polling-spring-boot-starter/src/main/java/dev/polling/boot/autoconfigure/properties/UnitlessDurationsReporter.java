package dev.polling.boot.autoconfigure.properties;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.boot.origin.Origin;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * Names, at start, every duration under {@code polling.*} that is written without a unit. The
 * starter reads a plain number as seconds (its documented unit rule, like isy-polling's
 * {@code wartezeit}), while Spring Boot's own properties read it as milliseconds, so
 * {@code wait-time: 20000} is five and a half hours. Each such value is logged with the unit it
 * was read in (INFO), and one that is far outside what makes sense for its key with both readings
 * and the fix (WARN). Values written with a unit are what the user meant and are not reported.
 * The raw values come from Spring Boot's {@link Binder} (relaxed names, bracketed map keys, the
 * property source that wins).
 */
final class UnitlessDurationsReporter {

	private static final Pattern PLAIN_NUMBER = Pattern.compile("[+-]?\\d+");

	/**
	 * The largest plausible value per key pattern; a plain number above it is warned about. Keys
	 * not listed get {@link #DEFAULT_PLAUSIBLE}.
	 */
	private static final Map<String, Bound> PLAUSIBLE = Map.of(
			"polling.clusters.<id>.wait-time", new Bound(Duration.ofHours(1), "a wait time"),
			"polling.clusters.<id>.max-cycle-time", new Bound(Duration.ofDays(1), "a maximum cycle time"),
			"polling.jmx.peer-timeout", new Bound(Duration.ofMinutes(1), "a peer timeout"),
			"polling.jmx.discovery.dns.interval", new Bound(Duration.ofMinutes(15), "a DNS interval"),
			"polling.shutdown.timeout", new Bound(Duration.ofHours(1), "a shutdown wait"),
			"polling.jdbc.queue.workers.poll-interval", new Bound(Duration.ofHours(1), "a poll interval"));

	private static final Bound DEFAULT_PLAUSIBLE = new Bound(Duration.ofDays(31), "this duration");

	private UnitlessDurationsReporter() {
	}

	/**
	 * The reports for the environment, each with its level.
	 * @param environment the environment
	 * @return one line per duration written without a unit
	 */
	static List<Report> report(ConfigurableEnvironment environment) {
		PollingPropertyKeys keys = PollingPropertyKeys.get();
		Set<ConfigurationPropertyName> names = new LinkedHashSet<>();
		Map<ConfigurationPropertyName, String> patterns = new HashMap<>();
		Iterable<ConfigurationPropertySource> sources = ConfigurationPropertySources.get(environment);
		for (ConfigurationPropertySource source : sources) {
			if (source instanceof IterableConfigurationPropertySource iterable) {
				iterable.stream()
					.filter((name) -> name.getNumberOfElements() > 1
							&& name.getElement(0, ConfigurationPropertyName.Form.UNIFORM).equals("polling"))
					.forEach((name) -> {
						String pattern = keys.patternOfType(name, Duration.class);
						if (pattern != null && names.add(name)) {
							patterns.put(name, pattern);
						}
					});
			}
		}
		Binder binder = new Binder(sources);
		List<Report> reports = new ArrayList<>();
		for (ConfigurationPropertyName name : names) {
			String raw = binder.bind(name, Bindable.of(String.class)).orElse(null);
			if (raw == null || !PLAIN_NUMBER.matcher(raw.trim()).matches()) {
				continue;
			}
			long number = Long.parseLong(raw.trim());
			Duration read = Duration.ofSeconds(number);
			String key = PollingPropertyKeys.written(name, name.getNumberOfElements() - 1);
			String origin = origin(sources, name);
			Bound bound = PLAUSIBLE.getOrDefault(patterns.get(name), DEFAULT_PLAUSIBLE);
			if (read.compareTo(bound.max()) > 0) {
				reports.add(new Report(true, "Duration " + key + " = " + number + origin + " has no unit and is read as "
						+ number + " s (" + readable(read) + "), more than the plausible " + readable(bound.max()) + " for "
						+ bound.what() + "; if " + number + " ms was meant write " + number + "ms, else write " + number + "s"));
			}
			else {
				reports.add(new Report(false, "Duration " + key + " = " + number + origin + " has no unit: read as " + number
						+ " s (" + PollingPropertyErrors.display(read) + "); write the unit (" + number + "s or " + number
						+ "ms) to make it plain"));
			}
		}
		return reports;
	}

	private static String origin(Iterable<ConfigurationPropertySource> sources, ConfigurationPropertyName name) {
		for (ConfigurationPropertySource source : sources) {
			ConfigurationProperty property = source.getConfigurationProperty(name);
			if (property != null) {
				Origin origin = property.getOrigin();
				return (origin != null) ? " (" + origin + ")" : "";
			}
		}
		return "";
	}

	/** A duration in words for a person: {@code 5 h 33 min 20 s}, {@code 1 h}, {@code 2 d 3 h}. */
	static String readable(Duration duration) {
		long seconds = Math.abs(duration.getSeconds());
		StringBuilder readable = new StringBuilder(duration.isNegative() ? "-" : "");
		long[] sizes = { 86_400, 3_600, 60, 1 };
		String[] units = { "d", "h", "min", "s" };
		for (int i = 0; i < sizes.length; i++) {
			long count = seconds / sizes[i];
			seconds %= sizes[i];
			if (count > 0) {
				readable.append((readable.length() > 1 || (readable.length() == 1 && !duration.isNegative())) ? " " : "")
					.append(count)
					.append(' ')
					.append(units[i]);
			}
		}
		return (readable.isEmpty() || readable.toString().equals("-")) ? "0 s" : readable.toString();
	}

	/**
	 * One line of the report.
	 * @param warning whether it is a warning (far outside the plausible range) rather than information
	 * @param message the line
	 */
	record Report(boolean warning, String message) {
	}

	private record Bound(Duration max, String what) {
	}

}
