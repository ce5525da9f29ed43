package dev.polling.core;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Date;
import java.util.List;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.StandardMBean;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;


/**
 * The MBean peers read, one per cluster. {@code CoordinationState} is everything a peer of this
 * library needs, from one consistent value: {@code [elapsedMillis, candidateAgeMillis,
 * heldClusters, incarnation, waitMillis, settleMillis, peerTimeoutMillis]}; readers of earlier
 * versions read the first three.
 */
final class ClusterMBean implements IsyPollingStatusMXBean {

	private static final Logger logger = LoggerFactory.getLogger(ClusterMBean.class);

	private final ClusterRuntime c;

	ClusterMBean(ClusterRuntime c) {
		this.c = c;
	}

	@Override
	public String getClusterId() {
		return this.c.definition().id();
	}

	@Override
	public String getClusterName() {
		return this.c.definition().name();
	}

	@Override
	public String getInstanceId() {
		return this.c.instance().settings().instanceId();
	}

	@Override
	public long getElapsedMillis() {
		return this.c.state().elapsedMillis();
	}

	@Override
	public long[] getCoordinationState() {
		long[] snapshot = this.c.state().snapshot();
		LocalInstance instance = this.c.instance();
		// paused here, or just resumed from a stop (does not acquire yet): takes no part in balancing this
		// cluster, so peers neither hand it over to this instance nor leave it free for it
		boolean outOfBalancing = this.c.state().isPaused() || (this.c.coordinated() == null && instance.justStopped());
		PeerObservation.Published published = PeerDecider.self(this.c).published();
		return new long[] { snapshot[0], snapshot[1], outOfBalancing ? -1 : instance.heldClusters(), published.incarnation(),
				published.waitMillis(), published.settleMillis(), published.peerTimeoutMillis() };
	}

	@Override
	public String getLastActivity() {
		long elapsed = this.c.state().elapsedMillis();
		return (elapsed == Long.MAX_VALUE) ? "never" : this.c.instance().time().now().minusMillis(elapsed).toString();
	}

	@Override
	public boolean isHolding() {
		return this.c.state().isHolding();
	}

	@Override
	public boolean isPaused() {
		return this.c.state().isPaused();
	}

	@Override
	public long getCandidateAgeMillis() {
		return this.c.state().candidateAgeMillis();
	}

	@Override
	public long getWaitTimeMillis() {
		return this.c.definition().waitTime().toMillis();
	}

	/**
	 * isy-polling peers read only this attribute and know no candidacy; while this instance is a
	 * candidate it reports 0 (just active), so that an isy-polling peer asking during the settle time
	 * is refused. Instances of ours read {@code CoordinationState} instead.
	 */
	@Override
	public long getZeitraumLetztePollingAktivitaet() {
		long[] snapshot = this.c.state().snapshot();
		return (snapshot[1] >= 0) ? 0 : snapshot[0];
	}

	@Override
	public Date getZeitpunktLetztePollingAktivitaet() {
		long elapsed = this.c.state().elapsedMillis();
		return (elapsed == Long.MAX_VALUE) ? new Date(0) : Date.from(this.c.instance().time().now().minusMillis(elapsed));
	}

	/**
	 * Registers one MBean per cluster with exactly the contract's management interface.
	 * @return the names registered
	 */
	static List<ObjectName> register(MBeanServer server, PollingSettings settings, Collection<ClusterRuntime> clusters) {
		List<ObjectName> names = new ArrayList<>();
		JmxContract contract = settings.jmxContract();
		for (ClusterRuntime c : clusters) {
			ObjectName name = contract.objectName(settings.jmxDomain(), c.definition());
			try {
				if (server.isRegistered(name)) {
					server.unregisterMBean(name);
					logger.warn("Replaced an MBean already registered as {}", name);
				}
				server.registerMBean(standardMBean(contract, new ClusterMBean(c)), name);
				names.add(name);
			}
			catch (Exception ex) {
				unregister(server, names);
				throw new IllegalStateException("Could not register the polling MBean " + name + ": " + ex.getMessage(), ex);
			}
		}
		return names;
	}

	private static <T extends PollingClusterMXBean> StandardMBean standardMBean(JmxContract contract, ClusterMBean mbean) {
		@SuppressWarnings("unchecked")
		Class<T> type = (Class<T>) contract.mbeanInterface();
		return new StandardMBean(type.cast(mbean), type, true);
	}

	static void unregister(MBeanServer server, List<ObjectName> names) {
		for (ObjectName name : names) {
			try {
				if (server.isRegistered(name)) {
					server.unregisterMBean(name);
				}
			}
			catch (Exception ex) {
				logger.debug("Could not unregister {}", name, ex);
			}
		}
	}

}
