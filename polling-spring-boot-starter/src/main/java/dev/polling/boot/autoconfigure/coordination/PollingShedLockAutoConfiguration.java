package dev.polling.boot.autoconfigure.coordination;

import java.time.Duration;
import dev.polling.core.CoordinationKind;

import net.javacrumbs.shedlock.core.LockProvider;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;

import dev.polling.boot.InvalidPollingConfigurationException;
import dev.polling.boot.autoconfigure.PollingAutoConfiguration;
import dev.polling.boot.autoconfigure.PollingCoordinatorRegistration;
import dev.polling.boot.autoconfigure.properties.PollingProperties;
import dev.polling.boot.autoconfigure.properties.PollingPropertyErrors;
import dev.polling.shedlock.ShedLockCoordinator;

/**
 * Coordination through the application's ShedLock {@link LockProvider} bean for the clusters with
 * {@code coordination: shedlock}: each cluster is a lock named {@code polling.coordination.shedlock.lock-name-prefix}
 * + cluster id, taken for the failover period ({@code polling.coordination.failover-period}, else the
 * cluster's wait time) and extended at every decision (see {@link ShedLockCoordinator}). A provider
 * that cannot extend a lock stops the start with a message naming it, and so do two clusters whose
 * lock names a store could take for one (naming both ids).
 */
@AutoConfiguration(before = PollingAutoConfiguration.class)
@ConditionalOnClass({ ShedLockCoordinator.class, LockProvider.class })
@ConditionalOnBooleanProperty(name = "polling.enabled", matchIfMissing = true)
@Conditional(OnCoordinationKind.ShedLock.class)
public final class PollingShedLockAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(name = "pollingShedLockCoordinator")
	@ConditionalOnSingleCandidate(LockProvider.class)
	PollingCoordinatorRegistration pollingShedLockCoordinator(LockProvider lockProvider, PollingProperties properties) {
		PollingProperties.ShedLock settings = properties.getCoordination().getShedlock();
		Duration configured = properties.getCoordination().getFailoverPeriod();
		String prefix = settings.getLockNamePrefix();
		if (prefix == null || prefix.isBlank()) {
			throw new InvalidPollingConfigurationException("polling.coordination.shedlock.lock-name-prefix", String.valueOf(prefix),
					"the lock names would be the bare cluster ids and could clash with the application's own ShedLock tasks",
					"keep the default 'polling-' or choose another non-blank prefix");
		}
		PerFailoverCoordinator coordinator = new PerFailoverCoordinator(properties, CoordinationKind.SHEDLOCK, configured,
				(failover) -> ShedLockCoordinator.builder(lockProvider).failoverPeriod(failover).lockNamePrefix(prefix).build());
		// one probe answers for the provider: every coordinator uses the same one
		ShedLockCoordinator probe = coordinator.coordinators().stream().map(ShedLockCoordinator.class::cast).findFirst()
			.orElseGet(() -> ShedLockCoordinator.builder(lockProvider).failoverPeriod(Duration.ofSeconds(10)).lockNamePrefix(prefix).build());
		try {
			probe.verifyLockNames(coordinator.clusterIds());
		}
		catch (IllegalStateException ex) {
			throw new InvalidPollingConfigurationException("polling.clusters", String.join(", ", coordinator.clusterIds()),
					ex.getMessage(), "a lock name is polling.coordination.shedlock.lock-name-prefix followed by the cluster id (the key under "
							+ "polling.clusters): rename one of the two");
		}
		try {
			probe.verifyExtendSupport();
		}
		catch (IllegalStateException ex) {
			throw new InvalidPollingConfigurationException("polling.coordination.kind", "shedlock", ex.getMessage(),
					"see docs/shedlock.md for the providers that can extend");
		}
		return new PollingCoordinatorRegistration(CoordinationKind.SHEDLOCK, coordinator);
	}

}
