package de.bund.bva.isyfact.polling.annotation;

import java.lang.reflect.Method;

import de.bund.bva.isyfact.polling.PollingVerwalter;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;

import org.springframework.aop.support.AopUtils;
import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * Records the polling activity of a {@link PollingAktion} method's cluster once the method has
 * returned or thrown.
 */
public class PollingAktionInterceptor implements MethodInterceptor {

	private final PollingVerwalter pollingVerwalter;

	public PollingAktionInterceptor(PollingVerwalter pollingVerwalter) {
		this.pollingVerwalter = pollingVerwalter;
	}

	@Override
	public Object invoke(MethodInvocation invocation) throws Throwable {
		PollingAktion aktion = find(invocation);
		try {
			return invocation.proceed();
		}
		finally {
			if (aktion != null) {
				this.pollingVerwalter.aktualisiereZeitpunktLetztePollingAktivitaet(aktion.pollingCluster());
			}
		}
	}

	private static PollingAktion find(MethodInvocation invocation) {
		Method method = invocation.getMethod();
		Object target = invocation.getThis();
		Method specific = (target != null) ? AopUtils.getMostSpecificMethod(method, AopUtils.getTargetClass(target)) : method;
		PollingAktion aktion = AnnotatedElementUtils.findMergedAnnotation(specific, PollingAktion.class);
		if (aktion == null && specific != method) {
			aktion = AnnotatedElementUtils.findMergedAnnotation(method, PollingAktion.class);
		}
		return aktion;
	}

}
