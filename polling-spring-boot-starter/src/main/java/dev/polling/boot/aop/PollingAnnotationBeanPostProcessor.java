package dev.polling.boot.aop;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.aop.Pointcut;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.ComposablePointcut;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.ConfigurationPropertyState;
import org.springframework.core.env.Environment;

import dev.polling.boot.annotation.PollingAction;
import dev.polling.boot.annotation.PollingCycle;
import dev.polling.boot.InvalidPollingConfigurationException;
import dev.polling.core.PollingManager;

/**
 * Applies {@link PollingCycle} and {@link PollingAction} through a Spring AOP advisor (no AspectJ
 * weaver), outside any other advice of the bean (so a refused cycle never opens a transaction).
 * Checks every annotated bean at startup: each cluster id must be defined and a gated method must
 * be able to return {@code null}; otherwise the application fails to start with a
 * {@link PollingAnnotationException}. An id that the configuration defines only in the form Spring
 * Boot's binder makes of it ({@code MAIL BOX} read as {@code MAILBOX}) fails with an
 * {@link InvalidPollingConfigurationException} that names the bracket notation.
 */
public class PollingAnnotationBeanPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor
		implements SmartInitializingSingleton {

	private static final ConfigurationPropertyName CLUSTERS = ConfigurationPropertyName.of("polling.clusters");

	private final List<PollingAnnotationUsage> usages = new ArrayList<>();

	private volatile boolean started;

	private @Nullable PollingMethodInterceptor interceptor;

	public PollingAnnotationBeanPostProcessor() {
		setBeforeExistingAdvisors(true);
		setProxyTargetClass(true);
	}

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		super.setBeanFactory(beanFactory);
		Pointcut pointcut = new ComposablePointcut(new AnnotationMatchingPointcut(PollingAction.class, true))
			.union(new AnnotationMatchingPointcut(null, PollingAction.class, true))
			.union(new AnnotationMatchingPointcut(null, PollingCycle.class, true));
		this.interceptor = new PollingMethodInterceptor(() -> beanFactory.getBeanProvider(PollingManager.class).getIfAvailable());
		this.advisor = new DefaultPointcutAdvisor(pointcut, this.interceptor);
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (this.advisor != null && isEligible(bean, beanName)) {
			List<PollingAnnotationUsage> found = PollingAnnotationUsage.find(beanName, AopProxyUtils.ultimateTargetClass(bean));
			for (PollingAnnotationUsage usage : found) {
				usage.checkShape();
			}
			if (this.started) {
				check(found, manager(), clustersConfigured());
			}
			else {
				synchronized (this.usages) {
					this.usages.addAll(found);
				}
			}
		}
		return super.postProcessAfterInitialization(bean, beanName);
	}

	@Override
	public void afterSingletonsInstantiated() {
		List<PollingAnnotationUsage> pending;
		synchronized (this.usages) {
			pending = List.copyOf(this.usages);
			this.usages.clear();
		}
		check(pending, manager(), clustersConfigured());
		this.started = true;
	}

	private @Nullable PollingManager manager() {
		return (this.beanFactory != null) ? this.beanFactory.getBeanProvider(PollingManager.class).getIfAvailable() : null;
	}

	/**
	 * Whether {@code polling.clusters} is set in the environment now. With no manager that means
	 * the bean definitions were fixed without it: by Spring AOT at build time.
	 */
	private boolean clustersConfigured() {
		Environment environment = (this.beanFactory != null)
				? this.beanFactory.getBeanProvider(Environment.class).getIfAvailable() : null;
		if (environment == null) {
			return false;
		}
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
			if (source.containsDescendantOf(CLUSTERS) == ConfigurationPropertyState.PRESENT) {
				return true;
			}
		}
		return false;
	}

	private static void check(List<PollingAnnotationUsage> usages, @Nullable PollingManager manager,
			boolean clustersConfigured) {
		for (PollingAnnotationUsage usage : usages) {
			if (manager == null && clustersConfigured) {
				throw new PollingAnnotationException(usage + " names cluster '" + usage.clusterId()
						+ "': polling.clusters is set now, but was not when the application's bean definitions were fixed "
						+ "(Spring AOT decides at build time which beans exist)",
						"put polling.clusters into the configuration packaged with the application (application.yml), "
								+ "so that it is also seen when the application is processed ahead of time");
			}
			if (manager == null) {
				throw new PollingAnnotationException(usage + " names cluster '" + usage.clusterId()
						+ "' but no polling clusters are configured", "define polling.clusters." + usage.clusterId()
								+ ".wait-time (or set polling.enabled=false to run the method without coordination)");
			}
			Set<String> known = manager.clusterIds();
			if (!known.contains(usage.clusterId())) {
				String bound = boundAs(usage.clusterId());
				if (!bound.equals(usage.clusterId()) && known.contains(bound)) {
					throw new InvalidPollingConfigurationException("polling.clusters." + usage.clusterId(), "read as cluster '" + bound + "'",
							usage + " names cluster '" + usage.clusterId() + "', but Spring Boot reads the key polling.clusters."
									+ usage.clusterId() + " as '" + bound
									+ "': outside brackets a map key keeps only letters, digits, '-' and '_'",
							"write the key in brackets so that it is kept as written: polling.clusters.[" + usage.clusterId()
									+ "].wait-time (in YAML: \"[" + usage.clusterId() + "]\": under polling.clusters), or name the cluster '"
									+ bound + "' in the annotation");
				}
				throw new PollingAnnotationException(usage + " names unknown cluster '" + usage.clusterId() + "'; known clusters: " + known,
						"correct the id in the annotation, or define polling.clusters." + bracketed(usage.clusterId()) + ".wait-time");
			}
		}
	}

	/**
	 * The map key Spring Boot's binder makes of an unbracketed key: it drops every character but
	 * ASCII letters, digits, '-' and '_' ({@code MAIL BOX} becomes {@code MAILBOX}).
	 */
	static String boundAs(String key) {
		StringBuilder bound = new StringBuilder();
		key.chars().filter(PollingAnnotationBeanPostProcessor::keptInKeys).forEach((ch) -> bound.append((char) ch));
		return bound.toString();
	}

	/** The key as it must be written in a property name: in brackets when the binder would change it. */
	static String bracketed(String key) {
		return boundAs(key).equals(key) ? key : "[" + key + "]";
	}

	private static boolean keptInKeys(int ch) {
		return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '-' || ch == '_';
	}

}
