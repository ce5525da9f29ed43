package dev.polling.boot.autoconfigure.coordination;

import java.time.Duration;

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
import dev.polling.boot.autoconfigure.PollingProperties;
import dev.polling.boot.autoconfigure.PollingPropertyErrors;
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
		PollingProperties.Kubernetes settings = properties.getKubernetes();
		Duration configured = settings.getLeaseDuration();
		checkDurations(properties, settings);
		java.util.List<String> clusterIds = new java.util.ArrayList<>();
		properties.getClusters().forEach((id, cluster) -> {
			PollingProperties.Coordination kind = (cluster.getCoordination() != null) ? cluster.getCoordination()
					: properties.getCoordination();
			if (kind == PollingProperties.Coordination.KUBERNETES) {
				clusterIds.add(id);
			}
		});
		try {
			return new PollingCoordinatorRegistration(PollingProperties.Coordination.KUBERNETES,
					new PerFailoverCoordinator(properties, PollingProperties.Coordination.KUBERNETES, configured, (leaseDuration) -> {
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
				property = "polling.kubernetes.namespace";
				value = String.valueOf(settings.getNamespace());
			}
			else {
				property = "polling.kubernetes.lease-name-prefix";
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
		Duration configured = settings.getLeaseDuration();
		if (configured != null && (configured.isNegative() || configured.isZero())) {
			throw new InvalidPollingConfigurationException("polling.kubernetes.lease-duration", PollingPropertyErrors.display(configured),
					"the lease duration must be positive",
					"set it to the failover period, e.g. 15s, or leave it unset for each cluster's wait time");
		}
		Duration renew = settings.getRenewDeadline();
		if (renew == null) {
			return;
		}
		if (renew.isNegative() || renew.isZero()) {
			throw new InvalidPollingConfigurationException("polling.kubernetes.renew-deadline", PollingPropertyErrors.display(renew),
					"the renew deadline must be positive", "leave it unset for two thirds of the lease duration");
		}
		properties.getClusters().forEach((id, cluster) -> {
			PollingProperties.Coordination kind = (cluster.getCoordination() != null) ? cluster.getCoordination()
					: properties.getCoordination();
			Duration lease = (configured != null) ? configured : cluster.getWaitTime();
			if (kind == PollingProperties.Coordination.KUBERNETES && lease != null && renew.compareTo(lease) >= 0) {
				String source = (configured != null) ? "polling.kubernetes.lease-duration"
						: "the wait time of cluster '" + id + "', its lease duration";
				throw new InvalidPollingConfigurationException("polling.kubernetes.renew-deadline", PollingPropertyErrors.display(renew),
						"the renew deadline is not shorter than the lease duration (" + PollingPropertyErrors.display(lease) + ", "
								+ source + "): a holder must step down before another instance may take over",
						"set it below " + PollingPropertyErrors.display(lease) + ", or leave it unset for two thirds of the lease duration");
			}
		});
	}

}
