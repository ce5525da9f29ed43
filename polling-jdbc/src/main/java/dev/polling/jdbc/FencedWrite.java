package dev.polling.jdbc;

/**
 * The outcome of a write that checks the fencing number of a claim: every claim (and every lease
 * expiry) bumps the row's fence, so a write carrying an older fence comes from a holder that lost
 * its claim and is not applied.
 */
public enum FencedWrite {

	/** The claim was still current: the write is applied. */
	APPLIED,

	/**
	 * The row was reclaimed or recovered since this claim (its lease expired, or an operator acted):
	 * nothing was written.
	 */
	REJECTED;

	/**
	 * Whether the write was applied.
	 * @return {@code true} for {@link #APPLIED}
	 */
	public boolean isApplied() {
		return this == APPLIED;
	}

}
