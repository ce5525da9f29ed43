package dev.polling.core;

/** How an instance that does not hold a cluster acquires it. */
public enum GrantProtocol {

	/**
	 * Announce candidacy, wait the settle time, ask the peers again, and yield to an older
	 * candidate or, between candidates that see each other, to the lower instance id. No double
	 * grant among peers that answer. The default.
	 */
	ANNOUNCE,

	/**
	 * The seed's check-then-act: grant as soon as no peer holds. Two instances whose timers fire
	 * together can both be granted. Kept for comparison and for clusters with peers that do not
	 * understand candidacy.
	 */
	CHECK_THEN_ACT

}
