package dev.polling.boot.autoconfigure;

import java.lang.reflect.Field;
import java.lang.reflect.Member;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.InjectionPoint;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.UnsatisfiedDependencyException;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.ConfigurationPropertyState;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.MethodParameter;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.Environment;

import dev.polling.core.PollingManager;

/**
 * Explains a missing {@link PollingManager} bean by the property that removed it: with
 * {@code polling.enabled=false} the starter configures nothing, and without any
 * {@code polling.clusters} there is nothing to manage. Runs before Spring Boot's generic analysis
 * ("required a bean of type ... that could not be found"); other missing beans are left to it.
 */
@Order(Ordered.HIGHEST_PRECEDENCE)
public class MissingPollingBeanFailureAnalyzer extends AbstractFailureAnalyzer<NoSuchBeanDefinitionException> {

	private static final ConfigurationPropertyName CLUSTERS = ConfigurationPropertyName.of("polling.clusters");

	private final Environment environment;

	/**
	 * Creates the analyzer; Spring Boot passes the application's environment.
	 * @param environment the environment
	 */
	public MissingPollingBeanFailureAnalyzer(Environment environment) {
		this.environment = environment;
	}

	@Override
	protected @Nullable FailureAnalysis analyze(Throwable rootFailure, NoSuchBeanDefinitionException cause) {
		Class<?> type = (cause.getBeanType() != null) ? cause.getBeanType() : cause.getResolvableType() != null
				? cause.getResolvableType().resolve() : null;
		if (type == null || !PollingManager.class.isAssignableFrom(type)) {
			return null;
		}
		String needer = needer(findCause(rootFailure, UnsatisfiedDependencyException.class));
		if (!this.environment.getProperty("polling.enabled", Boolean.class, true)) {
			return analysis("polling.enabled", "false",
					"polling.enabled=false switches the polling starter off, so there is no " + type.getSimpleName() + " bean, but "
							+ needer + " requires one",
					"remove polling.enabled=false (or set it to true); or, where the application must also run without polling, "
							+ "inject ObjectProvider<" + type.getSimpleName() + "> and handle its absence",
					cause);
		}
		if (!clustersConfigured()) {
			return analysis("polling.clusters", "not set",
					"no polling cluster is defined, so there is no " + type.getSimpleName() + " bean, but " + needer + " requires one",
					"define at least one cluster, e.g. polling.clusters.MAILABRUF_CLUSTER.wait-time=10m", cause);
		}
		// clusters are set, yet the manager was never defined: the bean definitions were fixed
		// without them (Spring AOT at build time), or the auto-configuration is excluded
		return analysis("polling.clusters", "set",
				"polling.clusters is set now, but there is no " + type.getSimpleName() + " bean, which " + needer
						+ " requires: the application's bean definitions were fixed without polling.clusters (Spring AOT "
						+ "decides at build time which beans exist), or PollingAutoConfiguration is excluded",
				"put polling.clusters into the configuration packaged with the application (application.yml), so that it is "
						+ "also seen when the application is processed ahead of time; do not exclude PollingAutoConfiguration",
				cause);
	}

	private boolean clustersConfigured() {
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(this.environment)) {
			if (source.containsDescendantOf(CLUSTERS) == ConfigurationPropertyState.PRESENT) {
				return true;
			}
		}
		return false;
	}

	private static FailureAnalysis analysis(String property, String value, String reason, String fix, Throwable cause) {
		return new FailureAnalysis("Invalid polling configuration:\n\n    Property: " + property + "\n    Value: " + value
				+ "\n    Reason: " + reason, "Fix: " + fix, cause);
	}

	/** What needed the bean: "field 'polling' of com.example.Poller", or "the application" when unknown. */
	private static String needer(@Nullable UnsatisfiedDependencyException dependency) {
		InjectionPoint injectionPoint = (dependency != null) ? dependency.getInjectionPoint() : null;
		if (injectionPoint == null) {
			return (dependency != null && dependency.getBeanName() != null) ? "bean '" + dependency.getBeanName() + "'" : "the application";
		}
		Field field = injectionPoint.getField();
		if (field != null) {
			return "field '" + field.getName() + "' of " + field.getDeclaringClass().getName();
		}
		MethodParameter parameter = injectionPoint.getMethodParameter();
		if (parameter != null) {
			Member member = parameter.getMember();
			String where = (parameter.getConstructor() != null) ? "the constructor of " + member.getDeclaringClass().getName()
					: "method " + member.getDeclaringClass().getName() + "." + member.getName() + "()";
			return "parameter " + parameter.getParameterIndex() + " of " + where;
		}
		return "bean '" + dependency.getBeanName() + "'";
	}

}
