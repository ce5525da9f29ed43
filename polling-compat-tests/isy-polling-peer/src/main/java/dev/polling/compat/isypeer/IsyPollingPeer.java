package dev.polling.compat.isypeer;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.springframework.jmx.export.MBeanExporter;
import org.springframework.jmx.export.annotation.AnnotationJmxAttributeSource;
import org.springframework.jmx.export.assembler.MetadataMBeanInfoAssembler;

import de.bund.bva.isyfact.polling.PollingMBean;
import de.bund.bva.isyfact.polling.config.IsyPollingProperties;
import de.bund.bva.isyfact.polling.impl.PollingVerwalterImpl;

/**
 * One isy-polling 4.0.0 instance, run in its own JVM by the mixed-cluster tests. Compiled against
 * isy-polling's API only (this module does not see polling's classes).
 *
 * <p>It configures a {@link PollingVerwalterImpl} for one cluster with one peer, exports the
 * cluster's {@link PollingMBean} into the platform MBean server the way isy-polling's manual shows
 * (Spring's {@code MBeanExporter} with the annotation assembler) under the ObjectName isy-polling
 * itself asks for, and ticks on a timer: {@code startePolling}, and when granted, a refresh with
 * {@code aktualisiereZeitpunktLetztePollingAktivitaet}. The JVM's own JMX agent (started by the
 * launching test with {@code -Dcom.sun.management.jmxremote.port=...}) serves the MBean to the peer.
 *
 * <p>Arguments: {@code jmx-domain cluster-id cluster-name wait-seconds peer-host peer-port tick-millis}.
 * Standard output: {@code READY}, then {@code granted} or {@code refused} per tick. Standard input:
 * {@code stop} stops ticking (answered by {@code STOPPED}; no tick runs after it), {@code start}
 * resumes ({@code STARTED}); end of input exits.
 */
public final class IsyPollingPeer {

	private IsyPollingPeer() {
	}

	public static void main(String[] args) throws Exception {
		String domain = args[0];
		String clusterId = args[1];
		String clusterName = args[2];
		int waitSeconds = Integer.parseInt(args[3]);
		String peerHost = args[4];
		int peerPort = Integer.parseInt(args[5]);
		long tickMillis = Long.parseLong(args[6]);

		IsyPollingProperties properties = new IsyPollingProperties();
		properties.getJmx().setDomain(domain);
		IsyPollingProperties.Jmx.Verbindung peer = new IsyPollingProperties.Jmx.Verbindung();
		peer.setHost(peerHost);
		peer.setPort(peerPort);
		properties.getJmx().getVerbindungen().put("PEER", peer);
		IsyPollingProperties.Cluster cluster = new IsyPollingProperties.Cluster();
		cluster.setName(clusterName);
		cluster.setWartezeit(waitSeconds);
		properties.getCluster().put(clusterId, cluster);

		PollingVerwalterImpl verwalter = new PollingVerwalterImpl();
		verwalter.setIsyPollingProperties(properties);
		verwalter.afterPropertiesSet();

		PollingMBean mbean = new PollingMBean();
		mbean.setPollingVerwalter(verwalter);
		mbean.setClusterId(clusterId);
		MBeanExporter exporter = new MBeanExporter();
		exporter.setServer(ManagementFactory.getPlatformMBeanServer());
		exporter.setAssembler(new MetadataMBeanInfoAssembler(new AnnotationJmxAttributeSource()));
		exporter.setAutodetect(false);
		// The name isy-polling 4.0.0 reads at its peers (PollingCluster: quoted name value).
		exporter.setBeans(Map.of(domain + ":type=PollingStatus,name=\"Polling-Aktivitaet-" + clusterName + "\"", mbean));
		exporter.afterPropertiesSet();
		exporter.afterSingletonsInstantiated();

		Object lock = new Object();
		boolean[] ticking = { true };
		ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
		timer.scheduleWithFixedDelay(() -> {
			synchronized (lock) {
				if (!ticking[0]) {
					return;
				}
				try {
					if (verwalter.startePolling(clusterId)) {
						verwalter.aktualisiereZeitpunktLetztePollingAktivitaet(clusterId);
						System.out.println("granted");
					}
					else {
						System.out.println("refused");
					}
				}
				catch (RuntimeException ex) {
					System.out.println("error " + ex);
				}
				System.out.flush();
			}
		}, 0, tickMillis, TimeUnit.MILLISECONDS);

		System.out.println("READY");
		System.out.flush();
		BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		String line;
		while ((line = readLine(in)) != null) {
			synchronized (lock) {
				if (line.trim().equals("stop")) {
					ticking[0] = false;
					System.out.println("STOPPED");
				}
				else if (line.trim().equals("start")) {
					ticking[0] = true;
					System.out.println("STARTED");
				}
				System.out.flush();
			}
		}
		System.exit(0);
	}

	private static String readLine(BufferedReader in) {
		try {
			return in.readLine();
		}
		catch (IOException ex) {
			return null;
		}
	}

}
