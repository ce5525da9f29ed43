package de.bund.bva.isyfact.polling.autoconfigure;

import de.bund.bva.isyfact.polling.PollingVerwalter;
import de.bund.bva.isyfact.polling.annotation.PollingAktion;
import de.bund.bva.isyfact.polling.annotation.PollingAktionInterceptor;
import de.bund.bva.isyfact.polling.config.IsyPollingProperties;
import de.bund.bva.isyfact.polling.impl.NativerPollingVerwalter;
import de.bund.bva.isyfact.polling.impl.PollingVerwalterImpl;

import org.springframework.aop.Advisor;
import org.springframework.aop.config.AopConfigUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.context.annotation.Lazy;
import org.springframework.context.annotation.Role;
import org.springframework.core.type.AnnotationMetadata;

/**
 * isy-polling on polling-core: binds {@code isy.polling.*} to {@link IsyPollingProperties}, provides
 * the {@link PollingVerwalter} (isy-polling's behaviour, or polling-core's with
 * {@code isy.polling.nativ.aktiv=true}) and applies {@link PollingAktion} to the application's beans.
 */
@AutoConfiguration
@EnableConfigurationProperties
@Import(IsyPollingAutoConfiguration.AutoProxy.class)
public class IsyPollingAutoConfiguration {

	// declared first: its dependency on the properties makes a binding failure a cause of its creation failure
	@Bean
	@ConditionalOnMissingBean
	public PollingVerwalter pollingVerwalter(IsyPollingProperties isyPollingProperties) {
		if (isyPollingProperties.getNativ().isAktiv()) {
			NativerPollingVerwalter verwalter = new NativerPollingVerwalter();
			verwalter.setIsyPollingProperties(isyPollingProperties);
			return verwalter;
		}
		PollingVerwalterImpl verwalter = new PollingVerwalterImpl();
		verwalter.setIsyPollingProperties(isyPollingProperties);
		return verwalter;
	}

	@Bean
	@ConfigurationProperties(prefix = "isy.polling")
	public IsyPollingProperties isyPollingProperties() {
		return new IsyPollingProperties();
	}

	/**
	 * Applies {@link PollingAktionInterceptor} to methods annotated with {@link PollingAktion} (on the
	 * method, or on the method it overrides or implements). The verwalter is resolved lazily, so the
	 * advisor does not pull it into the post-processor phase.
	 */
	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	public Advisor pollingAktionInterceptor(@Lazy PollingVerwalter pollingVerwalter) {
		AnnotationMatchingPointcut pointcut = new AnnotationMatchingPointcut(null, PollingAktion.class, true);
		return new DefaultPointcutAdvisor(pointcut, new PollingAktionInterceptor(pollingVerwalter));
	}

	/** With {@code isy.polling.nativ.aktiv=true}: every {@code @PollingAktion} must name a configured cluster. */
	@Bean
	public static SmartInitializingSingleton pollingAktionClusterPruefung(ApplicationContext context,
			ObjectProvider<PollingVerwalter> verwalter) {
		return () -> {
			if (verwalter.getIfAvailable() instanceof NativerPollingVerwalter nativ) {
				PollingAktionPruefung.pruefe(context, nativ.getClusterIds());
			}
		};
	}

	/** Registers Spring's infrastructure auto-proxy creator (applies the advisor above) unless one is there. */
	static class AutoProxy implements ImportBeanDefinitionRegistrar {

		@Override
		public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
			AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
		}

	}

}
