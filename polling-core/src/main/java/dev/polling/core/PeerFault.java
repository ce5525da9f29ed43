package dev.polling.core;

/** Why a peer could not be observed; {@link #NONE} when it answered. */
public enum PeerFault {

	NONE,

	/** The peer actively refused the TCP connection. */
	CONNECTION_REFUSED,

	/** No answer within the peer timeout. */
	TIMEOUT,

	/** An earlier request to the peer has hung for longer than the peer timeout; no new one is sent. */
	STILL_PENDING,

	/** The peer rejected the credentials. */
	AUTHENTICATION,

	/** The peer has no MBean for the cluster (not configured there, or not started yet). */
	MISSING_MBEAN,

	/** The peer's MBean answered with a wrong or missing attribute. */
	BAD_RESPONSE,

	/** TLS handshake failed. */
	TLS,

	/** The address answers, but not as a JMX/RMI server (an HTTP port, say). */
	NOT_JMX,

	/** The peer's host name does not resolve. */
	UNKNOWN_HOST,

	/** Any other I/O or protocol failure. */
	IO;

	/**
	 * Whether the fault is a configuration fault rather than a network fault: the peer entry reaches
	 * something that will not answer as a peer until the configuration is fixed (wrong credentials,
	 * TLS mismatch, a port that does not speak JMX, an unknown host, an MBean of the wrong shape).
	 * Such a peer is never counted as idle: nobody knows whether the instance behind it polls.
	 */
	public boolean isConfigurationFault() {
		return this == AUTHENTICATION || this == TLS || this == NOT_JMX || this == UNKNOWN_HOST || this == BAD_RESPONSE;
	}

}
