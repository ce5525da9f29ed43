package dev.polling.boot.autoconfigure;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.net.ssl.SSLContext;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.ssl.NoSuchSslBundleException;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;

import dev.polling.boot.aop.PollingAnnotationBeanPostProcessor;
import dev.polling.core.ClusterCoordinator;
import dev.polling.core.ClusterDefinition;
import dev.polling.core.PeerDefinition;
import dev.polling.core.PollingListener;
import dev.polling.core.PollingManager;
import dev.polling.core.PollingSettings;
import dev.polling.core.jmx.JmxContract;
import dev.polling.core.jmx.JmxServerSettings;
import dev.polling.core.jmx.PollingJmxServer;

/**
 * Auto-configuration of polling clusters: the {@link PollingManager} (the registry of all
 * clusters), the JMX connector server the peers talk to when {@code polling.jmx.server.port} is
 * set, and the processing of {@code @PollingCycle} and {@code @PollingAction}.
 *
 * <p>The manager is created only when at least one cluster is configured. The cluster MBeans are
 * registered in the JMX server's own MBean server, or else in the platform MBean server, whether or
 * not {@code spring.jmx.enabled} is set. On shutdown the manager releases every cluster (peers can
 * take over at their next tick) and unregisters its MBeans.
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

	@Configuration(proxyBeanMethods = false)
	@Conditional(OnPollingClustersCondition.class)
	static class PollingManagerConfiguration {

		@Bean(destroyMethod = "close")
		@ConditionalOnMissingBean
		@ConditionalOnProperty(prefix = "polling.jmx.server", name = "port")
		PollingJmxServer pollingJmxServer(PollingProperties properties, ObjectProvider<SslBundles> sslBundles) {
			PollingPropertiesValidator.validate(properties);
			PollingProperties.Server server = properties.getJmx().getServer();
			JmxServerSettings settings = new JmxServerSettings(server.getBindAddress().trim(), server.getPort(),
					server.getAdvertisedHost(), server.getUsername(), server.getPassword(), server.isAllowUnauthenticated(),
					Duration.ofSeconds(30), portableStubs(properties))
				// remote clients may read the cluster MBeans, nothing else
				.withReadableDomains(Set.of(properties.getJmx().effectiveDomain()));
			if (server.getIdleTimeout() != null) {
				settings = settings.withIdleTimeout(server.getIdleTimeout());
			}
			PollingJmxServer.ServerTls tls = (server.getSslBundle() != null)
					? new PollingJmxServer.ServerTls(sslContext(sslBundles, "polling.jmx.server.ssl-bundle", server.getSslBundle()),
							server.isRequireClientCertificate())
					: null;
			try {
				PollingJmxServer started = PollingJmxServer.start(settings, MBeanServerFactory.newMBeanServer(), tls);
				if (settings.portableStubs()) {
					warnIfStubsNameAnotherHost(started.host());
				}
				return started;
			}
			catch (IOException ex) {
				throw new InvalidPollingConfigurationException("polling.jmx.server.port", String.valueOf(server.getPort()),
						"the JMX server could not listen on " + settings.bindAddress() + ":" + server.getPort() + " ("
								+ ex.getMessage() + ")",
						"choose a free port, or stop the process that uses it");
			}
		}

		@Bean(destroyMethod = "close")
		@ConditionalOnMissingBean
		PollingManager pollingManager(PollingProperties properties, ObjectProvider<PollingJmxServer> jmxServer,
				ObjectProvider<PollingListener> listeners, ObjectProvider<ClusterCoordinator> coordinators,
				ObjectProvider<SslBundles> sslBundles) {
			PollingPropertiesValidator.validate(properties);
			PollingJmxServer server = jmxServer.getIfAvailable();
			MBeanServer mbeanServer = (server != null) ? server.mbeanServer() : ManagementFactory.getPlatformMBeanServer();
			PollingManager.Builder builder = PollingManager.builder()
				.settings(settings(properties))
				.clusters(clusters(properties))
				.peers(peers(properties))
				.listener(CompositePollingListener.of(listeners.orderedStream().toList()))
				.balanceClusters(properties.isBalanceClusters())
				.mbeanServer(mbeanServer);
			properties.getPeers().forEach((id, peer) -> {
				if (peer.getSslBundle() != null) {
					builder.peerTls(id, sslContext(sslBundles, "polling.peers." + id + ".ssl-bundle", peer.getSslBundle()));
				}
			});
			properties.getClusters().forEach((id, cluster) -> {
				PollingProperties.Coordination coordination = (cluster.getCoordination() != null) ? cluster.getCoordination()
						: properties.getCoordination();
				if (coordination == PollingProperties.Coordination.JDBC) {
					ClusterCoordinator coordinator = coordinators.getIfAvailable();
					if (coordinator == null) {
						String property = (cluster.getCoordination() != null) ? "polling.clusters." + id + ".coordination"
								: "polling.coordination";
						throw new InvalidPollingConfigurationException(property, "jdbc",
								"cluster '" + id + "' is coordinated through the database but the application has no single DataSource",
								"add spring-boot-starter-jdbc and configure a DataSource, or use jmx coordination");
					}
					builder.coordinator(id, coordinator);
				}
			});
			PollingManager manager = builder.build();
			logger.info("Polling instance '{}': clusters {}, peers {}, cluster MBeans in {}", manager.settings().instanceId(),
					manager.clusterIds(), manager.peers().values().stream().map((peer) -> peer.id() + "=" + peer.address()).toList(),
					(server != null) ? "the polling JMX server at " + server.serviceUrl() : "the platform MBean server");
			return manager;
		}

		/** The TLS context of a named SSL bundle, or a startup failure naming the property. */
		private static SSLContext sslContext(ObjectProvider<SslBundles> sslBundles, String property, String name) {
			SslBundles bundles = sslBundles.getIfAvailable();
			if (bundles == null) {
				throw new InvalidPollingConfigurationException(property, "'" + name + "'", "no SSL bundles are available",
						"define the bundle under spring.ssl.bundle.jks." + name + " or spring.ssl.bundle.pem." + name);
			}
			try {
				return bundles.getBundle(name).createSslContext();
			}
			catch (NoSuchSslBundleException ex) {
				throw new InvalidPollingConfigurationException(property, "'" + name + "'", "there is no SSL bundle named '" + name + "'",
						"define it under spring.ssl.bundle.jks." + name + " or spring.ssl.bundle.pem." + name
								+ ", or fix the name");
			}
		}

		private static PollingSettings settings(PollingProperties properties) {
			PollingSettings settings = PollingSettings.defaults()
				.withPeerTimeout(properties.getPeerTimeout())
				.withUnreachablePeerPolicy(properties.getUnreachablePeerPolicy())
				.withJmxDomain(properties.getJmx().effectiveDomain())
				.withJmxContract(properties.getJmx().getContract());
			String instanceId = properties.getInstanceId();
			return (instanceId != null) ? settings.withInstanceId(instanceId.trim()) : settings;
		}

		/**
		 * Plain JDK stubs carry the host RMI picks for the whole JVM ({@code java.rmi.server.hostname},
		 * else the local host's address), not the advertised host: say so when the two differ.
		 */
		private static void warnIfStubsNameAnotherHost(String advertised) {
			String rmiHost = System.getProperty("java.rmi.server.hostname");
			if (rmiHost == null) {
				try {
					rmiHost = java.net.InetAddress.getLocalHost().getHostAddress();
				}
				catch (java.net.UnknownHostException ex) {
					rmiHost = "unknown";
				}
			}
			if (!rmiHost.equals(advertised)) {
				logger.warn("polling.jmx.contract=isy-polling: the polling JMX server hands out plain JDK stubs, which name host '{}' "
						+ "rather than '{}'; if isy-polling peers cannot connect, start the JVM with -Djava.rmi.server.hostname={}",
						rmiHost, advertised, advertised);
			}
		}

		/**
		 * isy-polling instances cannot load this library's socket factory classes from a stub, so
		 * under the isy-polling contract the server hands out plain JDK stubs.
		 */
		private static boolean portableStubs(PollingProperties properties) {
			return properties.getJmx().getContract() == JmxContract.ISY_POLLING;
		}

		private static List<ClusterDefinition> clusters(PollingProperties properties) {
			return properties.getClusters()
				.entrySet()
				.stream()
				.map((entry) -> new ClusterDefinition(entry.getKey(), entry.getValue().getName(), entry.getValue().getWaitTime(),
						new LinkedHashSet<>(entry.getValue().getPeers()), entry.getValue().getMaxCycleTime()))
				.toList();
		}

		private static List<PeerDefinition> peers(PollingProperties properties) {
			return properties.getPeers().entrySet().stream().map(PollingManagerConfiguration::peer).toList();
		}

		private static PeerDefinition peer(Map.Entry<String, PollingProperties.Peer> entry) {
			PollingProperties.Peer peer = entry.getValue();
			String url = (peer.getUrl() != null && !peer.getUrl().isBlank()) ? peer.getUrl().trim() : null;
			String host = (url == null && peer.getHost() != null) ? peer.getHost().trim() : null;
			int port = (url == null && peer.getPort() != null) ? peer.getPort() : 0;
			return new PeerDefinition(entry.getKey(), host, port, url, peer.getUsername(), peer.getPassword());
		}

	}

}
