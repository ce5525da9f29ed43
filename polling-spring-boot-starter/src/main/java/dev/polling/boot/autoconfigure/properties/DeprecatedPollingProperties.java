package dev.polling.boot.autoconfigure.properties;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.apache.commons.logging.Log;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.boot.logging.DeferredLogFactory;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Reads the keys of the previous version under their new names, with one warning per key naming
 * the replacement: {@code polling.peer-timeout} is read as {@code polling.jmx.peer-timeout}, and so
 * on ({@link #RENAMED}). A key set under its new name wins over its old name. Where several old keys
 * became one ({@code polling.coordination.failover-period}, {@code polling.shutdown.timeout}), the
 * longest of the durations given is read. The old keys are listed as deprecated in the
 * configuration metadata, with their replacement, and will be removed in the next version.
 */
public class DeprecatedPollingProperties implements EnvironmentPostProcessor, Ordered {

	/** The name of the property source that holds the old keys' values under their new names. */
	public static final String PROPERTY_SOURCE_NAME = "pollingDeprecatedKeys";

	/**
	 * Old key (or old prefix: every key below it moves along) to new key. The keys below map keys
	 * (peer ids) keep their ids.
	 */
	static final Map<String, String> RENAMED = renamed();

	/** {@link #RENAMED} as property names, parsed once. */
	private static final Map<ConfigurationPropertyName, ConfigurationPropertyName> RENAMED_NAMES = RENAMED.entrySet()
		.stream()
		.collect(Collectors.toUnmodifiableMap((entry) -> ConfigurationPropertyName.of(entry.getKey()),
				(entry) -> ConfigurationPropertyName.of(entry.getValue())));

	/** The old keys that are prefixes: every key below them moves along (the others are single values). */
	private static final Set<ConfigurationPropertyName> MOVED_PREFIXES = Set.of(ConfigurationPropertyName.of("polling.peers"),
			ConfigurationPropertyName.of("polling.discovery"));

	private final Log logger;

	/**
	 * Creates the post-processor; Spring Boot calls this with its deferred logs.
	 * @param logFactory the factory of logs that are written once logging is initialised
	 */
	public DeprecatedPollingProperties(DeferredLogFactory logFactory) {
		this.logger = logFactory.getLog(DeprecatedPollingProperties.class);
	}

	private static Map<String, String> renamed() {
		Map<String, String> renamed = new LinkedHashMap<>();
		renamed.put("polling.peers", "polling.jmx.peers");
		renamed.put("polling.discovery", "polling.jmx.discovery");
		renamed.put("polling.peer-timeout", "polling.jmx.peer-timeout");
		renamed.put("polling.unreachable-peer-policy", "polling.jmx.unreachable-peer-policy");
		renamed.put("polling.balance-clusters", "polling.jmx.balance-clusters");
		renamed.put("polling.coordination", "polling.coordination.kind");
		renamed.put("polling.jdbc.coordination.failover-period", "polling.coordination.failover-period");
		renamed.put("polling.shedlock.failover-period", "polling.coordination.failover-period");
		renamed.put("polling.shedlock.lock-name-prefix", "polling.coordination.shedlock.lock-name-prefix");
		renamed.put("polling.kubernetes.lease-duration", "polling.coordination.failover-period");
		renamed.put("polling.kubernetes.namespace", "polling.coordination.kubernetes.namespace");
		renamed.put("polling.kubernetes.lease-name-prefix", "polling.coordination.kubernetes.lease-name-prefix");
		renamed.put("polling.kubernetes.renew-deadline", "polling.coordination.kubernetes.renew-deadline");
		renamed.put("polling.shutdown.cycle-wait", "polling.shutdown.timeout");
		for (String part : List.of("queue", "delivery")) {
			String prefix = "polling.jdbc." + part + ".";
			renamed.put(prefix + "shutdown-wait", "polling.shutdown.timeout");
			renamed.put(prefix + "lease-time", prefix + "lease.duration");
			renamed.put(prefix + "threads", prefix + "workers.threads");
			renamed.put(prefix + "batch-size", prefix + "workers.batch-size");
			renamed.put(prefix + "poll-interval", prefix + "workers.poll-interval");
		}
		renamed.put("polling.jdbc.jobs.shutdown-wait", "polling.shutdown.timeout");
		for (String part : List.of("inbox", "queue", "delivery", "jobs")) {
			String prefix = "polling.jdbc." + part + ".";
			renamed.put(prefix + "retention", prefix + "retention.period");
			renamed.put(prefix + "purge-interval", prefix + "retention.purge-interval");
		}
		return Map.copyOf(renamed);
	}

	@Override
	public int getOrder() {
		// after the config data (application.yml), before the report of unknown keys
		return Ordered.LOWEST_PRECEDENCE - 10;
	}

	@Override
	public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
		Map<String, Object> values = new LinkedHashMap<>();
		for (Renamed renamed : find(environment)) {
			this.logger.warn("Property '" + renamed.oldKey() + "'" + renamed.origin() + " is deprecated and will be removed in the "
					+ "next version: " + (renamed.applied() ? "read as '" + renamed.newKey() + "'" : "ignored, as '"
							+ renamed.newKey() + "' is set") + "; rename it to '" + renamed.newKey() + "'");
			if (renamed.applied()) {
				values.merge(renamed.newKey(), renamed.value(), DeprecatedPollingProperties::longest);
			}
		}
		if (!values.isEmpty()) {
			environment.getPropertySources().addLast(new MapPropertySource(PROPERTY_SOURCE_NAME, values));
		}
	}

	/**
	 * The old keys set in the environment, each with its new key and whether its value is applied
	 * (not when the new key is set as well). The highest-ranking source of a key counts.
	 * @param environment the environment
	 * @return the old keys found, in the order of the property sources
	 */
	static List<Renamed> find(ConfigurableEnvironment environment) {
		Map<String, Renamed> found = new LinkedHashMap<>();
		Iterable<ConfigurationPropertySource> sources = ConfigurationPropertySources.get(environment);
		for (ConfigurationPropertySource source : sources) {
			if (!(source instanceof IterableConfigurationPropertySource iterable)
					|| PROPERTY_SOURCE_NAME.equals(nameOf(source))) {
				continue;
			}
			iterable.stream().forEach((name) -> {
				ConfigurationPropertyName renamed = newName(name);
				if (renamed == null || found.containsKey(name.toString())) {
					return;
				}
				ConfigurationProperty property = source.getConfigurationProperty(name);
				if (property == null || property.getValue() == null) {
					return;
				}
				boolean newKeySet = isSet(sources, renamed);
				found.put(name.toString(), new Renamed(written(name), written(renamed), property.getValue(),
						(property.getOrigin() != null) ? " (" + property.getOrigin() + ")" : "", !newKeySet));
			});
		}
		return List.copyOf(found.values());
	}

	/** The new name of an old key, or null when the key was not renamed. */
	static @Nullable ConfigurationPropertyName newName(ConfigurationPropertyName name) {
		for (Map.Entry<ConfigurationPropertyName, ConfigurationPropertyName> entry : RENAMED_NAMES.entrySet()) {
			ConfigurationPropertyName old = entry.getKey();
			if (old.equals(name)) {
				return entry.getValue();
			}
			if (MOVED_PREFIXES.contains(old) && old.isAncestorOf(name)) {
				// a moved prefix: polling.peers.SERVER2.host -> polling.jmx.peers.SERVER2.host
				return entry.getValue().append(name.subName(old.getNumberOfElements()));
			}
		}
		return null;
	}

	/** The key as written, map keys in their own spelling ({@code polling.jmx.peers.SERVER2.host}). */
	private static String written(ConfigurationPropertyName name) {
		return PollingPropertyKeys.written(name, name.getNumberOfElements() - 1);
	}

	private static boolean isSet(Iterable<ConfigurationPropertySource> sources, ConfigurationPropertyName name) {
		for (ConfigurationPropertySource source : sources) {
			if (!PROPERTY_SOURCE_NAME.equals(nameOf(source)) && source.getConfigurationProperty(name) != null) {
				return true;
			}
		}
		return false;
	}

	private static @Nullable String nameOf(ConfigurationPropertySource source) {
		return (source.getUnderlyingSource() instanceof org.springframework.core.env.PropertySource<?> underlying)
				? underlying.getName() : null;
	}

	/** Of two durations given for one new key, the longer (a value that is no duration wins: the binder reports it). */
	private static Object longest(Object first, Object second) {
		Duration a = duration(first);
		Duration b = duration(second);
		if (a == null) {
			return first;
		}
		if (b == null) {
			return second;
		}
		return (b.compareTo(a) > 0) ? second : first;
	}

	private static @Nullable Duration duration(Object value) {
		try {
			return DurationStyle.detectAndParse(String.valueOf(value).trim(), ChronoUnit.SECONDS);
		}
		catch (RuntimeException ex) {
			return null;
		}
	}

	/**
	 * An old key found in the environment.
	 * @param oldKey the old key as bound
	 * @param newKey the key it is read as
	 * @param value its value
	 * @param origin where it was set, as " (origin)", or empty
	 * @param applied whether its value is read (false when the new key is set too)
	 */
	record Renamed(String oldKey, String newKey, Object value, String origin, boolean applied) {
	}

}
