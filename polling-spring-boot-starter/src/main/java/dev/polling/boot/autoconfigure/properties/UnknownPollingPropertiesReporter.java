package dev.polling.boot.autoconfigure.properties;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import dev.polling.boot.InvalidPollingConfigurationException;
import org.apache.commons.logging.Log;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.boot.logging.DeferredLogFactory;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.boot.origin.Origin;

/**
 * Reports, with one warning each at startup, the keys under {@code polling.*} that the starter
 * does not read (a typo such as {@code polling.peer-timout} or {@code polling.clusterz.X.wait-time}),
 * naming the nearest known key; and cluster or peer ids that Spring Boot's binder changes because
 * they are not written in brackets ({@code polling.clusters.MAIL BOX} is read as {@code MAILBOX}).
 * Reads properties, YAML, command-line arguments and system properties; environment variables are
 * left out (their names cannot be told apart from the keys).
 */
public class UnknownPollingPropertiesReporter implements EnvironmentPostProcessor, Ordered {

	private static final String[] MAPS = { "polling.clusters.", "polling.jmx.peers.", "polling.peers." };

	private static final ConfigurationPropertyName CLUSTERS = ConfigurationPropertyName.of("polling.clusters");

	private final Log logger;

	/**
	 * Creates the reporter; Spring Boot calls this with its deferred logs.
	 * @param logFactory the factory of logs that are written once logging is initialised
	 */
	public UnknownPollingPropertiesReporter(DeferredLogFactory logFactory) {
		this.logger = logFactory.getLog(UnknownPollingPropertiesReporter.class);
	}

	@Override
	public int getOrder() {
		// after the config data (application.yml) has been loaded
		return Ordered.LOWEST_PRECEDENCE;
	}

	@Override
	public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
		report(environment).forEach(this.logger::warn);
		if (environment.getProperty("polling.enabled", Boolean.class, true)) {
			checkClustersAreRead(environment);
			for (UnitlessDurationsReporter.Report report : UnitlessDurationsReporter.report(environment)) {
				if (report.warning()) {
					this.logger.warn(report.message());
				}
				else {
					this.logger.info(report.message());
				}
			}
		}
	}

	/**
	 * Fails when a cluster is set only by keys the starter does not read ({@code wait-tme}): the
	 * binder leaves such a cluster out, and the application would start without it.
	 * @param environment the environment
	 * @throws InvalidPollingConfigurationException naming the cluster's missing wait time
	 */
	static void checkClustersAreRead(ConfigurableEnvironment environment) {
		PollingPropertyKeys keys = PollingPropertyKeys.get();
		Map<String, Set<String>> unread = new LinkedHashMap<>();
		Map<String, String> suggestions = new LinkedHashMap<>();
		Set<String> read = new HashSet<>();
		Map<String, InvalidPollingConfigurationException> dotted = new LinkedHashMap<>();
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
			if (!(source instanceof IterableConfigurationPropertySource iterable)
					|| (source.getUnderlyingSource() instanceof PropertySource<?> underlying && isProcessWide(underlying))) {
				continue;
			}
			iterable.stream().filter((name) -> name.getNumberOfElements() > 3 && CLUSTERS.isAncestorOf(name)).forEach((name) -> {
				String id = name.getElement(2, ConfigurationPropertyName.Form.ORIGINAL);
				PollingPropertyKeys.Unknown unknown = keys.check(name);
				if (unknown != null && unknown.dottedId() != null && unknown.suggestion() != null) {
					String written = PollingPropertyKeys.written(name, name.getNumberOfElements() - 1);
					dotted.putIfAbsent(id, new InvalidPollingConfigurationException(written,
							value(source.getConfigurationProperty(name)),
							unknown.problem() + ", so " + unknown.dottedKind() + " '" + unknown.dottedId() + "' is not defined",
							"write the " + unknown.dottedKind() + " id in brackets: " + unknown.suggestion() + " (in YAML: \"["
									+ unknown.dottedId() + "]\":)"));
				}
				if (unknown != null) {
					unread.computeIfAbsent(id, (key) -> new TreeSet<>())
						.add(PollingPropertyKeys.written(name, name.getNumberOfElements() - 1));
					if (unknown.suggestion() != null) {
						suggestions.putIfAbsent(id, unknown.suggestion());
					}
				}
				else {
					read.add(id);
				}
			});
		}
		unread.keySet().removeAll(read);
		for (Map.Entry<String, Set<String>> cluster : unread.entrySet()) {
			if (dotted.containsKey(cluster.getKey())) {
				throw dotted.get(cluster.getKey());
			}
			String key = "polling.clusters." + PollingPropertyErrors.mapKey(cluster.getKey()) + ".wait-time";
			throw new InvalidPollingConfigurationException(key, "not set", "every cluster needs a wait time; cluster '"
					+ cluster.getKey() + "' is set only by " + String.join(", ", cluster.getValue())
					+ ", which the starter does not read" + ((suggestions.get(cluster.getKey()) != null)
							? " (did you mean '" + suggestions.get(cluster.getKey()) + "'?)" : ""), "set " + key + " to at least 10s (recommended: twice the timer delay)");
		}
	}

	/** The warnings for the environment, one per key. */
	static List<String> report(ConfigurableEnvironment environment) {
		Map<String, String> warnings = new LinkedHashMap<>();
		for (PropertySource<?> source : environment.getPropertySources()) {
			if (source instanceof EnumerablePropertySource<?> enumerable && !isProcessWide(source)) {
				for (String key : enumerable.getPropertyNames()) {
					String changed = changedMapKey(key);
					if (changed != null) {
						warnings.putIfAbsent(key, changed);
					}
				}
			}
		}
		PollingPropertyKeys keys = PollingPropertyKeys.get();
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
			if (!(source instanceof IterableConfigurationPropertySource iterable)
					|| (source.getUnderlyingSource() instanceof PropertySource<?> underlying && isProcessWide(underlying))) {
				continue;
			}
			iterable.stream().filter(UnknownPollingPropertiesReporter::isPolling).forEach((name) -> {
				if (DeprecatedPollingProperties.newName(name) != null) {
					return; // a key of the previous version: reported as deprecated, with its new name
				}
				PollingPropertyKeys.Unknown unknown = keys.check(name);
				if (unknown != null) {
					String key = PollingPropertyKeys.written(name, name.getNumberOfElements() - 1);
					warnings.putIfAbsent(key, describe(key, unknown, keys, origin(source.getConfigurationProperty(name))));
				}
			});
		}
		return List.copyOf(warnings.values());
	}

	private static boolean isPolling(ConfigurationPropertyName name) {
		return name.getNumberOfElements() > 1 && name.getElement(0, ConfigurationPropertyName.Form.UNIFORM).equals("polling");
	}

	private static String describe(String key, PollingPropertyKeys.Unknown unknown, PollingPropertyKeys keys, String origin) {
		String what = (unknown.problem() == null) ? "it is not a polling property"
				: (unknown.dottedId() != null) ? unknown.problem() + " (in YAML write \"[" + unknown.dottedId() + "]\":)"
						: unknown.problem();
		String hint = (unknown.suggestion() != null) ? "did you mean '" + unknown.suggestion() + "'?"
				: "known keys there: " + String.join(", ", keys.siblings(unknown.name(), unknown.index()));
		return "Property '" + key + "'" + origin + " is ignored: " + what + "; " + hint;
	}

	private static String value(@Nullable ConfigurationProperty property) {
		return (property != null) ? String.valueOf(property.getValue()) : "not set";
	}

	private static String origin(@Nullable ConfigurationProperty property) {
		Origin origin = (property != null) ? property.getOrigin() : null;
		return (origin != null) ? " (" + origin + ")" : "";
	}

	/** A warning when the binder reads a cluster or peer id other than as written, else null. */
	private static @Nullable String changedMapKey(String key) {
		for (String map : MAPS) {
			if (key.startsWith(map) && !key.startsWith(map + "[")) {
				int end = key.indexOf('.', map.length());
				String id = key.substring(map.length(), (end >= 0) ? end : key.length());
				String bound = ConfigurationPropertyName.adapt(id, '.').getElement(0, ConfigurationPropertyName.Form.ORIGINAL);
				if (!id.isEmpty() && !id.equals(bound)) {
					String rest = (end >= 0) ? key.substring(end) : "";
					String kind = map.equals(MAPS[0]) ? "cluster" : "peer";
					return "Property '" + key + "': Spring Boot reads the " + kind + " id as '" + bound
							+ "' (outside brackets a key keeps only letters, digits, '-' and '_'); to keep '" + id + "', write '" + map
							+ "[" + id + "]" + rest + "' (in YAML: \"[" + id + "]\":)";
				}
			}
		}
		return null;
	}

	/**
	 * Environment variables and JVM system properties are shared with everything in the process (build
	 * tools set their own {@code -Dpolling.*} switches there), so only the application's own property
	 * files and arguments are checked.
	 */
	private static boolean isProcessWide(PropertySource<?> source) {
		return source instanceof SystemEnvironmentPropertySource
				|| StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME.equals(source.getName());
	}

}
