package dev.polling.boot.autoconfigure.observation;

import java.util.Set;

import dev.polling.boot.observation.DefaultPollingDecisionObservationConvention;
import dev.polling.boot.observation.DefaultPollingPeerRequestObservationConvention;
import dev.polling.boot.observation.PollingDecisionObservationConvention;
import dev.polling.boot.observation.PollingObservations;
import dev.polling.boot.observation.PollingPeerRequestObservationConvention;
import dev.polling.core.DecisionObserver;
import dev.polling.core.PollingManager;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Auto-configuration of {@link PollingObservations}: with an {@link ObservationRegistry} bean
 * (Spring Boot's observation auto-configuration provides one), the auto-configured
 * {@link PollingManager} reports each decision and each peer request as an observation. Custom
 * {@link PollingDecisionObservationConvention} and {@link PollingPeerRequestObservationConvention}
 * beans replace the default names and tags; {@code polling.observations.enabled=false} switches it
 * off.
 * <p>
 * The observations are for tracing. Their timers are not registered as meters: a meter registry
 * handling observations would otherwise time each decision twice, as the observation's
 * {@code polling.decision} (and {@code polling.decision.active}) beside {@code polling.decision.duration},
 * and each peer request as {@code polling.peer.request} beside {@code polling.peer.requests}; the
 * {@code MeterBinder} meters ({@code PollingMetrics}) exist with or without observations and carry
 * the tags every other polling meter has. A {@link MeterFilter} denies the names of the conventions
 * in use; the observations still reach every other handler (a tracer bridge).
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

	/**
	 * Keeps the observations' timers out of the meter registries (see the class description).
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterFilter.class)
	static class ObservationMetersConfiguration {

		@Bean
		MeterFilter pollingObservationMeterFilter(ObjectProvider<PollingDecisionObservationConvention> decisionConvention,
				ObjectProvider<PollingPeerRequestObservationConvention> peerRequestConvention) {
			String decision = nameOf(decisionConvention.getIfUnique(), DefaultPollingDecisionObservationConvention.NAME);
			String peerRequest = nameOf(peerRequestConvention.getIfUnique(), DefaultPollingPeerRequestObservationConvention.NAME);
			// the meter handler's timer and its long task timer (name.active) of each observation
			Set<String> denied = Set.of(decision, decision + ".active", peerRequest, peerRequest + ".active");
			return MeterFilter.deny((id) -> denied.contains(id.getName()));
		}

		private static String nameOf(@Nullable ObservationConvention<?> convention, String defaultName) {
			String name = (convention != null) ? convention.getName() : null;
			return (name != null) ? name : defaultName;
		}

	}

}
