package dev.polling.boot.autoconfigure;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Set;
import java.util.function.Supplier;

import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;

import dev.polling.boot.InvalidPollingConfigurationException;
import dev.polling.core.JmxContract;
import dev.polling.core.jmx.JmxServerSettings;
import dev.polling.core.jmx.PollingJmxServer;
import dev.polling.boot.autoconfigure.properties.PollingProperties;
import dev.polling.boot.autoconfigure.properties.JmxProperties;

/**
 * The JMX connector server the peers talk to, opened when the application context starts and
 * closed when it stops.
 *
 * <p>This bean exists whether or not {@code polling.jmx.server.port} is set: the port differs per
 * instance and is usually given on the command line, so it is read when the server starts, not in
 * a bean condition (Spring AOT fixes conditions at build time; an application processed ahead of
 * time would otherwise open no server, and its peers would count it as gone). Without a port this
 * bean opens nothing and the cluster MBeans are registered in the platform MBean server.
 *
 * <p>It starts in an early phase, before the web server and before the scheduled polls, and stops
 * in a late one, after {@link PollingManagerLifecycle} has released the clusters: peers that still
 * ask this instance while it shuts down get an answer (released), not a refused connection.
 */
public final class PollingJmxServerLifecycle implements SmartLifecycle {

	/** Starts before and stops after {@link PollingManagerLifecycle#PHASE} and the web server. */
	public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

	private static final Logger logger = LoggerFactory.getLogger(PollingJmxServerLifecycle.class);

	private final PollingProperties properties;

	private final Supplier<PollingJmxServer.@Nullable ServerTls> tls;

	private final MBeanServer mbeanServer = MBeanServerFactory.newMBeanServer();

	private @Nullable PollingJmxServer server;

	/**
	 * @param properties the bound properties, read when the server starts
	 * @param tls the TLS context of {@code polling.jmx.server.ssl-bundle}, asked for only when the
	 *        server starts with a port; null for plain RMI
	 */
	public PollingJmxServerLifecycle(PollingProperties properties, Supplier<PollingJmxServer.@Nullable ServerTls> tls) {
		this.properties = properties;
		this.tls = tls;
	}

	/** Whether a port is configured, so that the server opens when the context starts. */
	public boolean isConfigured() {
		return this.properties.getJmx().getServer().getPort() != null;
	}

	/**
	 * The MBean server the cluster MBeans belong in: the connector server's own one when a port is
	 * configured, else the platform MBean server.
	 */
	public MBeanServer mbeanServer() {
		return isConfigured() ? this.mbeanServer : java.lang.management.ManagementFactory.getPlatformMBeanServer();
	}

	/** The open server, or null while stopped or when no port is configured. */
	public synchronized @Nullable PollingJmxServer server() {
		return this.server;
	}

	@Override
	public synchronized void start() {
		if (this.server != null || !isConfigured()) {
			return;
		}
		JmxProperties.Server server = this.properties.getJmx().getServer();
		Integer port = server.getPort();
		JmxServerSettings settings = new JmxServerSettings(server.getBindAddress().trim(), port, server.getAdvertisedHost(),
				server.getUsername(), server.getPassword(), server.isAllowUnauthenticated(), Duration.ofSeconds(30),
				portableStubs())
			// remote clients may read the cluster MBeans, nothing else
			.withReadableDomains(Set.of(this.properties.getJmx().effectiveDomain()));
		if (server.getIdleTimeout() != null) {
			settings = settings.withIdleTimeout(server.getIdleTimeout());
		}
		try {
			this.server = PollingJmxServer.start(settings, this.mbeanServer, this.tls.get());
		}
		catch (IOException ex) {
			throw new InvalidPollingConfigurationException("polling.jmx.server.port", String.valueOf(port),
					"the JMX server could not listen on " + settings.bindAddress() + ":" + port + " (" + ex.getMessage() + ")",
					"choose a free port, or stop the process that uses it");
		}
		logger.info("Polling JMX server listening at {}", this.server.serviceUrl());
		if (settings.portableStubs()) {
			warnIfStubsNameAnotherHost(this.server.host());
		}
	}

	@Override
	public synchronized void stop() {
		if (this.server != null) {
			this.server.close();
			this.server = null;
		}
	}

	@Override
	public synchronized boolean isRunning() {
		return this.server != null;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

	/**
	 * isy-polling instances cannot load this library's socket factory classes from a stub, so
	 * under the isy-polling contract the server hands out plain JDK stubs.
	 */
	private boolean portableStubs() {
		return this.properties.getJmx().getContract() == JmxContract.ISY_POLLING;
	}

	/**
	 * Plain JDK stubs carry the host RMI picks for the whole JVM ({@code java.rmi.server.hostname},
	 * else the local host's address), not the advertised host: say so when the two differ.
	 */
	private static void warnIfStubsNameAnotherHost(String advertised) {
		String rmiHost = System.getProperty("java.rmi.server.hostname");
		if (rmiHost == null) {
			try {
				rmiHost = InetAddress.getLocalHost().getHostAddress();
			}
			catch (UnknownHostException ex) {
				rmiHost = "unknown";
			}
		}
		if (!rmiHost.equals(advertised)) {
			logger.warn("polling.jmx.contract=isy-polling: the polling JMX server hands out plain JDK stubs, which name host '{}' "
					+ "rather than '{}'; if isy-polling peers cannot connect, start the JVM with -Djava.rmi.server.hostname={}",
					rmiHost, advertised, advertised);
		}
	}

}
