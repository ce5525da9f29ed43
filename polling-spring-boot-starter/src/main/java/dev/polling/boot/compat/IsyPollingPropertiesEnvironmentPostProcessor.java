package dev.polling.boot.compat;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.commons.logging.Log;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.boot.logging.DeferredLogFactory;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.PropertySource;

import dev.polling.boot.autoconfigure.InvalidPollingConfigurationException;

/**
 * Accepts isy-polling 4.x's properties ({@code isy.polling.*}) by mapping each to its
 * {@code polling.*} key, so that an instance can switch library without changing its
 * configuration:
 *
 * <table>
 * <caption>isy-polling keys and their replacements</caption>
 * <tr><th>isy-polling</th><th>polling</th></tr>
 * <tr><td>{@code isy.polling.jmx.domain}</td><td>{@code polling.jmx.domain}</td></tr>
 * <tr><td>{@code isy.polling.jmx.verbindungen.<ID>.host}</td><td>{@code polling.peers.<ID>.host}</td></tr>
 * <tr><td>{@code isy.polling.jmx.verbindungen.<ID>.port}</td><td>{@code polling.peers.<ID>.port}</td></tr>
 * <tr><td>{@code isy.polling.jmx.verbindungen.<ID>.benutzer}</td><td>{@code polling.peers.<ID>.username}</td></tr>
 * <tr><td>{@code isy.polling.jmx.verbindungen.<ID>.passwort}</td><td>{@code polling.peers.<ID>.password}</td></tr>
 * <tr><td>{@code isy.polling.cluster.<ID>.name}</td><td>{@code polling.clusters.<ID>.name}</td></tr>
 * <tr><td>{@code isy.polling.cluster.<ID>.wartezeit} (whole seconds)</td><td>{@code polling.clusters.<ID>.wait-time}</td></tr>
 * <tr><td>{@code isy.polling.cluster.<ID>.jmxverbindungen}</td><td>{@code polling.clusters.<ID>.peers}</td></tr>
 * </table>
 *
 * Each key used logs one deprecation warning naming its new key (never a password). The same
 * setting given in both forms with different values, an unknown {@code isy.polling} key and a
 * wait time that is not a whole number of seconds fail the startup with an
 * {@link InvalidPollingConfigurationException}. When any isy-polling key is present and
 * {@code polling.jmx.contract} is not set, the isy-polling JMX contract is used, so that the
 * instance coordinates with the cluster's remaining isy-polling instances.
 *
 * <p>Keys are read as written in properties, YAML, command-line arguments and system properties;
 * environment variables are not mapped (their cluster ids cannot be told apart from the path).
 */
public class IsyPollingPropertiesEnvironmentPostProcessor implements EnvironmentPostProcessor, Ordered {

	/** Name of the property source that holds the mapped keys (lowest precedence). */
	public static final String PROPERTY_SOURCE_NAME = "isyPollingLegacyProperties";

	private static final String PREFIX = "isy.polling.";

	private static final Pattern CONNECTION = Pattern.compile("isy\\.polling\\.jmx\\.verbindungen\\.([^.]+)\\.([^.\\[]+)(\\[\\d+\\])?");

	private static final Pattern CLUSTER = Pattern.compile("isy\\.polling\\.cluster\\.([^.]+)\\.([^.\\[]+)(\\[\\d+\\])?");

	private static final Map<String, String> CONNECTION_KEYS = Map.of("host", "host", "port", "port", "benutzer", "username",
			"passwort", "password");

	private static final Map<String, String> CLUSTER_KEYS = Map.of("name", "name", "wartezeit", "wait-time", "jmxverbindungen", "peers");

	private final Log logger;

	/**
	 * Creates the post-processor; Spring Boot calls this with its deferred logs.
	 * @param logFactory the factory of logs that are written once logging is initialised
	 */
	public IsyPollingPropertiesEnvironmentPostProcessor(DeferredLogFactory logFactory) {
		this.logger = logFactory.getLog(IsyPollingPropertiesEnvironmentPostProcessor.class);
	}

	@Override
	public int getOrder() {
		// after the config data (application.yml) has been loaded
		return Ordered.LOWEST_PRECEDENCE;
	}

	@Override
	public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
		Map<String, Mapping> mappings = new LinkedHashMap<>();
		for (String key : legacyKeys(environment)) {
			Mapping mapping = map(key, environment);
			Mapping existing = mappings.get(mapping.newKey());
			mappings.put(mapping.newKey(), (existing != null) ? existing.merge(mapping) : mapping);
		}
		if (mappings.isEmpty()) {
			return;
		}
		Binder binder = Binder.get(environment);
		Map<String, Object> mapped = new LinkedHashMap<>();
		for (Mapping mapping : mappings.values()) {
			checkConflict(mapping, binder);
			mapped.put(mapping.newKey(), mapping.value());
			for (String legacyKey : mapping.legacyKeys()) {
				this.logger.warn("Property '" + legacyKey + "' (isy-polling) is deprecated; use '" + mapping.newKey()
						+ "' instead");
			}
		}
		if (binder.bind("polling.jmx.contract", String.class).isBound()) {
			this.logger.info("isy-polling properties are mapped to polling.*; the JMX contract is the one set in polling.jmx.contract");
		}
		else {
			mapped.put("polling.jmx.contract", "isy-polling");
			this.logger.info("isy-polling properties are mapped to polling.*; the cluster MBeans use isy-polling's JMX contract so that "
					+ "isy-polling instances can be peers (set polling.jmx.contract=native once none is left)");
		}
		environment.getPropertySources().addLast(new MapPropertySource(PROPERTY_SOURCE_NAME, mapped));
	}

	/** The isy.polling keys set anywhere, in the order first seen, without duplicates. */
	private static Set<String> legacyKeys(ConfigurableEnvironment environment) {
		Set<String> keys = new LinkedHashSet<>();
		for (PropertySource<?> source : environment.getPropertySources()) {
			if (source instanceof EnumerablePropertySource<?> enumerable && !PROPERTY_SOURCE_NAME.equals(source.getName())
					&& !(source instanceof org.springframework.core.env.SystemEnvironmentPropertySource)) {
				for (String name : enumerable.getPropertyNames()) {
					if (name.startsWith(PREFIX)) {
						keys.add(name);
					}
				}
			}
		}
		return keys;
	}

	private static Mapping map(String key, ConfigurableEnvironment environment) {
		String value = Objects.toString(environment.getProperty(key), "");
		if (key.equals("isy.polling.jmx.domain")) {
			return new Mapping(List.of(key), "polling.jmx.domain", value.trim(), Kind.TEXT, false);
		}
		Matcher connection = CONNECTION.matcher(key);
		if (connection.matches() && CONNECTION_KEYS.containsKey(connection.group(2)) && connection.group(3) == null) {
			String id = connection.group(1);
			String attribute = connection.group(2);
			String newKey = "polling.peers." + id + "." + CONNECTION_KEYS.get(attribute);
			return switch (attribute) {
				case "port" -> new Mapping(List.of(key), newKey, String.valueOf(port(key, value)), Kind.NUMBER, false);
				case "passwort" -> new Mapping(List.of(key), newKey, value, Kind.TEXT, true);
				default -> new Mapping(List.of(key), newKey, value.trim(), Kind.TEXT, false);
			};
		}
		Matcher cluster = CLUSTER.matcher(key);
		if (cluster.matches() && CLUSTER_KEYS.containsKey(cluster.group(2))
				&& (cluster.group(3) == null || cluster.group(2).equals("jmxverbindungen"))) {
			String id = cluster.group(1);
			String attribute = cluster.group(2);
			String newKey = "polling.clusters." + id + "." + CLUSTER_KEYS.get(attribute);
			return switch (attribute) {
				case "wartezeit" -> new Mapping(List.of(key), newKey, waitTime(key, value) + "s", Kind.DURATION, false);
				case "jmxverbindungen" -> new Mapping(List.of(key), newKey, String.join(",", list(value)), Kind.LIST, false);
				default -> new Mapping(List.of(key), newKey, value.trim(), Kind.TEXT, false);
			};
		}
		throw new InvalidPollingConfigurationException(key, "'" + (key.endsWith("passwort") ? "******" : value) + "'",
				"this is not an isy-polling 4 property",
				"use isy.polling.jmx.domain, isy.polling.jmx.verbindungen.<ID>.host|port|benutzer|passwort or "
						+ "isy.polling.cluster.<ID>.name|wartezeit|jmxverbindungen (the map keys are the ids, there are no 'ids' lists), "
						+ "or better the polling.* keys (see docs/migration-from-isy-polling.md)");
	}

	private static int port(String key, String value) {
		try {
			int port = Integer.parseInt(value.trim());
			if (port >= 1 && port <= 65535) {
				return port;
			}
		}
		catch (NumberFormatException ex) {
			// reported below
		}
		throw new InvalidPollingConfigurationException(key, "'" + value + "'", "the port is not a number from 1 to 65535",
				"set " + key + " to the port of the peer's JMX server");
	}

	private static long waitTime(String key, String value) {
		long seconds;
		try {
			seconds = Long.parseLong(value.trim());
		}
		catch (NumberFormatException ex) {
			throw new InvalidPollingConfigurationException(key, "'" + value + "'",
					"isy-polling's wartezeit is a whole number of seconds",
					"write the seconds as a number (e.g. 600), or replace the key by polling.clusters."
							+ key.substring("isy.polling.cluster.".length(), key.length() - ".wartezeit".length())
							+ ".wait-time, which accepts units (e.g. 10m)");
		}
		if (seconds < 10) {
			throw new InvalidPollingConfigurationException(key, "'" + value + "'", "the wait time is shorter than the minimum of 10 seconds",
					"set " + key + " to at least 10 (recommended: twice the timer delay, in seconds)");
		}
		return seconds;
	}

	private static List<String> list(String value) {
		return Arrays.stream(value.split(",")).map(String::trim).filter((s) -> !s.isEmpty()).toList();
	}

	/** A property name as written, with upper-case map keys such as MAILABRUF_CLUSTER. */
	private static ConfigurationPropertyName name(String key) {
		return ConfigurationPropertyName.adapt(key, '.');
	}

	private static void checkConflict(Mapping mapping, Binder binder) {
		String current;
		if (mapping.kind() == Kind.LIST) {
			List<String> values = binder.bind(name(mapping.newKey()), Bindable.listOf(String.class)).orElse(null);
			if (values == null) {
				return;
			}
			current = String.join(",", values.stream().map(String::trim).toList());
		}
		else {
			current = binder.bind(name(mapping.newKey()), Bindable.of(String.class)).orElse(null);
			if (current == null) {
				return;
			}
		}
		if (!mapping.kind().same(current, mapping.value())) {
			String legacyKey = mapping.legacyKeys().get(0);
			throw new InvalidPollingConfigurationException(legacyKey, mapping.secret() ? "******" : "'" + mapping.legacyValue() + "'",
					"it conflicts with " + mapping.newKey() + " = " + (mapping.secret() ? "******" : "'" + current + "'")
							+ ", the same setting in the new form",
					"remove " + legacyKey + " (isy-polling's key is deprecated) and keep " + mapping.newKey()
							+ ", or give both the same value");
		}
	}

	/** How values of a key compare. */
	private enum Kind {

		TEXT, NUMBER, DURATION, LIST;

		boolean same(String current, String mapped) {
			return switch (this) {
				case TEXT -> current.trim().equals(mapped.trim());
				case NUMBER -> current.trim().equals(mapped.trim()) || parsesEqual(current, mapped);
				case DURATION -> durationsEqual(current, mapped);
				case LIST -> list(current).equals(list(mapped));
			};
		}

		private static boolean parsesEqual(String a, String b) {
			try {
				return Long.parseLong(a.trim()) == Long.parseLong(b.trim());
			}
			catch (NumberFormatException ex) {
				return false;
			}
		}

		private static boolean durationsEqual(String a, String b) {
			try {
				Duration da = DurationStyle.detectAndParse(a.trim(), ChronoUnit.SECONDS);
				Duration db = DurationStyle.detectAndParse(b.trim(), ChronoUnit.SECONDS);
				return da.equals(db);
			}
			catch (IllegalArgumentException ex) {
				// an unreadable new value is reported by the polling.* validation
				return true;
			}
		}

	}

	/** One new key and the isy-polling key(s) it comes from (a YAML list has one key per element). */
	private record Mapping(List<String> legacyKeys, String newKey, String value, Kind kind, boolean secret) {

		Mapping merge(Mapping other) {
			List<String> keys = new ArrayList<>(this.legacyKeys);
			keys.addAll(other.legacyKeys);
			String merged = (this.kind == Kind.LIST) ? this.value + "," + other.value : other.value;
			return new Mapping(keys, this.newKey, merged, this.kind, this.secret);
		}

		/** The value as the user wrote it (seconds without unit for the wait time). */
		String legacyValue() {
			return (this.kind == Kind.DURATION) ? this.value.substring(0, this.value.length() - 1) : this.value;
		}

		@Override
		public String toString() {
			return "Mapping[" + this.legacyKeys + " -> " + this.newKey + "]";
		}

	}

}
