package dev.polling.test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.MergedContextConfiguration;

/**
 * Registers the {@link ScriptedPeers} of a {@link PollingTest} and {@link PollingTestConfiguration}
 * in the test's context. A record, so that tests with the same script share a cached context.
 */
record PollingTestContextCustomizer(List<String> holding, List<String> peerHolding, List<String> peerUnreachable)
		implements ContextCustomizer {

	static PollingTestContextCustomizer of(PollingTest annotation) {
		Map<String, String[]> groups = new LinkedHashMap<>();
		groups.put("holding", annotation.holding());
		groups.put("peerHolding", annotation.peerHolding());
		groups.put("peerUnreachable", annotation.peerUnreachable());
		Map<String, String> named = new LinkedHashMap<>();
		for (Map.Entry<String, String[]> group : groups.entrySet()) {
			String attribute = group.getKey();
			for (String clusterId : group.getValue()) {
				String other = named.putIfAbsent(clusterId, attribute);
				if (other != null) {
					throw new IllegalStateException("@PollingTest names cluster '" + clusterId + "' in both " + other + " and "
							+ attribute + "; a cluster can be in one situation at a time");
				}
			}
		}
		return new PollingTestContextCustomizer(List.of(annotation.holding()), List.of(annotation.peerHolding()),
				List.of(annotation.peerUnreachable()));
	}

	@Override
	public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration mergedConfig) {
		BeanDefinitionRegistry registry = (BeanDefinitionRegistry) context.getBeanFactory();
		RootBeanDefinition peers = new RootBeanDefinition(ScriptedPeers.class, () -> new ScriptedPeers()
			.peerHolds(this.peerHolding.toArray(String[]::new))
			.peerUnreachable(this.peerUnreachable.toArray(String[]::new)));
		registry.registerBeanDefinition("pollingTestScriptedPeers", peers);
		RootBeanDefinition configuration = new RootBeanDefinition(PollingTestConfiguration.class);
		configuration.setRole(BeanDefinition.ROLE_INFRASTRUCTURE);
		registry.registerBeanDefinition(PollingTestConfiguration.class.getName(), configuration);
		RootBeanDefinition script = new RootBeanDefinition(PollingTestConfiguration.Script.class,
				() -> new PollingTestConfiguration.Script(this.holding, this.peerHolding, this.peerUnreachable));
		registry.registerBeanDefinition("pollingTestScript", script);
	}

}
