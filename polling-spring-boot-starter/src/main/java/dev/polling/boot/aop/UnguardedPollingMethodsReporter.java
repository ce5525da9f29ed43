package dev.polling.boot.aop;

import java.util.ArrayList;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanPostProcessor;

import dev.polling.boot.annotation.PollingAction;
import dev.polling.boot.annotation.PollingCycle;

/**
 * With {@code polling.enabled=false}: finds the methods that carry {@link PollingCycle} or
 * {@link PollingAction} and logs once, at startup, that they run unguarded on every instance, so
 * that switching polling off is never silent.
 */
public class UnguardedPollingMethodsReporter implements BeanPostProcessor, SmartInitializingSingleton {

	private static final Logger logger = LoggerFactory.getLogger(UnguardedPollingMethodsReporter.class);

	private final List<PollingAnnotationUsage> usages = new ArrayList<>();

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		List<PollingAnnotationUsage> found = PollingAnnotationUsage.find(beanName, AopProxyUtils.ultimateTargetClass(bean));
		synchronized (this.usages) {
			this.usages.addAll(found);
		}
		return bean;
	}

	@Override
	public void afterSingletonsInstantiated() {
		List<String> described;
		synchronized (this.usages) {
			described = this.usages.stream().map(PollingAnnotationUsage::toString).toList();
		}
		logger.warn("polling.enabled=false: polling coordination is off. Methods annotated with @PollingCycle or @PollingAction "
				+ "run unguarded, on every instance at every call, and no PollingManager bean exists{}",
				described.isEmpty() ? " (no such method found among the beans)" : ": " + String.join(", ", described));
	}

}
