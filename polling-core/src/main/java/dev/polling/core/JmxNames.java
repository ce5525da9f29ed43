package dev.polling.core;

import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;

/** Object names of the polling MBeans. */
public final class JmxNames {

	private JmxNames() {
	}

	/** {@code <domain>:type=PollingCluster,name="<cluster id>"}. */
	public static ObjectName clusterName(String domain, String clusterId) {
		try {
			return new ObjectName(domain + ":type=PollingCluster,name=" + ObjectName.quote(clusterId));
		}
		catch (MalformedObjectNameException ex) {
			throw new IllegalArgumentException("JMX domain '" + domain + "' or cluster id '" + clusterId
					+ "' does not form a valid ObjectName: " + ex.getMessage(), ex);
		}
	}

}
