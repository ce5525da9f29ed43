package dev.polling.core.discovery;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A peer found through {@link DnsDiscovery}, for endpoints and logs.
 *
 * @param id the peer id used in observations: its address and JMX port ({@code 10.0.0.7:9010})
 * @param address the resolved address
 * @param port the JMX port asked
 * @param firstSeen when the resolution that first returned it started (wall clock)
 * @param missingSince when the first resolution without it started, or null while the name resolves
 *        to it; a missing peer stays a peer (and is asked) until it has been missing for one wait time
 * @param self whether it answered with this instance's id (it is this instance and is not asked)
 */
public record DiscoveredPeer(String id, String address, int port, Instant firstSeen, @Nullable Instant missingSince, boolean self) {

	/** Whether the name no longer resolves to this peer (it is dropped one wait time after {@link #missingSince()}). */
	public boolean isMissing() {
		return this.missingSince != null;
	}

}
