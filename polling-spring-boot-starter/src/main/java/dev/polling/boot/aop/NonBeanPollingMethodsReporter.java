package dev.polling.boot.aop;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.annotation.AnnotatedBeanDefinition;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfigurationPackages;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.ResourceLoaderAware;
import org.springframework.context.annotation.ClassPathScanningCandidateComponentProvider;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.core.type.MethodMetadata;
import org.springframework.util.ClassUtils;

import dev.polling.boot.annotation.PollingAction;
import dev.polling.boot.annotation.PollingCycle;

/**
 * At startup, finds the methods annotated with {@link PollingCycle} or {@link PollingAction} in the
 * application's packages ({@link AutoConfigurationPackages}) whose class is not the type of any
 * bean, and names each at WARN. Such a method (on a helper created with {@code new}) is never
 * advised: it runs on every instance at every call, which the annotation was written to prevent.
 * <p>
 * The class files are read with Spring's metadata readers; a class is loaded only when it has such
 * a method, and without running its static initializers. A WARN rather than a failed start: the
 * scan sees classes, not how they are used, so a class that is only ever a superclass of a bean
 * declared elsewhere, or that the application deliberately uses without coordination, would
 * otherwise stop a correct application.
 */
public class NonBeanPollingMethodsReporter
		implements SmartInitializingSingleton, BeanFactoryAware, EnvironmentAware, ResourceLoaderAware {

	private static final Logger logger = LoggerFactory.getLogger(NonBeanPollingMethodsReporter.class);

	private static final List<String> ANNOTATIONS = List.of(PollingCycle.class.getName(), PollingAction.class.getName());

	private @Nullable ListableBeanFactory beanFactory;

	private @Nullable Environment environment;

	private @Nullable ResourceLoader resourceLoader;

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		this.beanFactory = (beanFactory instanceof ListableBeanFactory listable) ? listable : null;
	}

	@Override
	public void setEnvironment(Environment environment) {
		this.environment = environment;
	}

	@Override
	public void setResourceLoader(ResourceLoader resourceLoader) {
		this.resourceLoader = resourceLoader;
	}

	@Override
	public void afterSingletonsInstantiated() {
		ListableBeanFactory beans = this.beanFactory;
		if (beans == null || !AutoConfigurationPackages.has(beans)) {
			return;
		}
		for (String method : findMethodsOutsideBeans(AutoConfigurationPackages.get(beans))) {
			logger.warn("{} has no effect: its class is not a Spring bean (no bean has this type), so the method runs "
					+ "unguarded, on every instance, whenever it is called. Fix: make the class a bean (@Component, or a @Bean "
					+ "method) and call the method through that bean (inject it, do not create it with new); @PollingCycle and "
					+ "@PollingAction work only on methods of beans", method);
		}
	}

	/**
	 * The annotated methods in the packages whose class no bean has as its type or a supertype.
	 * @param packages the packages to scan (with their subpackages)
	 * @return each as {@code @PollingCycle("cluster") on com.example.Helper.method()}, sorted
	 */
	List<String> findMethodsOutsideBeans(List<String> packages) {
		ListableBeanFactory beans = this.beanFactory;
		if (beans == null) {
			return List.of();
		}
		ClassPathScanningCandidateComponentProvider scanner = new ClassPathScanningCandidateComponentProvider(false) {

			@Override
			protected boolean isCandidateComponent(AnnotatedBeanDefinition definition) {
				return true; // abstract, nested and inner classes too: the filter below decides
			}

		};
		if (this.environment != null) {
			scanner.setEnvironment(this.environment);
		}
		if (this.resourceLoader != null) {
			scanner.setResourceLoader(this.resourceLoader);
		}
		scanner.addIncludeFilter((reader, factory) -> ANNOTATIONS.stream()
			.anyMatch((annotation) -> reader.getAnnotationMetadata().hasAnnotatedMethods(annotation)));
		Set<String> found = new TreeSet<>();
		ClassLoader classLoader = (this.resourceLoader != null) ? this.resourceLoader.getClassLoader() : null;
		for (String basePackage : packages) {
			for (BeanDefinition candidate : scanner.findCandidateComponents(basePackage)) {
				if (!(candidate instanceof AnnotatedBeanDefinition annotated) || isBeanType(beans, candidate.getBeanClassName(), classLoader)) {
					continue;
				}
				AnnotationMetadata metadata = annotated.getMetadata();
				for (String annotation : ANNOTATIONS) {
					for (MethodMetadata method : metadata.getAnnotatedMethods(annotation)) {
						Object cluster = method.getAnnotationAttributes(annotation).get("value");
						found.add("@" + ClassUtils.getShortName(annotation) + "(\"" + cluster + "\") on "
								+ metadata.getClassName() + "." + method.getMethodName() + "()");
					}
				}
			}
		}
		return new ArrayList<>(found);
	}

	private static boolean isBeanType(ListableBeanFactory beans, @Nullable String className, @Nullable ClassLoader classLoader) {
		if (className == null) {
			return true;
		}
		try {
			// loads the class without initializing it; no eager init of factory beans to learn their types
			Class<?> type = ClassUtils.forName(className, classLoader);
			return beans.getBeanNamesForType(type, true, false).length > 0;
		}
		catch (ClassNotFoundException | LinkageError ex) {
			return true; // not loadable here: nothing to say about it
		}
	}

}
