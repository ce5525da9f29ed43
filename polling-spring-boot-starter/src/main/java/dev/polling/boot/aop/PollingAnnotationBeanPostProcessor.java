package dev.polling.boot.aop;

import java.lang.reflect.Method;
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
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;
import org.springframework.util.ReflectionUtils;

import dev.polling.core.PollingManager;

/**
 * Applies {@link PollingCycle} and {@link PollingAction} through a Spring AOP advisor (no AspectJ
 * weaver), outside any other advice of the bean (so a refused cycle never opens a transaction).
 * Checks every annotated bean at startup: each cluster id must be defined and a gated method must
 * be able to return {@code null}; otherwise the application fails to start with a
 * {@link PollingAnnotationException}.
 */
public class PollingAnnotationBeanPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor
		implements SmartInitializingSingleton {

	private final List<Usage> usages = new ArrayList<>();

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
			List<Usage> found = usages(beanName, AopProxyUtils.ultimateTargetClass(bean));
			for (Usage usage : found) {
				usage.checkShape();
			}
			if (this.started) {
				check(found, manager());
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
		List<Usage> pending;
		synchronized (this.usages) {
			pending = List.copyOf(this.usages);
			this.usages.clear();
		}
		check(pending, manager());
		this.started = true;
	}

	private @Nullable PollingManager manager() {
		return (this.beanFactory != null) ? this.beanFactory.getBeanProvider(PollingManager.class).getIfAvailable() : null;
	}

	private static void check(List<Usage> usages, @Nullable PollingManager manager) {
		for (Usage usage : usages) {
			if (manager == null) {
				throw new PollingAnnotationException(usage + " names cluster '" + usage.clusterId
						+ "' but no polling clusters are configured", "define polling.clusters." + usage.clusterId
								+ ".wait-time (or set polling.enabled=false to run the method without coordination)");
			}
			Set<String> known = manager.clusterIds();
			if (!known.contains(usage.clusterId)) {
				throw new PollingAnnotationException(usage + " names unknown cluster '" + usage.clusterId + "'; known clusters: " + known,
						"correct the id in the annotation, or define polling.clusters." + usage.clusterId + ".wait-time");
			}
		}
	}

	private static List<Usage> usages(String beanName, Class<?> type) {
		List<Usage> found = new ArrayList<>();
		MergedAnnotation<PollingAction> classAction = MergedAnnotations.from(type, SearchStrategy.TYPE_HIERARCHY).get(PollingAction.class);
		if (classAction.isPresent()) {
			found.add(new Usage(beanName, "@PollingAction on " + type.getName(), classAction.getString("value"), null));
		}
		ReflectionUtils.doWithMethods(type, (method) -> {
			MergedAnnotations annotations = MergedAnnotations.from(method, SearchStrategy.TYPE_HIERARCHY);
			MergedAnnotation<PollingCycle> cycle = annotations.get(PollingCycle.class);
			if (cycle.isPresent()) {
				found.add(new Usage(beanName, "@PollingCycle on " + describe(type, method), cycle.getString("value"), method));
			}
			MergedAnnotation<PollingAction> action = annotations.get(PollingAction.class);
			if (action.isPresent()) {
				found.add(new Usage(beanName, "@PollingAction on " + describe(type, method), action.getString("value"), null));
			}
		}, ReflectionUtils.USER_DECLARED_METHODS);
		return found;
	}

	private static String describe(Class<?> type, Method method) {
		return type.getName() + "." + method.getName() + "()";
	}

	/** One annotation found on a bean. */
	private record Usage(String beanName, String description, String clusterId, @Nullable Method gatedMethod) {

		void checkShape() {
			if (this.clusterId.isBlank()) {
				throw new PollingAnnotationException(this + " names no cluster",
						"write the cluster id, e.g. @PollingCycle(\"MAILABRUF_CLUSTER\")");
			}
			if (this.gatedMethod != null && this.gatedMethod.getReturnType().isPrimitive()
					&& this.gatedMethod.getReturnType() != void.class) {
				throw new PollingAnnotationException(this + " returns " + this.gatedMethod.getReturnType()
						+ ", but a skipped cycle returns null", "return void or an object type");
			}
		}

		@Override
		public String toString() {
			return this.description + " (bean '" + this.beanName + "')";
		}

	}

}
