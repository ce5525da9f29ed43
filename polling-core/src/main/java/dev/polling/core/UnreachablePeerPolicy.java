package dev.polling.core;

/**
 * What a decision assumes about a peer whose state is unknown (it timed out or failed). A peer
 * that refuses the connection is always taken as gone (idle), whatever the policy.
 */
public enum UnreachablePeerPolicy {

	/**
	 * Treat the peer as idle and go on (the seed's choice): fastest failover, but a peer that is
	 * only cut off for a moment may be polling at the same time.
	 */
	PROCEED,

	/**
	 * Assume the peer goes on as last observed until the wait time has passed since this instance
	 * first found it silent (its first unknown observation after the last answer): a peer last seen
	 * holding keeps the cluster through short network blips, also towards an instance that was
	 * itself stalled meanwhile.
	 */
	PRESUME_LAST_KNOWN

}
