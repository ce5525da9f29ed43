package dev.polling.core;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Objects;


/**
 * Settings shared by all clusters of one instance.
 *
 * @param instanceId this instance's id, unique among the peers; used to recognise itself in a shared
 *        peer list and to break ties between candidates (the lower id wins)
 * @param peerTimeout the longest a decision waits for a peer; must be shorter than half of every
 *        cluster's wait time
 * @param unreachablePeerPolicy what to assume about a peer that timed out or failed
 * @param settleTime how long a candidate waits after announcing itself before it asks again
 * @param jmxDomain the JMX domain of the cluster MBeans, the same on every instance
 * @param jmxContract the ObjectName and attributes used to register this instance's MBeans and to read
 *        the peers'; {@link JmxContract#ISY_POLLING} for clusters mixed with isy-polling instances
 */
public record PollingSettings(String instanceId, Duration peerTimeout, UnreachablePeerPolicy unreachablePeerPolicy,
		Duration settleTime, String jmxDomain, JmxContract jmxContract) {

	/** Default peer timeout: 2 seconds. */
	public static final Duration DEFAULT_PEER_TIMEOUT = Duration.ofSeconds(2);

	/** Default settle time: 50 milliseconds. */
	public static final Duration DEFAULT_SETTLE_TIME = Duration.ofMillis(50);

	/** Shortest settle time accepted: 10 milliseconds. */
	public static final Duration MIN_SETTLE_TIME = Duration.ofMillis(10);

	/** Default JMX domain. */
	public static final String DEFAULT_JMX_DOMAIN = "dev.polling";

	public PollingSettings {
		Objects.requireNonNull(instanceId, "instanceId must not be null");
		if (instanceId.isBlank()) {
			throw new IllegalArgumentException("instanceId is blank; leave it unset for host name + pid, or set a unique id");
		}
		Objects.requireNonNull(peerTimeout, "peerTimeout must not be null");
		if (peerTimeout.isNegative() || peerTimeout.isZero()) {
			throw new IllegalArgumentException("peerTimeout " + peerTimeout.toMillis() + " ms must be positive; use e.g. 2s");
		}
		unreachablePeerPolicy = (unreachablePeerPolicy != null) ? unreachablePeerPolicy : UnreachablePeerPolicy.PROCEED;
		settleTime = (settleTime != null) ? settleTime : DEFAULT_SETTLE_TIME;
		if (settleTime.compareTo(MIN_SETTLE_TIME) < 0 || settleTime.compareTo(Duration.ofSeconds(5)) > 0) {
			throw new IllegalArgumentException("settleTime " + settleTime.toMillis() + " ms is out of range; use 10ms-5s (default 50ms): "
					+ "two candidates are ordered by how much earlier one announced, by more than half the settle time, "
					+ "which must be well above the millisecond resolution of the ages they publish");
		}
		jmxDomain = (jmxDomain == null || jmxDomain.isBlank()) ? DEFAULT_JMX_DOMAIN : jmxDomain;
		if (jmxDomain.indexOf(':') >= 0 || jmxDomain.indexOf('=') >= 0 || jmxDomain.indexOf('*') >= 0 || jmxDomain.indexOf('?') >= 0) {
			throw new IllegalArgumentException("jmxDomain '" + jmxDomain + "' contains one of : = * ?; use a package-like name such as dev.polling");
		}
		jmxContract = (jmxContract != null) ? jmxContract : JmxContract.NATIVE;
	}

	/** Settings with this library's own JMX contract ({@link JmxContract#NATIVE}). */
	public PollingSettings(String instanceId, Duration peerTimeout, UnreachablePeerPolicy unreachablePeerPolicy,
			Duration settleTime, String jmxDomain) {
		this(instanceId, peerTimeout, unreachablePeerPolicy, settleTime, jmxDomain, JmxContract.NATIVE);
	}

	/** Defaults: instance id from host name and pid, 2 s peer timeout, policy PROCEED, 50 ms settle time. */
	public static PollingSettings defaults() {
		return new PollingSettings(defaultInstanceId(), DEFAULT_PEER_TIMEOUT, UnreachablePeerPolicy.PROCEED,
				DEFAULT_SETTLE_TIME, DEFAULT_JMX_DOMAIN);
	}

	/** Host name and process id, e.g. {@code app-host-1:4711}. */
	public static String defaultInstanceId() {
		String host;
		try {
			host = InetAddress.getLocalHost().getHostName();
		}
		catch (Exception ex) {
			host = "localhost";
		}
		long pid;
		try {
			pid = ProcessHandle.current().pid();
		}
		catch (UnsupportedOperationException ex) {
			pid = ManagementFactory.getRuntimeMXBean().getPid();
		}
		return host + ":" + pid;
	}

	public PollingSettings withInstanceId(String instanceId) {
		return new PollingSettings(instanceId, this.peerTimeout, this.unreachablePeerPolicy, this.settleTime, this.jmxDomain, this.jmxContract);
	}

	public PollingSettings withPeerTimeout(Duration peerTimeout) {
		return new PollingSettings(this.instanceId, peerTimeout, this.unreachablePeerPolicy, this.settleTime, this.jmxDomain, this.jmxContract);
	}

	public PollingSettings withUnreachablePeerPolicy(UnreachablePeerPolicy policy) {
		return new PollingSettings(this.instanceId, this.peerTimeout, policy, this.settleTime, this.jmxDomain, this.jmxContract);
	}

	public PollingSettings withSettleTime(Duration settleTime) {
		return new PollingSettings(this.instanceId, this.peerTimeout, this.unreachablePeerPolicy, settleTime, this.jmxDomain, this.jmxContract);
	}

	public PollingSettings withJmxContract(JmxContract jmxContract) {
		return new PollingSettings(this.instanceId, this.peerTimeout, this.unreachablePeerPolicy, this.settleTime,
				this.jmxDomain, jmxContract);
	}

	public PollingSettings withJmxDomain(String jmxDomain) {
		return new PollingSettings(this.instanceId, this.peerTimeout, this.unreachablePeerPolicy, this.settleTime, jmxDomain, this.jmxContract);
	}

}
