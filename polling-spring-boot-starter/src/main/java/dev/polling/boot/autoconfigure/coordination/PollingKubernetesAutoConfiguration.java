package dev.polling.boot.autoconfigure.coordination;

import java.time.Duration;
import dev.polling.core.CoordinationKind;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;

import dev.polling.boot.InvalidPollingConfigurationException;
import dev.polling.boot.autoconfigure.PollingAutoConfiguration;
import dev.polling.boot.autoconfigure.PollingCoordinatorRegistration;
import dev.polling.boot.autoconfigure.properties.PollingProperties;
import dev.polling.boot.autoconfigure.properties.PollingPropertyErrors;
import dev.polling.kubernetes.LeaseCoordinator;

/**
 * Coordination through {@code coordination.k8s.io/v1} Lease objects for the clusters with
 * {@code coordination: kubernetes} (see {@link LeaseCoordinator}), through the application's
 * {@link KubernetesClient} bean, or a client of its own configured the fabric8 way (in a pod: the
 * pod's service account and namespace; elsewhere: {@code ~/.kube/config}).
 */
@AutoConfiguration(before = PollingAutoConfiguration.class)
@ConditionalOnClass({ LeaseCoordinator.class, KubernetesClient.class })
@ConditionalOnBooleanProperty(name = "polling.enabled", matchIfMissing = true)
@Conditional(OnCoordinationKind.Kubernetes.class)
public final class PollingKubernetesAutoConfiguration {

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean
	KubernetesClient pollingKubernetesClient() {
		return new KubernetesClientBuilder().build();
	}

	@Bean
	@ConditionalOnMissingBean(name = "pollingKubernetesCoordinator")
	PollingCoordinatorRegistration pollingKubernetesCoordinator(KubernetesClient client, PollingProperties properties) {
		PollingProperties.Kubernetes settings = properties.getCoordination().getKubernetes();
		Duration configured = properties.getCoordination().getFailoverPeriod();
		checkDurations(properties, settings);
		java.util.List<String> clusterIds = new java.util.ArrayList<>();
		properties.getClusters().forEach((id, cluster) -> {
			CoordinationKind kind = (cluster.getCoordination() != null) ? cluster.getCoordination()
					: properties.getCoordination().getKind();
			if (kind == CoordinationKind.KUBERNETES) {
				clusterIds.add(id);
			}
		});
		try {
			return new PollingCoordinatorRegistration(CoordinationKind.KUBERNETES,
					new PerFailoverCoordinator(properties, CoordinationKind.KUBERNETES, configured, (leaseDuration) -> {
						LeaseCoordinator.Builder builder = LeaseCoordinator.builder(client)
							.leaseDuration(leaseDuration)
							.leaseNamePrefix(settings.getLeaseNamePrefix())
							.clusterIds(clusterIds);
						if (settings.getNamespace() != null) {
							builder.namespace(settings.getNamespace().strip());
						}
						if (settings.getRenewDeadline() != null) {
							builder.renewDeadline(settings.getRenewDeadline());
						}
						return builder.build();
					}));
		}
		catch (IllegalArgumentException ex) {
			// the builder names the first bad argument at the start of its message
			String message = String.valueOf(ex.getMessage());
			String property;
			String value;
			if (message.startsWith("cluster ids")) {
				// two cluster ids on one Lease: the message names both
				throw new InvalidPollingConfigurationException("polling.clusters", String.join(", ", clusterIds), message,
						"rename one of the two clusters, see docs/kubernetes.md");
			}
			if (message.startsWith("namespace")) {
				property = "polling.coordination.kubernetes.namespace";
				value = String.valueOf(settings.getNamespace());
			}
			else {
				property = "polling.coordination.kubernetes.lease-name-prefix";
				value = settings.getLeaseNamePrefix();
			}
			throw new InvalidPollingConfigurationException(property, value, message, "see docs/kubernetes.md");
		}
	}

	/**
	 * The lease duration positive, the renew deadline positive and shorter than every cluster's lease
	 * duration (the configured one, or else each cluster's wait time), in the properties' words.
	 */
	private static void checkDurations(PollingProperties properties, PollingProperties.Kubernetes settings) {
		Duration configured = properties.getCoordination().getFailoverPeriod();
		Duration renew = settings.getRenewDeadline();
		if (renew == null) {
			return;
		}
		if (renew.isNegative() || renew.isZero()) {
			throw new InvalidPollingConfigurationException("polling.coordination.kubernetes.renew-deadline", PollingPropertyErrors.display(renew),
					"the renew deadline must be positive", "leave it unset for two thirds of the lease duration");
		}
		properties.getClusters().forEach((id, cluster) -> {
			CoordinationKind kind = (cluster.getCoordination() != null) ? cluster.getCoordination()
					: properties.getCoordination().getKind();
			Duration lease = (configured != null) ? configured : cluster.getWaitTime();
			if (kind == CoordinationKind.KUBERNETES && lease != null && renew.compareTo(lease) >= 0) {
				String source = (configured != null) ? "polling.coordination.failover-period"
						: "the wait time of cluster '" + id + "', its lease duration";
				throw new InvalidPollingConfigurationException("polling.coordination.kubernetes.renew-deadline", PollingPropertyErrors.display(renew),
						"the renew deadline is not shorter than the lease duration (" + PollingPropertyErrors.display(lease) + ", "
								+ source + "): a holder must step down before another instance may take over",
						"set it below " + PollingPropertyErrors.display(lease) + ", or leave it unset for two thirds of the lease duration");
			}
		});
	}

}
