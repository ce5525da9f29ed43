package dev.polling.core;

import java.time.Duration;

/**
 * Where an instance learns of stops of its JVM: the {@link StopDetector} (real time, a heartbeat
 * thread), or a simulated source in the tests' simulation (virtual time, set through the
 * package-private {@code PollingManager.Builder#stopSource}).
 */
interface StopSource {

	/** How many stops were detected so far (checking for one first). */
	long stops();

	/** Whether a stop was detected within the given time. */
	boolean stoppedWithin(Duration window);

}
