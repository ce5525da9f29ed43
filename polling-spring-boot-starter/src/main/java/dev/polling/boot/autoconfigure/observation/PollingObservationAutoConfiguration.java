package dev.polling.boot.autoconfigure.observation;

import dev.polling.boot.observation.PollingDecisionObservationConvention;
import dev.polling.boot.observation.PollingObservations;
import dev.polling.boot.observation.PollingPeerRequestObservationConvention;
import dev.polling.core.DecisionObserver;
import dev.polling.core.PollingManager;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Auto-configuration of {@link PollingObservations}: with an {@link ObservationRegistry} bean
 * (Spring Boot's observation auto-configuration provides one), the auto-configured
 * {@link PollingManager} reports each decision and each peer request as an observation. Custom
 * {@link PollingDecisionObservationConvention} and {@link PollingPeerRequestObservationConvention}
 * beans replace the default names and tags; {@code polling.observations.enabled=false} switches it
 * off.
 */
@AutoConfiguration(afterName = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration",
		beforeName = "dev.polling.boot.autoconfigure.PollingAutoConfiguration")
@ConditionalOnClass({ ObservationRegistry.class, PollingManager.class })
@ConditionalOnBean(ObservationRegistry.class)
@ConditionalOnBooleanProperty(name = "polling.observations.enabled", matchIfMissing = true)
public final class PollingObservationAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(DecisionObserver.class)
	PollingObservations pollingObservations(ObservationRegistry registry, Environment environment,
			ObjectProvider<PollingDecisionObservationConvention> decisionConvention,
			ObjectProvider<PollingPeerRequestObservationConvention> peerRequestConvention,
			ObjectProvider<PollingManager> manager) {
		return new PollingObservations(registry, () -> {
			PollingManager polling = manager.getIfAvailable();
			return (polling != null) ? polling.settings().instanceId() : environment.getProperty("polling.instance-id", "");
		}, decisionConvention.getIfUnique(), peerRequestConvention.getIfUnique());
	}

}
