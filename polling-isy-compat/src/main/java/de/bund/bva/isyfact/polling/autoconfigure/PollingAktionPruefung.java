package de.bund.bva.isyfact.polling.autoconfigure;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import de.bund.bva.isyfact.polling.annotation.PollingAktion;

import org.springframework.aop.support.AopUtils;
import org.springframework.context.ApplicationContext;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/** The native start check: every {@link PollingAktion} of a bean names a configured cluster. */
final class PollingAktionPruefung {

	private PollingAktionPruefung() {
	}

	static void pruefe(ApplicationContext context, Set<String> clusterIds) {
		List<String> fehler = new ArrayList<>();
		for (String name : context.getBeanDefinitionNames()) {
			Class<?> type = context.getType(name, false);
			if (type == null) {
				continue;
			}
			Class<?> user = ClassUtils.getUserClass(type);
			if (AopUtils.isAopProxy(user)) {
				continue;
			}
			ReflectionUtils.doWithMethods(user, (Method m) -> {
				PollingAktion a = m.getAnnotation(PollingAktion.class);
				if (a != null && !clusterIds.contains(a.pollingCluster())) {
					fehler.add(user.getName() + "." + m.getName() + " names cluster '" + a.pollingCluster() + "'");
				}
			});
		}
		if (!fehler.isEmpty()) {
			throw new IllegalStateException("@PollingAktion names polling clusters that are not configured (isy.polling.nativ.aktiv=true "
					+ "checks them at start): " + fehler + "; configured clusters: " + clusterIds);
		}
	}

}
