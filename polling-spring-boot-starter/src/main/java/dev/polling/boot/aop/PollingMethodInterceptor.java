package dev.polling.boot.aop;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.aop.support.AopUtils;
import org.springframework.core.MethodClassKey;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;

import dev.polling.boot.annotation.PollingAction;
import dev.polling.boot.annotation.PollingCycle;
import dev.polling.core.Decision;
import dev.polling.core.PollingManager;

/**
 * Runs a {@link PollingCycle} method through {@link PollingManager#runIfGranted} and refreshes the
 * activity after a {@link PollingAction} method.
 */
final class PollingMethodInterceptor implements MethodInterceptor {

	private static final Logger logger = LoggerFactory.getLogger(PollingMethodInterceptor.class);

	private static final Binding NONE = new Binding(Kind.NONE, "");

	private final Supplier<@Nullable PollingManager> managerSupplier;

	private final Map<MethodClassKey, Binding> bindings = new ConcurrentHashMap<>();

	private volatile @Nullable PollingManager manager;

	PollingMethodInterceptor(Supplier<@Nullable PollingManager> managerSupplier) {
		this.managerSupplier = managerSupplier;
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		Class<?> targetClass = (target != null) ? AopUtils.getTargetClass(target) : invocation.getMethod().getDeclaringClass();
		Binding binding = this.bindings.computeIfAbsent(new MethodClassKey(invocation.getMethod(), targetClass),
				(key) -> bind(invocation.getMethod(), targetClass));
		return switch (binding.kind) {
			case NONE -> invocation.proceed();
			case CYCLE -> cycle(binding.clusterId, invocation);
			case ACTION -> action(binding.clusterId, invocation);
		};
	}

	private @Nullable Object cycle(String clusterId, MethodInvocation invocation) throws Throwable {
		Object[] result = new Object[1];
		Throwable[] failure = new Throwable[1];
		Decision decision = manager().runIfGranted(clusterId, () -> {
			try {
				result[0] = invocation.proceed();
			}
			catch (Throwable ex) {
				failure[0] = ex;
			}
		});
		if (failure[0] != null) {
			throw failure[0];
		}
		if (!decision.isGranted() && logger.isDebugEnabled()) {
			logger.debug("Cluster '{}': skipped {} ({})", clusterId, invocation.getMethod().getName(), decision.reason());
		}
		return result[0];
	}

	private @Nullable Object action(String clusterId, MethodInvocation invocation) throws Throwable {
		PollingManager manager = manager();
		try {
			return invocation.proceed();
		}
		finally {
			manager.recordActivity(clusterId);
		}
	}

	private PollingManager manager() {
		PollingManager manager = this.manager;
		if (manager == null) {
			manager = this.managerSupplier.get();
			if (manager == null) {
				throw new PollingAnnotationException("A polling annotation was called but no polling clusters are configured",
						"define polling.clusters.<id>.wait-time");
			}
			this.manager = manager;
		}
		return manager;
	}

	private static Binding bind(Method method, Class<?> targetClass) {
		if (method.getDeclaringClass() == Object.class) {
			return NONE;
		}
		Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
		MergedAnnotations annotations = MergedAnnotations.from(specific, SearchStrategy.TYPE_HIERARCHY);
		MergedAnnotation<PollingCycle> cycle = annotations.get(PollingCycle.class);
		if (cycle.isPresent()) {
			return new Binding(Kind.CYCLE, cycle.getString("value"));
		}
		MergedAnnotation<PollingAction> action = annotations.get(PollingAction.class);
		if (!action.isPresent()) {
			action = MergedAnnotations.from(targetClass, SearchStrategy.TYPE_HIERARCHY).get(PollingAction.class);
		}
		return action.isPresent() ? new Binding(Kind.ACTION, action.getString("value")) : NONE;
	}

	private enum Kind {

		NONE, CYCLE, ACTION

	}

	private record Binding(Kind kind, String clusterId) {
	}

}
