package dev.polling.core;

/**
 * How an instance that does not hold a cluster acquires it. Not public: production always uses
 * {@link #ANNOUNCE}; the known-bad {@link #CHECK_THEN_ACT} is selectable only through the
 * package-private {@code PollingManager.Builder#grantProtocol}, which the tests' bridge
 * ({@code TestBuilders#checkThenAct} in polling-core's test-jar) reaches for the simulation that
 * must catch it and for the grant-race benchmark.
 */
enum GrantProtocol {

	/**
	 * Announce candidacy, wait the settle time, ask the peers again, and yield to an older
	 * candidate or, between candidates that see each other, to the lower instance id. No double
	 * grant among peers that answer. The only protocol of production code.
	 */
	ANNOUNCE,

	/**
	 * The seed's check-then-act: grant as soon as no peer holds. Two instances whose timers fire
	 * together can both be granted. For tests and the benchmark comparison only.
	 */
	CHECK_THEN_ACT

}
