package dev.polling.core;

import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;


/**
 * The JMX contract between peers: under which ObjectName an instance registers its cluster MBean,
 * and which attribute holds the time since its last activity. Every instance of a cluster must use
 * the same contract (and the same domain). The same contract is used to register this instance's
 * MBean and to read the peers'.
 */
public enum JmxContract {

	/**
	 * This library's contract: {@code <domain>:type=PollingCluster,name="<cluster id>"}, elapsed time in
	 * {@value PollingClusterMXBean#ELAPSED_MILLIS}, plus the instance id and the candidacy that make
	 * the grant race-free.
	 */
	NATIVE("dev.polling", PollingClusterMXBean.ELAPSED_MILLIS, PollingClusterMXBean.class),

	/**
	 * isy-polling's contract, for clusters that mix isy-polling instances and ours (one instance at a
	 * time migrated): {@code <domain>:type=PollingStatus,name="Polling-Aktivitaet-<cluster name>"},
	 * elapsed time in {@value IsyPollingStatusMXBean#ZEITRAUM_LETZTE_POLLING_AKTIVITAET} (ms,
	 * {@link Long#MAX_VALUE} for never) and the last activity as a {@link java.util.Date} in
	 * {@value IsyPollingStatusMXBean#ZEITPUNKT_LETZTE_POLLING_AKTIVITAET}. The MBean carries this
	 * library's attributes too, so instances of ours still recognise themselves and each other's
	 * candidacy; isy-polling peers report neither (they count as never being candidates).
	 */
	ISY_POLLING("de.bund.bva.isyfact.polling", IsyPollingStatusMXBean.ZEITRAUM_LETZTE_POLLING_AKTIVITAET,
			IsyPollingStatusMXBean.class);

	private final String defaultDomain;

	private final String elapsedAttribute;

	private final Class<? extends PollingClusterMXBean> mbeanInterface;

	JmxContract(String defaultDomain, String elapsedAttribute, Class<? extends PollingClusterMXBean> mbeanInterface) {
		this.defaultDomain = defaultDomain;
		this.elapsedAttribute = elapsedAttribute;
		this.mbeanInterface = mbeanInterface;
	}

	/** The ObjectName of a cluster's MBean in the given domain. */
	public ObjectName objectName(String domain, ClusterDefinition cluster) {
		if (this == NATIVE) {
			return JmxNames.clusterName(domain, cluster.id());
		}
		try {
			return new ObjectName(domain + ":type=PollingStatus,name=" + ObjectName.quote("Polling-Aktivitaet-" + cluster.name()));
		}
		catch (MalformedObjectNameException ex) {
			throw new IllegalArgumentException("JMX domain '" + domain + "' or cluster name '" + cluster.name()
					+ "' does not form a valid ObjectName: " + ex.getMessage(), ex);
		}
	}

	/** The attribute a peer reads for the time since the last activity (long ms, {@link Long#MAX_VALUE} for never). */
	public String elapsedAttribute() {
		return this.elapsedAttribute;
	}

	/** The management interface the cluster MBean is registered with. */
	public Class<? extends PollingClusterMXBean> mbeanInterface() {
		return this.mbeanInterface;
	}

	/** The JMX domain the other side uses when none is configured. */
	public String defaultDomain() {
		return this.defaultDomain;
	}

}
