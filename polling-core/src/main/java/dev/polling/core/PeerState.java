package dev.polling.core;

/** How a peer answered one request. */
public enum PeerState {

	/** The peer answered with its state. */
	ANSWERED,

	/** The peer is this instance itself (recognised by its instance id); it is not asked again. */
	SELF,

	/** The connection was refused: the peer process is gone. Always treated as idle. */
	REFUSED,

	/** The peer did not answer within the peer timeout, or an earlier request to it still hangs. */
	UNRESPONSIVE,

	/** The peer answered with an error: bad credentials, missing MBean, wrong type, TLS, protocol. */
	ERROR;

	/** Whether the peer's state is unknown, so that the unreachable-peer policy applies. */
	public boolean isUnknown() {
		return this == UNRESPONSIVE || this == ERROR;
	}

}
