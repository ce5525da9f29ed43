package dev.polling.boot.aop;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;
import org.springframework.util.ReflectionUtils;

import dev.polling.boot.annotation.PollingAction;
import dev.polling.boot.annotation.PollingCycle;

/**
 * One {@link PollingCycle} or {@link PollingAction} found on a bean: where it is and which cluster
 * it names.
 *
 * @param beanName the bean
 * @param description what carries the annotation, e.g. {@code @PollingCycle on com.example.Poller.poll()}
 * @param clusterId the cluster id as written in the annotation
 * @param gatedMethod the method a {@code @PollingCycle} gates, or null for {@code @PollingAction}
 */
record PollingAnnotationUsage(String beanName, String description, String clusterId, @Nullable Method gatedMethod) {

	/** Every polling annotation on the class, its superclasses and their methods. */
	static List<PollingAnnotationUsage> find(String beanName, Class<?> type) {
		List<PollingAnnotationUsage> found = new ArrayList<>();
		MergedAnnotation<PollingAction> classAction = MergedAnnotations.from(type, SearchStrategy.TYPE_HIERARCHY).get(PollingAction.class);
		if (classAction.isPresent()) {
			found.add(new PollingAnnotationUsage(beanName, "@PollingAction on " + type.getName(), classAction.getString("value"), null));
		}
		ReflectionUtils.doWithMethods(type, (method) -> {
			MergedAnnotations annotations = MergedAnnotations.from(method, SearchStrategy.TYPE_HIERARCHY);
			MergedAnnotation<PollingCycle> cycle = annotations.get(PollingCycle.class);
			if (cycle.isPresent()) {
				found.add(new PollingAnnotationUsage(beanName, "@PollingCycle on " + describe(type, method), cycle.getString("value"),
						method));
			}
			MergedAnnotation<PollingAction> action = annotations.get(PollingAction.class);
			if (action.isPresent()) {
				found.add(new PollingAnnotationUsage(beanName, "@PollingAction on " + describe(type, method), action.getString("value"),
						null));
			}
		}, ReflectionUtils.USER_DECLARED_METHODS);
		return found;
	}

	private static String describe(Class<?> type, Method method) {
		return type.getName() + "." + method.getName() + "()";
	}

	/** Fails when the annotation names no cluster or gates a method that cannot return null. */
	void checkShape() {
		if (this.clusterId.isBlank()) {
			throw new PollingAnnotationException(this + " names no cluster", "write the cluster id, e.g. @PollingCycle(\"MAILABRUF_CLUSTER\")");
		}
		if (this.gatedMethod != null && this.gatedMethod.getReturnType().isPrimitive() && this.gatedMethod.getReturnType() != void.class) {
			throw new PollingAnnotationException(this + " returns " + this.gatedMethod.getReturnType() + ", but a skipped cycle returns null",
					"return void or an object type");
		}
	}

	@Override
	public String toString() {
		return this.description + " (bean '" + this.beanName + "')";
	}

}
