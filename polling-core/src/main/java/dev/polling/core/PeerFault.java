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

	/** Any other I/O or protocol failure. */
	IO

}
