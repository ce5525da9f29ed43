package dev.polling.boot.autoconfigure;

import java.util.LinkedHashSet;
import dev.polling.core.CoordinationKind;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import javax.management.MBeanServer;
import javax.net.ssl.SSLContext;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.ssl.NoSuchSslBundleException;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.task.ThreadPoolTaskSchedulerBuilder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;

import dev.polling.boot.InvalidPollingConfigurationException;
import dev.polling.boot.aop.NonBeanPollingMethodsReporter;
import dev.polling.boot.aop.PollingAnnotationBeanPostProcessor;
import dev.polling.core.ClusterCoordinator;
import dev.polling.core.ClusterDefinition;
import dev.polling.core.discovery.DnsDiscovery;
import dev.polling.core.PeerDefinition;
import dev.polling.core.DecisionObserver;
import dev.polling.core.PollingListener;
import dev.polling.core.PollingManager;
import dev.polling.core.PollingSettings;
import dev.polling.core.JmxContract;
import dev.polling.core.jmx.PollingJmxServer;
import dev.polling.boot.autoconfigure.properties.PollingProperties;
import dev.polling.boot.autoconfigure.properties.JmxProperties;

/**
 * Auto-configuration of polling clusters: the {@link PollingManager} (the registry of all
 * clusters), the JMX connector server the peers talk to ({@link PollingJmxServerLifecycle}, which
 * opens when the context starts if {@code polling.jmx.server.port} is set then), and the
 * processing of {@code @PollingCycle} and {@code @PollingAction}.
 *
 * <p>The manager is created only when at least one cluster is configured: the cluster ids belong to
 * the application's code ({@code @PollingCycle("MAILBOX_1")}), so they are packaged with it and
 * are the same when the application is processed ahead of time; per-instance values (port, peers,
 * instance id) are read when the beans are created and never decide which beans exist. The
 * cluster MBeans are registered in the JMX server's own MBean server, or else in the platform
 * MBean server, whether or not {@code spring.jmx.enabled} is set. When the context stops,
 * {@link PollingManagerLifecycle} releases every cluster (peers can take over at their next tick)
 * before the JMX server closes.
 */
@AutoConfiguration
@ConditionalOnBooleanProperty(name = "polling.enabled", matchIfMissing = true)
@EnableConfigurationProperties(PollingProperties.class)
public final class PollingAutoConfiguration {

	private static final Logger logger = LoggerFactory.getLogger(PollingAutoConfiguration.class);

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean
	static PollingAnnotationBeanPostProcessor pollingAnnotationBeanPostProcessor() {
		return new PollingAnnotationBeanPostProcessor();
	}

	@Bean
	@ConditionalOnMissingBean
	NonBeanPollingMethodsReporter nonBeanPollingMethodsReporter() {
		return new NonBeanPollingMethodsReporter();
	}

	@Configuration(proxyBeanMethods = false)
	@Conditional(OnPollingClustersCondition.class)
	static class PollingManagerConfiguration {

		@Bean
		@ConditionalOnMissingBean
		PollingJmxServerLifecycle pollingJmxServerLifecycle(PollingProperties properties,
				ObjectProvider<SslBundles> sslBundles) {
			return new PollingJmxServerLifecycle(properties, () -> {
				JmxProperties.Server server = properties.getJmx().getServer();
				return (server.getSslBundle() != null) ? new PollingJmxServer.ServerTls(
						sslContext(sslBundles, "polling.jmx.server.ssl-bundle", server.getSslBundle()),
						server.isRequireClientCertificate()) : null;
			});
		}

		@Bean(destroyMethod = "close")
		@ConditionalOnMissingBean
		PollingManager pollingManager(PollingProperties properties, PollingJmxServerLifecycle jmxServer,
				ObjectProvider<PollingListener> listeners, ObjectProvider<ClusterCoordinator> coordinators,
				ObjectProvider<SslBundles> sslBundles, ObjectProvider<PollingManagerBuilderCustomizer> customizers,
				ObjectProvider<DecisionObserver> observers, ObjectProvider<PollingCoordinatorRegistration> registrations) {
			MBeanServer mbeanServer = jmxServer.mbeanServer();
			PollingManager.Builder builder = PollingManager.builder()
				.settings(settings(properties))
				.clusters(clusters(properties))
				.peers(peers(properties))
				.listener(CompositePollingListener.of(listeners.orderedStream().toList()))
				.observer(observers.getIfUnique(() -> DecisionObserver.NONE))
				.balanceClusters(properties.getJmx().isBalanceClusters())
				.discovery(discovery(properties))
				.mbeanServer(mbeanServer);
			properties.getJmx().getPeers().forEach((id, peer) -> {
				if (peer.getSslBundle() != null) {
					builder.peerTls(id, sslContext(sslBundles, "polling.jmx.peers." + id + ".ssl-bundle", peer.getSslBundle()));
				}
			});
			List<PollingCoordinatorRegistration> registered = registrations.orderedStream().toList();
			properties.getClusters().forEach((id, cluster) -> {
				CoordinationKind coordination = (cluster.getCoordination() != null) ? cluster.getCoordination()
						: properties.getCoordination().getKind();
				if (coordination != CoordinationKind.JMX) {
					String property = (cluster.getCoordination() != null) ? "polling.clusters." + id + ".coordination"
							: "polling.coordination.kind";
					builder.coordinator(id, coordinator(coordination, id, property, coordinators, registered));
				}
			});
			customizers.orderedStream().forEach((customizer) -> customizer.customize(builder));
			PollingManager manager = builder.build();
			logger.info("Polling instance '{}': clusters {}, peers {}{}, cluster MBeans in {}", manager.settings().instanceId(),
					manager.clusterIds(), manager.peers().values().stream().map((peer) -> peer.id() + "=" + peer.address()).toList(),
					manager.discovery().map((dns) -> " and every address of " + dns.name() + " at port " + dns.port()).orElse(""),
					jmxServer.isConfigured() ? "the polling JMX server's MBean server" : "the platform MBean server");
			return manager;
		}

		@Bean
		@ConditionalOnMissingBean
		NoDecisionWatch pollingNoDecisionWatch(PollingManager manager, ObjectProvider<ThreadPoolTaskSchedulerBuilder> schedulerBuilder) {
			return new NoDecisionWatch(manager, schedulerBuilder.getIfAvailable(ThreadPoolTaskSchedulerBuilder::new));
		}

		@Bean
		@ConditionalOnMissingBean
		PollingManagerLifecycle pollingManagerLifecycle(PollingManager manager, PollingProperties properties) {
			return new PollingManagerLifecycle(manager, properties.getShutdown().getTimeout());
		}

		/**
		 * The coordinator of a cluster not coordinated over JMX: for JDBC the single ClusterCoordinator
		 * bean (the auto-configured JdbcCoordinator or the application's own), for the other kinds the
		 * registration of that kind; a startup failure naming the property when there is none.
		 */
		private static ClusterCoordinator coordinator(CoordinationKind kind, String cluster, String property,
				ObjectProvider<ClusterCoordinator> coordinators, List<PollingCoordinatorRegistration> registrations) {
			List<PollingCoordinatorRegistration> matching = registrations.stream().filter((r) -> r.kind() == kind).toList();
			if (matching.size() > 1) {
				throw new InvalidPollingConfigurationException(property, kind.name().toLowerCase(Locale.ROOT),
						"cluster '" + cluster + "' is coordinated through " + kind.name().toLowerCase(Locale.ROOT) + " but "
								+ matching.size() + " PollingCoordinatorRegistration beans of that kind exist",
						"define at most one PollingCoordinatorRegistration per kind");
			}
			if (matching.size() == 1) {
				return matching.get(0).coordinator();
			}
			String value = kind.name().toLowerCase(Locale.ROOT);
			switch (kind) {
				case JDBC -> {
					ClusterCoordinator coordinator = coordinators.getIfUnique();
					if (coordinator == null) {
						throw new InvalidPollingConfigurationException(property, value,
								"cluster '" + cluster + "' is coordinated through the database but the application has no single DataSource"
										+ " or does not have dev.polling:polling-jdbc",
								"add dev.polling:polling-jdbc and spring-boot-starter-jdbc and configure a DataSource, or use jmx coordination");
					}
					return coordinator;
				}
				case SHEDLOCK -> throw new InvalidPollingConfigurationException(property, value,
						"cluster '" + cluster + "' is coordinated through ShedLock but the application has no single "
								+ "net.javacrumbs.shedlock.core.LockProvider bean or does not have dev.polling:polling-shedlock",
						"add dev.polling:polling-shedlock and define one LockProvider bean (e.g. JdbcTemplateLockProvider), or use jmx "
								+ "coordination");
				case KUBERNETES -> throw new InvalidPollingConfigurationException(property, value,
						"cluster '" + cluster + "' is coordinated through Kubernetes Leases but dev.polling:polling-kubernetes is "
								+ "not on the classpath",
						"add dev.polling:polling-kubernetes (it brings the fabric8 client), or use jmx coordination");
				default -> throw new IllegalStateException("no coordinator for " + kind);
			}
		}

		/** The TLS context of a named SSL bundle, or a startup failure naming the property. */
		private static SSLContext sslContext(ObjectProvider<SslBundles> sslBundles, String property, String name) {
			SslBundles bundles = sslBundles.getIfAvailable();
			if (bundles == null) {
				throw new InvalidPollingConfigurationException(property, name, "no SSL bundles are available",
						"define the bundle under spring.ssl.bundle.jks." + name + " or spring.ssl.bundle.pem." + name);
			}
			try {
				return bundles.getBundle(name).createSslContext();
			}
			catch (NoSuchSslBundleException ex) {
				throw new InvalidPollingConfigurationException(property, name, "there is no SSL bundle named '" + name + "'",
						"define it under spring.ssl.bundle.jks." + name + " or spring.ssl.bundle.pem." + name
								+ ", or fix the name");
			}
		}

		private static PollingSettings settings(PollingProperties properties) {
			PollingSettings settings = PollingSettings.defaults()
				.withPeerTimeout(properties.getJmx().getPeerTimeout())
				.withUnreachablePeerPolicy(properties.getJmx().getUnreachablePeerPolicy())
				.withJmxDomain(properties.getJmx().effectiveDomain())
				.withJmxContract(properties.getJmx().getContract());
			String instanceId = properties.getInstanceId();
			return (instanceId != null) ? settings.withInstanceId(instanceId.trim()) : settings;
		}

		private static List<ClusterDefinition> clusters(PollingProperties properties) {
			return properties.getClusters()
				.entrySet()
				.stream()
				.map((entry) -> new ClusterDefinition(entry.getKey(), entry.getValue().getName(), entry.getValue().getWaitTime(),
						new LinkedHashSet<>(entry.getValue().getPeers()), entry.getValue().getMaxCycleTime()))
				.toList();
		}

		private static @Nullable DnsDiscovery discovery(PollingProperties properties) {
			JmxProperties.Dns dns = properties.getJmx().getDiscovery().getDns();
			if (dns.getName() == null || dns.getPort() == null) {
				return null;
			}
			return new DnsDiscovery(dns.getName().trim(), dns.getPort(), dns.getInterval(), dns.getUsername(), dns.getPassword());
		}

		private static List<PeerDefinition> peers(PollingProperties properties) {
			return properties.getJmx().getPeers().entrySet().stream().map(PollingManagerConfiguration::peer).toList();
		}

		private static PeerDefinition peer(Map.Entry<String, JmxProperties.Peer> entry) {
			JmxProperties.Peer peer = entry.getValue();
			String url = (peer.getUrl() != null && !peer.getUrl().isBlank()) ? peer.getUrl().trim() : null;
			String host = (url == null && peer.getHost() != null) ? peer.getHost().trim() : null;
			int port = (url == null && peer.getPort() != null) ? peer.getPort() : 0;
			return new PeerDefinition(entry.getKey(), host, port, url, peer.getUsername(), peer.getPassword());
		}

	}

}
